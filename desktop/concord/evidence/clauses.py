"""Clauses, lines and table rows of a tokenised document (no cue words here).

A clause ends at sentence punctuation (. ! ? ;), a blank line or page break, a list item,
and a line break that does not continue the sentence. Which line breaks continue a sentence
and which lines are table rows is the layout model's (`concord.text.layout`, the one the
screen reads with): a break continues the sentence when it is a soft wrap of prose (a
paragraph re-wrapped at a width: the next line in lower case, the line before ending on a
word a sentence cannot end on, or a long line of prose at the paragraph's width), never at
a table row, list item, heading or "Label:" field. What governs a quote also reaches on
where a line goes on in lower case or after such a word even if the layout model keeps the
break ("Chest pain:" / "none"), unless the next line opens an entry of its own; what
follows a quote reaches back across a line break only there (a line at the margin followed
by a capitalised line may be two statements of a list). A line is a table row when it
keeps a column gap (`TokenText`'s GAP flag, set only on the layout model's rows).

Everything here works on token indices of a `TokenText`; scans are bounded, so the cost
of a question does not grow with the document.
"""

from __future__ import annotations

from concord.evidence.canonical import BLANK, BULLET, GAP, LOWER, NEWLINE, TokenText
from concord.text.layout import CONTINUING_WORDS, opens_entry

CLAUSE_ENDS = frozenset(".!?;")
ABBREVIATIONS = frozenset("dr mr mrs ms prof approx eg ie vs ref tel fig".split())  # noqa: SIM905
"""Words whose full stop does not end the sentence."""
NUMBER_WORDS = frozenset({"no", "nos"})
"""'No.' before a number is "number", not the end of a sentence."""
MAX_DOTTED = 12
"""Tokens looked at each way along a dotted abbreviation."""
MAX_LINE_SCAN = 400
"""Tokens looked at each way to find a line's edges; a longer line is not a table row."""
MAX_CLAUSE_TOKENS = 400
"""Tokens a clause may extend each way from a quote when it is widened to clause edges."""


def line_start(tt: TokenText, index: int) -> int:
    """First token of the line holding token `index` (bounded by MAX_LINE_SCAN)."""
    low = max(0, index - MAX_LINE_SCAN)
    while index > low and not tt.flags[index] & NEWLINE:
        index -= 1
    return index


def line_end(tt: TokenText, index: int) -> int:
    """One past the last token of the line holding token `index` (bounded)."""
    high = min(len(tt), index + MAX_LINE_SCAN)
    index += 1
    while index < high and not tt.flags[index] & NEWLINE:
        index += 1
    return index


def is_table_row(tt: TokenText, index: int) -> bool:
    """Whether the line holding token `index` has a column gap."""
    start, end = line_start(tt, index), line_end(tt, index)
    if end - start >= MAX_LINE_SCAN:
        return False
    return any(tt.flags[k] & GAP for k in range(start, end))


def boundary_before(tt: TokenText, index: int, trailing: bool = False) -> bool:
    """Whether a clause boundary lies between token index-1 and token `index`; `trailing`:
    for what follows a quote, where a line break goes on only as `_goes_on` says."""
    if index <= 0 or index >= len(tt):
        return True
    flags = tt.flags[index]
    if flags & (BLANK | BULLET):
        return True
    if tt.token(index - 1) in CLAUSE_ENDS and not _abbreviation(tt, index - 1):
        return True
    if not flags & NEWLINE:
        return False
    return not (_goes_on(tt, index) or (not trailing and index in tt.soft_wraps))


def _goes_on(tt: TokenText, index: int) -> bool:
    """Whether the line after the break before token `index` visibly goes on with the
    sentence: it starts in lower case or the line before ends on a word a sentence cannot
    end on ("Chest pain:" / "none", "Diagnosis: possible" / "pneumonia", "no history of" /
    "Diabetes"), and it opens no item, field or dated entry of its own and neither line is a
    table row."""
    if not (tt.flags[index] & LOWER or tt.token(index - 1) in CONTINUING_WORDS):
        return False
    if is_table_row(tt, index - 1) or is_table_row(tt, index):
        return False
    text = tt.cleaned.text
    at = tt.starts[index]
    end = text.find("\n", at)
    return not opens_entry(text[text.rfind("\n", 0, at) + 1 : len(text) if end < 0 else end])


def _abbreviation(tt: TokenText, stop: int) -> bool:
    """Whether the full stop at token `stop` ends an abbreviation ("Dr.", "approx.",
    "Hosp no. 4471", "p.r.n.") rather than a sentence."""
    if tt.token(stop) != "." or stop == 0 or not tt.glued(stop):
        return False
    word = tt.token(stop - 1)
    if word in ABBREVIATIONS or _dotted(tt, stop):
        return True
    if word not in NUMBER_WORDS:
        return False
    after = stop + 1  # the number: its first token, or one glued to it ("NG4471902")
    return any(
        any(c.isdigit() for c in tt.token(k))
        for k in (after, after + 1)
        if k < len(tt) and (k == after or tt.glued(k))
    )


def _dotted(tt: TokenText, stop: int) -> bool:
    """Whether the full stop at token `stop` is one of a dotted abbreviation's ("p.r.n.",
    "b.i.d.", "q.6h.", "a.m.", "e.g."): in a run of tokens glued together, of full stops
    and pieces of at most two letters or digits, with at least two full stops."""
    low, high = stop, stop + 1
    while low > 0 and stop - low < MAX_DOTTED and tt.glued(low) and _dotted_piece(tt, low - 1):
        low -= 1
    while high < len(tt) and high - stop < MAX_DOTTED and tt.glued(high):
        if not _dotted_piece(tt, high):
            break
        high += 1
    dots = sum(tt.token(k).startswith(".") for k in range(low, high))
    return dots >= 2


def _dotted_piece(tt: TokenText, index: int) -> bool:
    """A full stop, one or two letters or digits, or both (".6" of "q.6h.")."""
    token = tt.token(index)
    piece = token[1:] if token.startswith(".") else token
    return len(piece) <= 2 and (not piece or piece.isalnum())


def clause_bounds(tt: TokenText, start: int, end: int) -> tuple[int, int]:
    """Tokens start..end-1 widened to whole clauses, ending punctuation included."""
    low = max(0, start - MAX_CLAUSE_TOKENS)
    while start > low and not boundary_before(tt, start):
        start -= 1
    high = min(len(tt), end + MAX_CLAUSE_TOKENS)
    while end < high and not boundary_before(tt, end):
        end += 1
    return start, end


def before_scope(tt: TokenText, start: int, words: int) -> int:
    """First token of what may govern tokens from `start` on: back to the clause start or a
    column gap, at most `words` words."""
    index, seen = start, 0
    while index > 0 and seen < words:
        if boundary_before(tt, index) or tt.flags[index] & GAP:
            break
        index -= 1
        seen += tt.is_word(index)
    return index


def after_scope(tt: TokenText, end: int, words: int) -> int:
    """One past the last token of what may govern tokens before `end`: on to the clause
    end (its punctuation included) across column gaps, at most `words` words. A line break
    is crossed only where the next line visibly goes on (`_goes_on`): a line that ran to
    the margin and a capitalised next line may also be two statements ("Seen in clinic
    today with her husband" / "Not on anticoagulants")."""
    index, seen = end, 0
    while index < len(tt) and seen < words and not boundary_before(tt, index, trailing=True):
        seen += tt.is_word(index)
        index += 1
    return index


def crosses_rows(tt: TokenText, start: int, end: int) -> bool:
    """Whether tokens start..end-1 run from one table row into another."""
    for index in range(start + 1, end):
        if tt.flags[index] & NEWLINE and (is_table_row(tt, index - 1) or is_table_row(tt, index)):
            return True
    return False


def whole_lines(tt: TokenText, start: int, end: int) -> bool:
    """Whether tokens start..end-1 begin at a line's start and end at a line's end."""
    starts_line = start == 0 or bool(tt.flags[start] & NEWLINE)
    ends_line = end >= len(tt) or bool(tt.flags[end] & NEWLINE)
    return starts_line and ends_line
