"""Agent profiles: clinician-editable JSON files in `resources/agents/`, validated on load."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from concord.errors import InputError, first_validation_error

PROFILE_SUFFIX = ".json"
ID_PATTERN = r"^[a-z][a-z0-9_]*$"
TAG_PATTERN = r"^[A-Z][A-Z0-9_/]*$"
MAX_ITEMS_CAP = 10  # the schema's maxItems bounds generation time; keep it small


class AgentRole(StrEnum):
    SURGEON = "surgeon"
    ANAESTHETIST = "anaesthetist"
    SPECIALIST = "specialist"


class MaxItems(BaseModel):
    """Most items the agent may write per section (the schema's maxItems)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    top_risks: int = Field(default=5, ge=1, le=MAX_ITEMS_CAP)
    actions: int = Field(default=4, ge=1, le=MAX_ITEMS_CAP)
    triggers: int = Field(default=3, ge=1, le=MAX_ITEMS_CAP)
    monitoring: int = Field(default=3, ge=1, le=MAX_ITEMS_CAP)
    risk_scores: int = Field(default=2, ge=1, le=MAX_ITEMS_CAP)
    evidence: int = Field(default=6, ge=1, le=MAX_ITEMS_CAP)


class AgentProfile(BaseModel):
    """One agent of the panel, as a clinician reads and edits it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=ID_PATTERN, description="Stable id; equals the file name")
    title: str = Field(min_length=1, description="Human title, e.g. 'Cardiologist'")
    role: AgentRole
    focus: str = Field(min_length=1, description="What this agent looks for, in plain words")
    tags: tuple[str, ...] = Field(min_length=1, description="Evidence tag vocabulary")
    gate_ids: tuple[str, ...] = Field(
        default=(),
        description="Record-screen gates it owns: never written in the profile file; the "
        "gates name their owner (`assign_gates`)",
    )
    max_items: MaxItems = Field(default_factory=MaxItems)

    @model_validator(mode="after")
    def _check(self) -> AgentProfile:
        bad = [t for t in self.tags if not re.match(TAG_PATTERN, t)]
        if bad:
            raise ValueError(f"tags must be upper-case words, got {bad}")
        if len(set(self.tags)) != len(self.tags):
            raise ValueError("tags must be unique")
        bad = [g for g in self.gate_ids if not re.match(ID_PATTERN, g)]
        if bad:
            raise ValueError(f"gate_ids must be lower-case ids, got {bad}")
        return self

    def canonical_json(self) -> str:
        """Stable text of the profile, hashed into prompt_sha256."""
        return json.dumps(self.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)


def _default_directory() -> Path:
    from concord.paths import resources_dir

    return resources_dir() / "agents"


def load_profile(path: Path) -> AgentProfile:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and "gate_ids" in data:
            raise InputError(
                "gate_ids: a gate's owner is stated in the gate file (its specialty), "
                "not in the agent profile",
                subject=path,
            )
        profile = AgentProfile.model_validate(data)
    except OSError as exc:
        raise InputError(f"cannot read agent profile: {exc.strerror or exc}", subject=path) from exc
    except json.JSONDecodeError as exc:
        raise InputError(f"agent profile is not valid JSON: {exc}", subject=path) from exc
    except ValidationError as exc:
        where, problem = first_validation_error(exc)
        where = where or "profile"
        raise InputError(f"invalid agent profile: {where}: {problem}", subject=path) from exc
    if profile.id != path.stem:
        raise InputError(f"profile id {profile.id!r} differs from the file name", subject=path)
    return profile


def load_profiles(directory: Path | None = None) -> dict[str, AgentProfile]:
    """Every `*.json` profile in `directory` (default `resources/agents/`), by id.
    Needs exactly one surgeon and one anaesthetist; a bad file raises InputError naming it."""
    folder = Path(directory) if directory is not None else _default_directory()
    if not folder.is_dir():
        raise InputError("agent profile folder does not exist", subject=folder)
    profiles = {p.id: p for p in map(load_profile, sorted(folder.glob(f"*{PROFILE_SUFFIX}")))}
    for role in (AgentRole.SURGEON, AgentRole.ANAESTHETIST):
        count = sum(p.role == role for p in profiles.values())
        if count != 1:
            raise InputError(
                f"needs exactly one {role.value} profile, found {count}", subject=folder
            )
    return profiles


ANAESTHESIA = "anaesthesia"
"""The owner of gates no specialist takes: the anaesthetist's own."""


def assign_gates(
    profiles: Mapping[str, AgentProfile], owners: Mapping[str, Sequence[str]]
) -> dict[str, AgentProfile]:
    """The profiles with the gates each owns: a specialist the gates of its specialty, the
    anaesthetist those owned by anaesthesia. `owners`: specialty -> gate ids, as the gate
    files state them (`RecordScreen.owners`)."""
    out: dict[str, AgentProfile] = {}
    for pid, profile in profiles.items():
        owner = ANAESTHESIA if profile.role == AgentRole.ANAESTHETIST else pid
        gates = tuple(owners.get(owner, ())) if profile.role != AgentRole.SURGEON else ()
        out[pid] = profile.model_copy(update={"gate_ids": gates})
    return out


def specialists(profiles: Mapping[str, AgentProfile]) -> tuple[AgentProfile, ...]:
    return tuple(p for p in profiles.values() if p.role == AgentRole.SPECIALIST)
