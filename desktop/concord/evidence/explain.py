"""The record text closest to a quote that is not the record's words, and what it changed.

Used only to explain a failure, never to grant verification. Tokens are compared in their
canonical form, so a diff never shows formatting. Strategy, linear in the document:
1. seeds: the quote's tokens vote, through the document's token positions, for where
   the quote would start; the best few starting points are kept;
2. around each, the edges are moved a few tokens to the fewest edits (rapidfuzz's
   Levenshtein distance, each token one symbol);
3. the best candidate is widened to whole words ("SpO2", not "2") and diffed word by word.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from rapidfuzz.distance import Levenshtein

from concord.evidence.canonical import TokenText

EXPLAIN_MIN_SIMILARITY = 50.0
"""A record text is shown as the closest one only when at least this similar to the quote
(0..100: 100 * (1 - token edits / the longer token count)); below it the quote is
reported as not found."""
EXPLAIN_MIN_WORD_SHARE = 0.5
"""...or when it keeps at least this share of the quote's words (tokens with a letter):
"LVEF 30-35%" explains "LVEF 45%" although most of the tokens differ."""
MAX_EXPLAIN_TOKENS = 2000
"""Longer quotes are not explained (reported as not found)."""
MAX_SEED_POSITIONS = 400
"""Tokens more frequent than this in a document do not vote (unless nothing else can)."""
SEED_POSITIONS_READ = MAX_SEED_POSITIONS * 4
"""At most this many positions of a token are read."""
MAX_DIAGONALS = 6
"""Candidate starting points refined per document."""
EDGE_SLACK = 3
"""How far (tokens) the start of a candidate may move from its seed; the end may move
this plus a quarter of the quote's length."""
SOFT_PUNCTUATION = frozenset("()[]{},;:.!?\"'")
"""A quote may start or end against these without cutting a word ("(115-165)")."""


@dataclass(frozen=True)
class Change:
    """Record tokens [record_start, record_end) became quote tokens [quote_start, quote_end)."""

    record_start: int
    record_end: int
    quote_start: int
    quote_end: int


@dataclass(frozen=True)
class Nearest:
    """The closest record text: tokens start..end-1 of the document, its similarity to
    the quote (0..100 over tokens), how many of the quote's words it keeps, and the
    changes the quote made to it."""

    start: int
    end: int
    similarity: float
    words: int
    changes: tuple[Change, ...]


def _inside_word(tt: TokenText, index: int) -> bool:
    """Whether tokens index-1 and `index` are parts of one word."""
    return (
        tt.glued(index)
        and tt.token(index - 1) not in SOFT_PUNCTUATION
        and tt.token(index) not in SOFT_PUNCTUATION
    )


def cuts_word(tt: TokenText, start: int, end: int) -> bool:
    """Whether tokens start..end-1 begin or end inside a word ("2" of "SpO2", "mmol" of
    "mmol/L", "-19" of "COVID-19")."""
    return _inside_word(tt, start) or (end < len(tt) and _inside_word(tt, end))


def _whole_words(tt: TokenText, start: int, end: int) -> tuple[int, int]:
    while start > 0 and _inside_word(tt, start):
        start -= 1
    while end < len(tt) and _inside_word(tt, end):
        end += 1
    return start, end


class _Symbols:
    """Tokens as single characters, so rapidfuzz compares token sequences."""

    def __init__(self) -> None:
        self._codes: dict[str, str] = {}

    def __call__(self, tokens: list[str]) -> str:
        out = []
        for token in tokens:
            code = self._codes.get(token)
            if code is None:
                code = chr(0xF0000 + len(self._codes))
                self._codes[token] = code
            out.append(code)
        return "".join(out)


def _diagonals(positions: dict[str, list[int]], quote: list[str]) -> list[int]:
    """Up to MAX_DIAGONALS token positions where the quote would start, by how many of its
    tokens agree (each token votes for position - its offset in the quote), then by how rare
    the agreeing tokens are ("ASA 3" before the many "2"s for "ASA 2")."""
    seeds = sorted(
        (len(positions[token]), offset, token)
        for offset, token in enumerate(quote)
        if token in positions
    )
    if not seeds:
        return []
    usable = [s for s in seeds if s[0] <= MAX_SEED_POSITIONS] or seeds[:2]
    votes: defaultdict[int, set[int]] = defaultdict(set)
    for _, offset, token in usable:
        for position in positions[token][:SEED_POSITIONS_READ]:
            votes[position - offset].add(offset)

    def rarity(offsets: set[int]) -> float:
        return sum(1 / len(positions[quote[k]]) for k in offsets)

    kept: list[int] = []
    for start, _ in sorted(votes.items(), key=lambda kv: (-len(kv[1]), -rarity(kv[1]), kv[0])):
        if all(abs(start - other) > EDGE_SLACK for other in kept):  # refining covers it
            kept.append(start)
            if len(kept) == MAX_DIAGONALS:
                break
    return kept


def _around(tt: TokenText, symbols: _Symbols, query: str, diagonal: int) -> tuple[int, int]:
    """The token range near [diagonal, diagonal + len(query)) with the fewest edits against
    the query; ties go to a length closer to the query's, then to the seed's edges."""
    stretch = EDGE_SLACK + len(query) // 4
    lo = max(0, diagonal - EDGE_SLACK)
    hi = min(len(tt), diagonal + len(query) + stretch)
    window = symbols(tt.tokens(lo, hi))
    seed_start, seed_end = diagonal - lo, diagonal - lo + len(query)
    spans = [
        (start, end)
        for start in range(0, min(len(window), seed_start + EDGE_SLACK + 1))
        for end in range(max(start + 1, seed_end - stretch), len(window) + 1)
    ]
    if not spans:
        return lo, lo
    distances = [Levenshtein.distance(query, window[a:b]) for a, b in spans]
    best = min(
        range(len(spans)),
        key=lambda k: (
            distances[k],
            abs(spans[k][1] - spans[k][0] - len(query)),
            abs(spans[k][0] - seed_start) + abs(spans[k][1] - seed_end),
        ),
    )
    return lo + spans[best][0], lo + spans[best][1]


def _changes(record: str, quote: str) -> tuple[Change, ...]:
    """Runs of differences turning the record tokens into the quote tokens."""
    changes: list[Change] = []
    for op in Levenshtein.opcodes(record, quote):
        if op.tag == "equal":
            continue
        last = changes[-1] if changes else None
        if last and last.record_end == op.src_start and last.quote_end == op.dest_start:
            changes[-1] = Change(last.record_start, op.src_end, last.quote_start, op.dest_end)
        else:
            changes.append(Change(op.src_start, op.src_end, op.dest_start, op.dest_end))
    return tuple(changes)


def _matched_words(record: str, quote: str, quote_tokens: list[str]) -> int:
    """How many of the quote's words (tokens with a letter) the record text keeps."""
    return sum(
        any(c.isalpha() for c in quote_tokens[k])
        for op in Levenshtein.opcodes(record, quote)
        if op.tag == "equal"
        for k in range(op.dest_start, op.dest_end)
    )


def nearest(tt: TokenText, positions: dict[str, list[int]], quote: list[str]) -> Nearest | None:
    """The record text of `tt` closest to the quote's tokens, or None when nothing is
    similar enough (EXPLAIN_MIN_SIMILARITY, EXPLAIN_MIN_WORD_SHARE). Between equally
    similar texts, the one keeping more of the quote's words wins ("Platelets 450" over
    "gradient 45" for "Platelets 45")."""
    if not quote or len(quote) > MAX_EXPLAIN_TOKENS:
        return None
    symbols = _Symbols()
    query = symbols(quote)
    best: Nearest | None = None
    for diagonal in _diagonals(positions, quote):
        start, end = _whole_words(tt, *_around(tt, symbols, query, diagonal))
        if start >= end:
            continue
        record = symbols(tt.tokens(start, end))
        similarity = 100.0 * Levenshtein.normalized_similarity(query, record)
        found = Nearest(
            start, end, similarity, _matched_words(record, query, quote), _changes(record, query)
        )
        if best is None or (found.similarity, found.words) > (best.similarity, best.words):
            best = found
    if best is None:
        return None
    quote_words = sum(any(c.isalpha() for c in token) for token in quote)
    keeps_words = quote_words > 0 and best.words >= quote_words * EXPLAIN_MIN_WORD_SHARE
    if best.similarity < EXPLAIN_MIN_SIMILARITY and not keeps_words:
        return None
    return best
