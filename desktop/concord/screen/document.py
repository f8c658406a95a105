"""One source document prepared for the screen: its read text, mentions, sections, lines.

Everything the rules look at is computed once per document and indexed, so that each rule
looks only at a bounded neighbourhood of each mention: the cost of screening grows with the
length of the record, not with its square.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

from concord.domain.record import SourceDocument
from concord.screen.dates import entry_dates
from concord.screen.lexicon import Mention
from concord.screen.reading import ReadingText
from concord.screen.sections import SectionIndex

_CELL_SPLIT = re.compile(r"\t+|\s*\|\s*|[ ]{2,}")
SENTENCE_REACH = 300  # characters searched each side for a sentence's end
_SENTENCE_END_RE = re.compile(r"[.!?](?=\s|$)|\n(?![ \t]*[a-z])|\n[ \t]*\n")
_LINE_RE = re.compile(r"\n")
ENTRY_LINE = 140  # a line this long or shorter is one entry of a list; longer is prose
_ENTRY_SENTENCE_RE = re.compile(r"(?<![A-Z])(?<!\b(?:Dr|Mr|Ms|vs|no|No))[.!?](?=\s+[A-Z])")
_ENTRY_CUT_RE = re.compile(r"[;](?=\s|$)|\s(?:and|but|whereas|while)\s|,\s*(?:then|now)\s")


@dataclass
class ReadDocument:
    """A document as the screen reads it. Offsets are in `text` (the read text); `span`
    maps them back to the document's own text."""

    doc: SourceDocument
    index: int  # position in the record
    read: ReadingText
    mentions: list[Mention]
    sections: SectionIndex
    written: date | None  # the document's own date, if it states one
    by_concept: dict[str, list[Mention]] = field(default_factory=dict)
    _starts: list[int] = field(default_factory=list)
    _line_starts: list[int] = field(default_factory=list)
    _cells: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    _entries: list[tuple[int, date]] | None = None
    memo: dict[object, object] = field(default_factory=dict)  # readers' per-document caches

    def __post_init__(self) -> None:
        index: dict[str, list[Mention]] = defaultdict(list)
        for mention in self.mentions:
            for cid in mention.concepts:
                index[cid].append(mention)
        self.by_concept = dict(index)
        self._starts = [m.start for m in self.mentions]
        self._line_starts = [0] + [m.end() for m in _LINE_RE.finditer(self.read.text)]

    @property
    def text(self) -> str:
        return self.read.text

    @property
    def source_id(self) -> str:
        return self.doc.source_id

    def span(self, start: int, end: int) -> tuple[int, int]:
        """A span of the read text as a span of the document's own text."""
        return self.read.span(start, end)

    def of(self, concepts: Sequence[str]) -> list[Mention]:
        """Mentions naming any of `concepts`, in order, each once."""
        if len(concepts) == 1:
            return self.by_concept.get(concepts[0], [])
        seen: dict[tuple[int, int], Mention] = {}
        for cid in concepts:
            for mention in self.by_concept.get(cid, ()):
                seen.setdefault((mention.start, mention.end), mention)
        return [seen[key] for key in sorted(seen)]

    def starting_in(self, start: int, end: int) -> list[Mention]:
        """Mentions whose start lies in [start, end), by bisection."""
        return self.mentions[bisect_left(self._starts, start) : bisect_left(self._starts, end)]

    def line_bounds(self, pos: int) -> tuple[int, int]:
        """[start, end) of the line holding `pos` (the end excludes the line feed)."""
        i = bisect_right(self._line_starts, pos) - 1
        start = self._line_starts[max(0, i)]
        end = self._line_starts[i + 1] - 1 if i + 1 < len(self._line_starts) else len(self.text)
        return start, end

    def date_at(self, pos: int) -> date | None:
        """The date of the entry holding `pos` in a running record (a line that starts with a
        date opens an entry), else the document's own date."""
        if self._entries is None:
            self._entries = entry_dates(self.text)
        i = bisect_right(self._entries, (pos, date.max)) - 1
        return self._entries[i][1] if i >= 0 else self.written

    def cells(self, line_start: int, line_end: int) -> list[tuple[int, int]]:
        """The cells of a line (tabs, pipes, two or more spaces), computed once per line."""
        found = self._cells.get(line_start)
        if found is None:
            found = split_cells(self.text, line_start, line_end)
            self._cells[line_start] = found
        return found

    def line_number(self, pos: int) -> int:
        return bisect_right(self._line_starts, pos) - 1

    def line_at(self, number: int) -> tuple[int, int] | None:
        if not 0 <= number < len(self._line_starts):
            return None
        start = self._line_starts[number]
        end = (
            self._line_starts[number + 1] - 1
            if number + 1 < len(self._line_starts)
            else len(self.text)
        )
        return start, end

    def sentence_bounds(self, start: int, end: int, reach: int = SENTENCE_REACH) -> tuple[int, int]:
        """The sentence around text[start:end] (a wrapped line continues it), at most `reach`
        characters each side."""
        text = self.text
        left = max(0, start - reach)
        for m in _SENTENCE_END_RE.finditer(text, left, start):
            left = m.end()
        right_match = _SENTENCE_END_RE.search(text, end, min(len(text), end + reach))
        right = right_match.start() if right_match else min(len(text), end + reach)
        return left, right

    def entry_bounds(self, start: int, end: int) -> tuple[int, int]:
        """The entry a span belongs to: its line when the line is a list entry or a table row
        (at most ENTRY_LINE characters, or cells), else its clause of a sentence (cut at a
        semicolon, and at "and", "but", "whereas" between clauses)."""
        line_start, line_end = self.line_bounds(start)
        if line_end - line_start <= ENTRY_LINE or len(self.cells(line_start, line_end)) > 1:
            left, right = line_start, max(line_end, min(end, len(self.text)))
            for stop in _ENTRY_SENTENCE_RE.finditer(self.text, left, start):
                left = stop.end()  # "Medicines: nil regular.  Ibuprofen occasionally."
            after = _ENTRY_SENTENCE_RE.search(self.text, end, right)
            return left, after.start() + 1 if after is not None else right
        left, right = self.sentence_bounds(start, end)
        for cut in _ENTRY_CUT_RE.finditer(self.text, left, start):
            left = cut.end()
        after = _ENTRY_CUT_RE.search(self.text, end, right)
        return left, after.start() if after is not None else right

    def item_bounds(self, start: int, end: int) -> tuple[int, int]:
        """The item of a list entry a span belongs to: its entry (`entry_bounds`) cut at the
        semicolons that part one item from the next ("peanut - anaphylaxis; penicillin -
        rash")."""
        left, right = self.entry_bounds(start, end)
        cut = self.text.rfind(";", left, start)
        after = self.text.find(";", end, right)
        return (cut + 1 if cut >= 0 else left), (after if after >= 0 else right)

    def paragraph_bounds(self, start: int, end: int, reach: int = 600) -> tuple[int, int]:
        """The paragraph (between blank lines) around a span, at most `reach` each side."""
        text = self.text
        left = text.rfind("\n\n", max(0, start - reach), start)
        left = max(0, start - reach) if left < 0 else left + 2
        right = text.find("\n\n", end, min(len(text), end + reach))
        right = min(len(text), end + reach) if right < 0 else right
        return left, right


def split_cells(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The non-empty cells of text[start:end], split on tabs, pipes and 2+ spaces."""
    cells: list[tuple[int, int]] = []
    pos = start
    for m in _CELL_SPLIT.finditer(text, start, end):
        if text[pos : m.start()].strip():
            cells.append(_trim(text, pos, m.start()))
        pos = m.end()
    if text[pos:end].strip():
        cells.append(_trim(text, pos, end))
    return cells


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
