"""The one versioned scoring configuration: weights, caps, thresholds and grade bands."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from concord import paths
from concord.errors import InputError, first_validation_error

SUBSCORE_NAMES = ("coverage", "critical_items", "correctness", "prioritisation", "actionability")
SUBSCORE_TITLES: dict[str, str] = {
    "coverage": "Coverage",
    "critical_items": "Critical items",
    "correctness": "Correctness & specificity",
    "prioritisation": "Prioritisation",
    "actionability": "Actionability",
}


def subscore_title(name: str) -> str:
    """The title a clinician reads for a sub-score name (the app and the PDF alike)."""
    return SUBSCORE_TITLES.get(name, name.replace("_", " ").capitalize())


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CriticalCaps(_Strict):
    one_major_miss: float = Field(ge=0, le=1)
    two_or_more_major_misses: float = Field(ge=0, le=1)


class GradeBand(_Strict):
    name: str
    min: float = Field(ge=0, le=100)


class CorrectnessPenalties(_Strict):
    unsupported: float = Field(ge=0)
    contradicted: float = Field(ge=0)
    vague: float = Field(ge=0)


class ActionabilityCredit(_Strict):
    same_threshold: float = Field(ge=0, le=1)
    concept_only: float = Field(ge=0, le=1)


class MatchingThresholds(_Strict):
    fuzzy_threshold: float = Field(ge=0, le=100, description="rapidfuzz token_set_ratio")
    lexicon_min_jaccard: float = Field(ge=0, le=1, description="shared lexicon concepts")


class JudgePanel(_Strict):
    max_overall_spread: float = Field(ge=0, le=100)


class ScoringConfig(_Strict):
    version: str
    description: str = ""
    weights: dict[str, float]
    critical_caps: CriticalCaps
    overall_cap_on_major_miss: float = Field(ge=0, le=100)
    grades: tuple[GradeBand, ...]
    correctness_penalties: CorrectnessPenalties
    actionability_credit: ActionabilityCredit
    matching: MatchingThresholds
    judge_panel: JudgePanel

    @model_validator(mode="after")
    def _consistent(self) -> ScoringConfig:
        if set(self.weights) != set(SUBSCORE_NAMES):
            raise ValueError(f"weights must name exactly {', '.join(SUBSCORE_NAMES)}")
        if abs(sum(self.weights.values()) - 1.0) > 1e-9:
            raise ValueError("weights must sum to 1")
        mins = [band.min for band in self.grades]
        if mins != sorted(mins, reverse=True) or mins[-1] != 0:
            raise ValueError("grade bands must be in descending order ending at 0")
        return self

    def grade(self, overall: float) -> str:
        for band in self.grades:
            if overall >= band.min:
                return band.name
        return self.grades[-1].name

    def grade_position(self, name: str | None) -> float | None:
        """Where a grade sits from best (0.0) to worst (1.0) among the bands; None for a name
        that is not a band. Colours and orderings derive from this, never from band names."""
        names = [band.name for band in self.grades]
        if name not in names:
            return None
        return names.index(name) / max(len(names) - 1, 1)

    def grades_legend(self) -> str:
        """'High ≥ 90, Medium 70–89, Low 40–69, Very Low < 40' from the bands."""
        parts: list[str] = []
        upper: float | None = None
        for band in self.grades:
            low = f"{band.min:g}"
            if upper is None:
                parts.append(f"{band.name} ≥ {low}")
            elif band.min == 0:
                parts.append(f"{band.name} < {upper:g}")
            else:
                parts.append(f"{band.name} {low}–{upper - 1:g}")
            upper = band.min
        return ", ".join(parts)


def load_scoring_config(path: Path | None = None) -> ScoringConfig:
    """Load and validate the scoring config; a bad file raises InputError naming it."""
    path = path or paths.resources_dir() / "scoring.json"
    return _load(str(path))


@lru_cache(maxsize=4)
def _load(path: str) -> ScoringConfig:
    try:
        return ScoringConfig.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise InputError("scoring config not found", subject=path) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON at line {exc.lineno}: {exc.msg}", subject=path) from None
    except ValidationError as exc:
        where, problem = first_validation_error(exc)
        raise InputError(
            f"invalid scoring config at {where or 'top level'}: {problem}", subject=path
        ) from None
