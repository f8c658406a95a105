"""One screening of one record: its prepared documents, its clock and the readers the rules
share. Built by `RecordScreen`; read by the rule evaluators."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from concord.screen.context import ContextReader, HistoryPolicy, Situation
from concord.screen.dates import RecordClock
from concord.screen.document import ReadDocument
from concord.screen.lexicon import Lexicon, Mention
from concord.screen.qualifiers import Scale
from concord.screen.values import ValueReader


@dataclass(frozen=True)
class Screening:
    documents: tuple[ReadDocument, ...]
    clock: RecordClock
    lexicon: Lexicon
    context: ContextReader
    values: ValueReader
    scales: dict[str, Scale]

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
