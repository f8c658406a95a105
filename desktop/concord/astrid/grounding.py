"""Where in the context an answer sentence is grounded: a span, found by code.

The judge only says grounded or not; to show the reviewer *where*, each answer sentence is
aligned to the context chunks with rapidfuzz's partial-ratio alignment, and the best span
above `GROUNDING_MIN_SCORE` is kept as (chunk, start, end, score), with
`context[chunk][start:end]` the highlighted text. A paraphrase may align weakly or not at
all: no span is shown then, and the judge's verdict stands on its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from rapidfuzz import fuzz

GROUNDING_MIN_SCORE = 60.0
"""rapidfuzz partial_ratio (0-100) below which no span is highlighted."""
MIN_SENTENCE_CHARS = 12
"""Very short sentences ("Yes.") align anywhere; they get no span."""


@dataclass(frozen=True)
class GroundingSpan:
    chunk: int
    start: int
    end: int
    score: float


def _snap(chunk: str, start: int, end: int) -> tuple[int, int]:
    """Trim a character span to start and end on a word, widened to whole words."""
    while start < end and not chunk[start].isalnum():
        start += 1
    while start > 0 and chunk[start - 1].isalnum():
        start -= 1
    while end > start and not chunk[end - 1].isalnum():
        end -= 1
    while end < len(chunk) and chunk[end].isalnum():
        end += 1
    return start, end


def align_sentence(sentence: str, chunks: tuple[str, ...] | list[str]) -> GroundingSpan | None:
    text = " ".join(sentence.split()).lower()
    if len(text) < MIN_SENTENCE_CHARS:
        return None
    best: GroundingSpan | None = None
    for index, chunk in enumerate(chunks):
        lowered = chunk.lower()
        haystack = lowered if len(lowered) == len(chunk) else chunk  # keep offsets valid
        found = fuzz.partial_ratio_alignment(text, haystack, score_cutoff=GROUNDING_MIN_SCORE)
        if found is None or found.dest_end <= found.dest_start:
            continue
        if best is None or found.score > best.score:
            start, end = _snap(chunk, found.dest_start, found.dest_end)
            best = GroundingSpan(index, start, end, round(found.score, 1))
    return best
