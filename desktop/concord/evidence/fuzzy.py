"""Fuzzy location of an extract in one document's normalised, case-folded text.

Strategy (fast first, exhaustive as a fallback):
1. seed windows: words of the extract vote for where it would start (word index of the
   document); the best few windows get a rapidfuzz partial alignment;
2. if no window yields an accepted match, a partial alignment over the whole text, repeated
   up to MAX_SCAN_ROUNDS times with earlier finds masked out.
Each alignment is refined by moving its edges a few characters to maximise fuzz.ratio, so
the span neither cuts a word short nor takes in the neighbour's first letters.
All offsets here are in the normalised text of the document.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from rapidfuzz import fuzz

from concord.evidence.record_index import DocumentIndex

FUZZY_THRESHOLD = 90.0
"""Minimum similarity (0..100, fuzz.ratio of extract vs aligned text) for FUZZY."""
FUZZY_MIN_CHARS = 8
"""Shorter extracts (after whitespace normalisation) can only be EXACT."""
CANDIDATE_MARGIN = 5.0
"""Partial alignments this far below the threshold are still refined (refining only helps)."""
EDGE_SLACK = 4
"""How far (characters) refinement may move each edge of an alignment."""
SEED_BUCKET = 32
MAX_SEED_WINDOWS = 4
MAX_SEED_POSITIONS = 400
MAX_SCAN_ROUNDS = 3
_WORD = re.compile(r"\w+")
_MASK = "\0"


@dataclass(frozen=True)
class FuzzyMatch:
    start: int
    end: int
    score: float


def refine(text: str, query: str, start: int, end: int) -> FuzzyMatch:
    """The span near text[start:end] (each edge moved by at most EDGE_SLACK, never starting
    or ending on a space) with the highest fuzz.ratio against `query`; ties keep the edges
    closest to the original ones."""
    while start < end and text[start] == " ":
        start += 1
    while end > start and text[end - 1] == " ":
        end -= 1
    best = FuzzyMatch(start, end, fuzz.ratio(query, text[start:end]))
    best_shift = 0
    for a in range(max(0, start - EDGE_SLACK), min(len(text), start + EDGE_SLACK + 1)):
        if text[a] == " ":
            continue
        for b in range(max(a + 1, end - EDGE_SLACK), min(len(text), end + EDGE_SLACK) + 1):
            if text[b - 1] == " ":
                continue
            score = fuzz.ratio(query, text[a:b])
            shift = abs(a - start) + abs(b - end)
            if score > best.score or (score == best.score and shift < best_shift):
                best, best_shift = FuzzyMatch(a, b, score), shift
    return best


def _align_in(text: str, query: str, lo: int, hi: int) -> FuzzyMatch | None:
    cutoff = FUZZY_THRESHOLD - CANDIDATE_MARGIN
    found = fuzz.partial_ratio_alignment(query, text[lo:hi], score_cutoff=cutoff)
    if found is None:
        return None
    match = refine(text, query, lo + found.dest_start, lo + found.dest_end)
    return match if match.score >= FUZZY_THRESHOLD else None


def seed_windows(index: DocumentIndex, query: str) -> list[tuple[int, int]]:
    """Up to MAX_SEED_WINDOWS (lo, hi) windows where the query's words cluster."""
    positions = index.word_positions
    seeds = [
        (len(positions[m.group()]), m.start(), m.group())
        for m in _WORD.finditer(query)
        if len(m.group()) >= 2 and m.group() in positions
    ]
    if not seeds:
        return []
    seeds.sort()
    usable = [s for s in seeds if s[0] <= MAX_SEED_POSITIONS] or seeds[:2]
    votes: defaultdict[int, set[int]] = defaultdict(set)
    for _, offset, word in usable:
        for position in positions[word][: MAX_SEED_POSITIONS * 4]:
            votes[(position - offset) // SEED_BUCKET].add(offset)
    ranked = sorted(votes.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:MAX_SEED_WINDOWS]
    slack = max(16, len(query) // 4)
    windows = sorted(
        (max(0, b * SEED_BUCKET - slack), b * SEED_BUCKET + SEED_BUCKET + len(query) + slack)
        for b, _ in ranked
    )
    merged: list[tuple[int, int]] = []
    for lo, hi in windows:
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return merged


def scan_matches(
    text: str, query: str, accept: Callable[[FuzzyMatch], bool], found: list[FuzzyMatch]
) -> list[FuzzyMatch]:
    """Full-text partial alignments of `query` in `text`, best first, each masked out before
    the next, up to MAX_SCAN_ROUNDS; appends to `found` and stops once one is accepted."""
    masked = text
    for _ in range(MAX_SCAN_ROUNDS):
        match = _align_in(masked, query, 0, len(masked))
        if match is None:
            break
        match = FuzzyMatch(match.start, match.end, fuzz.ratio(query, text[match.start : match.end]))
        if match.score >= FUZZY_THRESHOLD and match not in found:
            found.append(match)
            if accept(match):
                break
        masked = masked[: match.start] + _MASK * (match.end - match.start) + masked[match.end :]
    return found


def fuzzy_matches(
    index: DocumentIndex, query: str, accept: Callable[[FuzzyMatch], bool]
) -> list[FuzzyMatch]:
    """Matches of the case-folded `query` in the document's folded text scoring >=
    FUZZY_THRESHOLD. Stops as soon as one is accepted by `accept` (the caller's check of
    numbers and negation); the full scan runs only when the seed windows gave no accepted
    match."""
    text = index.folded
    found: list[FuzzyMatch] = []
    for lo, hi in seed_windows(index, query):
        match = _align_in(text, query, lo, hi)
        if match is not None and match not in found:
            found.append(match)
            if accept(match):
                return found
    return scan_matches(text, query, accept, found)
