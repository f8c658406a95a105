"""Graded qualifiers: how severe a stenosis is, how acute a chest pain.

A scale (`resources/lexicon/qualifiers.json`) maps words to grades ("mild" 1, "moderate"
2, "severe" 3, "critical" 4; "exertional" 1, "at rest" 3). A qualifier attaches to a
mention when it is written just before it, with only descriptive words between ("severe
calcific AS", "severely impaired LV systolic function"), or just after it in the same
clause ("AS - severe", "aortic stenosis, which is now severe", "LV function: severely
impaired", "chest pain at rest", "Mitral regurgitation | Grade: severe"). A range counts at
its worst end ("moderate to severe" is severe). A negated qualifier ("not severe",
"non-severe", "no longer severe") is reported as such, so that the screen can say the
mention was read and found below its threshold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from concord.screen.cues import phrase_alternation
from concord.screen.reading import fold_text
from concord.text.resource_file import read_resource_file

_BREAK_RE = re.compile(r"[.;!?](?=\s|$)|\n")
BEFORE_REACH = 70
AFTER_REACH = 70


class _ScaleIn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    grades: dict[str, float] = Field(min_length=1, description="Word -> grade")
    negators: list[str] = Field(default=[], description="Words that negate a qualifier")
    before: list[str] = Field(default=[], description="Words allowed between grade and mention")
    after: list[str] = Field(default=[], description="Words allowed between mention and grade")
    adverb_heads: list[str] = Field(
        default=[],
        description="An adverb grade ('severely') counts only before one of these words "
        "('severely impaired', not 'severely dilated')",
    )


class _QualifiersFileIn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    version: str
    description: str = ""
    scales: dict[str, _ScaleIn]


@dataclass(frozen=True)
class Grade:
    """A qualifier read for a mention: its grade range and where it is written."""

    low: float
    high: float
    start: int
    end: int
    written: str
    negated: bool


class Scale:
    def __init__(self, name: str, spec: _ScaleIn) -> None:
        self.name = name
        self._grades = {" ".join(fold_text(k).lower().split()): v for k, v in spec.grades.items()}
        grade = phrase_alternation(list(spec.grades))
        negator = phrase_alternation(spec.negators) or r"(?!x)x"
        phrase = (
            rf"(?P<neg>(?:{negator})[\s\-]+)?(?P<g1>{grade})"
            rf"(?:\s*(?:[-–]?\s*to\s*[-–]?|-|–|/|or|->)\s*(?P<g2>{grade}))?"
        )
        heads = phrase_alternation(spec.adverb_heads)
        self._adverb_ok = (
            re.compile(rf"\s*(?:and\s+|,\s*)?(?:{heads})(?![A-Za-z0-9])", re.IGNORECASE)
            if heads
            else None
        )
        # punctuation between the grade and the mention is read by the separators around
        # the words; as a "word" too it would let the regex try every split of a run of
        # dashes or empty table cells (exponential: "| AS | -- | -- | ..." took 31 s)
        before = phrase_alternation(_words(spec.before)) or r"(?!x)x"
        after = phrase_alternation(_words(spec.after)) or r"(?!x)x"
        self._before_re = re.compile(
            rf"(?<![A-Za-z0-9]){phrase}(?:(?:[\s,]+|(?<=[,\-]))(?:{before}))*[\s,\-]*$",
            re.IGNORECASE,
        )
        self._after_re = re.compile(  # a table's cell bar too: "MR | Grade: severe"
            rf"(?:[\s,:(|\-–]*(?<![A-Za-z0-9])(?:{after})(?![A-Za-z0-9]))*[\s,:(|\-–]*"
            rf"(?<![A-Za-z0-9]){phrase}(?![A-Za-z0-9])",
            re.IGNORECASE,
        )

    def grade(self, text: str, start: int, end: int) -> Grade | None:
        """The worst qualifier of text[start:end] in this scale, or None."""
        found: list[Grade] = []
        left = max(0, start - BEFORE_REACH)
        for m in _BREAK_RE.finditer(text, left, start):
            left = m.end()
        before = self._before_re.search(text, left, start)
        if before is not None and self._adverb_fits(before):
            found.append(self._read(before))
        right_match = _BREAK_RE.search(text, end, min(len(text), end + AFTER_REACH))
        right = right_match.start() if right_match else min(len(text), end + AFTER_REACH)
        after = self._after_re.match(text, end, right)
        if after is not None and self._adverb_fits(after):
            found.append(self._read(after))
        if not found:
            return None
        return max(found, key=lambda g: (not g.negated, g.high))

    def _adverb_fits(self, m: re.Match[str]) -> bool:
        """'severely impaired' attaches; 'severely dilated' does not."""
        last = "g2" if m.group("g2") else "g1"
        word = m.group(last).lower()
        if not word.endswith("ly") or self._adverb_ok is None:
            return True
        return self._adverb_ok.match(m.string, m.end(last)) is not None

    def _read(self, m: re.Match[str]) -> Grade:
        first = self._grades[" ".join(m.group("g1").lower().split())]
        second = self._grades[" ".join(m.group("g2").lower().split())] if m.group("g2") else first
        start = m.start("neg") if m.group("neg") else m.start("g1")
        end = m.end("g2") if m.group("g2") else m.end("g1")
        return Grade(
            low=min(first, second),
            high=max(first, second),
            start=start,
            end=end,
            written=m.string[start:end],
            negated=bool(m.group("neg")),
        )


def _words(listed: list[str]) -> list[str]:
    """The entries with a letter or digit in them."""
    return [w for w in listed if any(c.isalnum() for c in w)]


def load_scales(path: Path) -> dict[str, Scale]:
    parsed = read_resource_file(path, _QualifiersFileIn, "qualifiers file")
    return {name: Scale(name, spec) for name, spec in parsed.scales.items()}
