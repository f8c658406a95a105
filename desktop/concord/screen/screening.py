"""One screening of one record: its prepared documents, its clock and the readers the rules
share. Built by `RecordScreen`; read by the rule evaluators."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from concord.screen.context import HISTORICAL_DAYS, ContextReader, HistoryPolicy, Situation
from concord.screen.dates import RecordClock
from concord.screen.document import ReadDocument
from concord.screen.injection import instruction_like
from concord.screen.lexicon import Lexicon, Mention
from concord.screen.qualifiers import Scale
from concord.screen.values import ValueReader


@dataclass
class Screening:
    documents: tuple[ReadDocument, ...]
    clock: RecordClock
    lexicon: Lexicon
    context: ContextReader
    values: ValueReader
    scales: dict[str, Scale]
    _injected: dict[tuple[int, int], bool] = field(default_factory=dict, compare=False)

    def mentions(self, concepts: list[str]) -> Iterator[tuple[ReadDocument, Mention]]:
        for d in self.documents:
            for m in d.of(concepts):
                yield d, m

    def situation(
        self,
        mention: Mention,
        history: HistoryPolicy,
        resolved_by: frozenset[str] = frozenset(),
        window_days: int | None = None,
    ) -> Situation:
        intervention = any(
            self.lexicon.concepts[cid].intervention
            for cid in mention.concepts
            if cid in self.lexicon.concepts
        )
        return Situation(
            intervention=intervention,
            history=history,
            reference=self.clock.reference,
            resolved_by=resolved_by,
            window_days=window_days or HISTORICAL_DAYS,
            event=window_days is not None,
        )

    def injected(self, d: ReadDocument, start: int, end: int) -> bool:
        """Whether read-text span [start, end) of `d` lies on a line of instruction-like or
        forged text (`concord.screen.injection`): such a line may not
        silence a finding (a forged "L2: K+ 4.1 (repeat)" does not supersede a real 6.4).
        Only the lines asked about are read, once each."""
        own_start, _ = d.span(start, end)
        text = d.doc.text
        line_start = text.rfind("\n", 0, own_start) + 1
        line_end = text.find("\n", own_start)
        line = text[line_start : len(text) if line_end < 0 else line_end]
        key = (d.index, line_start)
        if key not in self._injected:
            self._injected[key] = instruction_like(line)
        return self._injected[key]
