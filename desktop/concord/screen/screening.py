"""One screening of one record: its prepared documents, its clock and the readers the rules
share. Built by `RecordScreen`; read by the rule evaluators."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from concord.domain.record import Record
from concord.evidence.injection import find_injections
from concord.screen.context import ContextReader, HistoryPolicy, Situation
from concord.screen.dates import RecordClock
from concord.screen.document import ReadDocument
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
    _injected: dict[str, list[tuple[int, int]]] | None = field(default=None, compare=False)

    def mentions(self, concepts: list[str]) -> Iterator[tuple[ReadDocument, Mention]]:
        for d in self.documents:
            for m in d.of(concepts):
                yield d, m

    def situation(
        self,
        mention: Mention,
        history: HistoryPolicy,
        resolved_by: frozenset[str] = frozenset(),
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
        )

    def injected(self, d: ReadDocument, start: int, end: int) -> bool:
        """Whether read-text span [start, end) of `d` lies on a line of instruction-like or
        forged text (`concord.evidence.injection`): such a line may not silence a finding
        (a forged "repeat K+ 4.1" does not supersede a real 6.4). Read once, when first
        asked."""
        if self._injected is None:
            record = Record(name="screen", documents=tuple(x.doc for x in self.documents))
            self._injected = {}
            for span in find_injections(record):
                self._injected.setdefault(span.source_id, []).append((span.start, span.end))
        own_start, own_end = d.span(start, end)
        return any(a <= own_start and own_end <= b for a, b in self._injected.get(d.source_id, ()))
