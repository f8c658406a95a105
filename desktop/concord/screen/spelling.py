"""The screen's spelling file (`resources/lexicon/spelling.json`): which words a typing slip
is corrected to (the lexicon's own words) and which real words are never corrected."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from concord.screen.lexicon import Lexicon
from concord.screen.reading import SpellingVocabulary
from concord.text.resource_file import read_resource_file


class _SpellingIn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    version: str
    description: str = ""
    min_length: int = Field(ge=5, description="Shorter words are never corrected")
    keep: list[str] = Field(default=[], description="Real words one slip from a lexicon word")
    extra_words: list[str] = Field(default=[], description="Words corrected to, besides terms'")


def read_spelling(
    path: Path, lexicon: Lexicon, cue_words: Iterable[str] = ()
) -> SpellingVocabulary:
    """The spelling vocabulary: the lexicon's words, corrected to; the file's keep list and
    `cue_words` (the context file's words: "completed" is no slip for "complete"), never
    corrected."""
    parsed = read_resource_file(path, _SpellingIn, "spelling file")
    return SpellingVocabulary(
        lexicon.vocabulary() | {w.lower() for w in parsed.extra_words},
        keep=[*parsed.keep, *cue_words],
        min_length=parsed.min_length,
        abbreviations=lexicon.abbreviation_forms(),
    )
