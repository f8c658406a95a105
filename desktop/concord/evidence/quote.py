"""The quote an agent's citation stands for, taken from the record by code.

An agent names a record line and, optionally, a range of its words. The quote is that part
of the line widened to whole clauses (`concord.evidence.clauses`): back to where the
sentence begins, even on an earlier line, and on to where it ends, its full stop included.
A governing negation, laterality word or qualifier therefore stays inside the quote, and
the quote is always `text[start:end]` of the record, verbatim.
"""

from __future__ import annotations

import re

from concord.domain.record import Line, Record
from concord.evidence.clauses import clause_bounds
from concord.evidence.record_index import record_index

_WORD = re.compile(r"\S+")


def quote_span(record: Record, line: Line, words: tuple[int, int] | None = None) -> tuple[int, int]:
    """(start, end) in the line's document of the quote for `line`, words first..last
    (counted from 1, whitespace-separated; the whole line when None or out of range)."""
    found = list(_WORD.finditer(line.text))
    start, end = line.start, line.end
    if words is not None and found and 1 <= words[0] <= words[1] <= len(found):
        start = line.start + found[words[0] - 1].start()
        end = line.start + found[words[1] - 1].end()
    tt = record_index(record).documents[line.source_id].tokens
    first, last = tt.covering(start, end)
    if first >= last:
        return line.start, line.end  # nothing but layout (a bullet, a table rule)
    return tt.span(*clause_bounds(tt, first, last))
