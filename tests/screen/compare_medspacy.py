"""Measure medspaCy (ConText + clinical sectionizer) against the screen's own context rules.

Run on demand, in an environment where medspaCy is installed (it is not a dependency of
Concord; `pip install medspacy` pulls spaCy and downgrades numpy):

    python tests/screen/compare_medspacy.py

The same screen runs three times on the corpus (`tests/screen/corpus/`) and on the bench's
records; only the reading of context differs:

* ``hand-written``: `concord.screen.context.ContextReader` (what Concord ships);
* ``medspacy``: medspaCy decides negation, family, hypothetical and historical mentions
  (ConText's default rules) and sections (its sectionizer's "family_history",
  "past_medical_history");
* ``medspacy+extras``: the same, plus the screen's checklist-answer and planned-
  intervention rules, which ConText has no counterpart for.

Everything else (lexicon, values, series, targets, grades, dates) is the screen's own.
Printed per variant: positives found, hard negatives fired, distractors fired, start-up
time and records screened per second (CPU time, medspaCy run once per document).
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1])]  # the repository, for tests.* when run as a script

from concord import paths  # noqa: E402
from concord.bench.records import bench_record  # noqa: E402
from concord.domain.gate import GateStatus  # noqa: E402
from concord.records import load_record  # noqa: E402
from concord.screen.context import (  # noqa: E402
    ContextReader,
    HistoryPolicy,
    Reason,
    Situation,
    Verdict,
)
from concord.screen.cues import Cues  # noqa: E402
from concord.screen.document import ReadDocument  # noqa: E402
from concord.screen.record_screen import RecordScreen  # noqa: E402
from tests.screen.test_corpus import DISTRACTORS, ROWS, record_of  # noqa: E402


def load_medspacy() -> tuple[Any, float, float]:
    logging.disable(logging.CRITICAL)
    started = time.perf_counter()
    import medspacy  # type: ignore[import-not-found]
    from loguru import logger  # type: ignore[import-not-found]

    logger.remove()
    imported = time.perf_counter() - started
    started = time.perf_counter()
    nlp = medspacy.load(enable=["medspacy_pyrush", "medspacy_context", "medspacy_sectionizer"])
    return nlp, imported, time.perf_counter() - started


class MedspacyContext(ContextReader):
    """ConText and the sectionizer decide negation, family, hypothetical and history."""

    def __init__(self, cues: Cues, nlp: Any, *, extras: bool) -> None:
        super().__init__(cues)
        self.nlp = nlp
        self.extras = extras
        self.documents: dict[str, tuple[dict[tuple[int, int], Any], list[Any]]] = {}

    def _entities(self, d: ReadDocument) -> tuple[dict[tuple[int, int], Any], list[Any]]:
        """medspaCy run once per document, with every lexicon mention as a target."""
        if d.text not in self.documents:
            doc = self.nlp.make_doc(d.text)
            targets, last = [], -1
            for m in d.mentions:
                span = doc.char_span(m.start, m.end, label="TARGET", alignment_mode="expand")
                if span is not None and span.start >= last:
                    targets.append(span)
                    last = span.end
            doc.ents = tuple(targets)
            for _, pipe in self.nlp.pipeline:
                doc = pipe(doc)
            by_span = {(e.start_char, e.end_char): e for e in doc.ents}
            self.documents[d.text] = (by_span, list(doc.ents))
        return self.documents[d.text]

    def _entity(self, d: ReadDocument, start: int, end: int) -> Any:
        by_span, ordered = self._entities(d)
        if (start, end) in by_span:
            return by_span[(start, end)]
        return next((e for e in ordered if e.start_char <= end and start < e.end_char), None)

    def verdict(
        self, d: ReadDocument, start: int, end: int, situation: Situation
    ) -> Verdict | None:
        e = self._entity(d, start, end)
        extra = None
        if self.extras:
            extra = self.answered_no(d, end) or (
                self.planned(d, start, end, situation) if situation.intervention else None
            )
        if e is None:
            return extra
        section = e._.section_category or ""
        if e._.is_family or section == "family_history":
            return Verdict(Reason.FAMILY, "medspaCy")
        if e._.is_negated:
            return Verdict(Reason.NEGATED, "medspaCy")
        if e._.is_hypothetical:
            return Verdict(Reason.HYPOTHETICAL, "medspaCy")
        if extra is not None:
            return extra
        if situation.history is not HistoryPolicy.COUNTS and (
            e._.is_historical or section == "past_medical_history"
        ):
            return Verdict(Reason.HISTORY, "medspaCy")
        return None

    def value_verdict(self, d: ReadDocument, start: int, end: int) -> Verdict | None:
        e = self._entity(d, start, end)
        if e is None:
            return None
        if e._.is_family or (e._.section_category or "") == "family_history":
            return Verdict(Reason.FAMILY, "medspaCy")
        if e._.is_hypothetical:
            return Verdict(Reason.HYPOTHETICAL, "medspaCy")
        return None


def corpus_scores(screen: RecordScreen) -> dict[str, str]:
    found = positives = fired = negatives = 0
    for row in ROWS:
        if row["gate_id"] not in screen.definitions:
            continue  # a new gate's corpus, written before its rule
        status = "none"
        for hit in screen.screen(record_of(row["text"], header=row.get("header", True))):
            if hit.gate_id == row["gate_id"]:
                status = hit.status.value
        if row["expect"] == "triggered":
            positives += 1
            found += status == "triggered"
        else:
            negatives += 1
            fired += status == "triggered"
    distractors = sum(
        any(h.status is GateStatus.TRIGGERED for h in screen.screen(record_of(t)))
        for t in DISTRACTORS
    )
    return {
        "positives found": f"{found}/{positives}",
        "hard negatives fired": f"{fired}/{negatives}",
        "distractors fired": f"{distractors}/{len(DISTRACTORS)}",
    }


def records_per_second(screen: RecordScreen, seconds: float = 3.0) -> float:
    records = [bench_record(4096).record] + [
        load_record(p) for p in sorted((paths.resources_dir() / "demo").glob("*.json"))
    ]
    started, count = time.process_time(), 0
    while time.process_time() - started < seconds:
        for record in records:
            screen.screen(record)
            if isinstance(screen._context, MedspacyContext):
                screen._context.documents.clear()  # no reuse across screenings
            count += 1
    return count / (time.process_time() - started)


def main() -> None:
    started = time.perf_counter()
    hand = RecordScreen.load()
    load_seconds = time.perf_counter() - started
    nlp, imported, loaded = load_medspacy()
    variants = {"hand-written": hand}
    for name, extras in (("medspacy", False), ("medspacy+extras", True)):
        screen = RecordScreen.load()
        screen._context = MedspacyContext(screen.cues, nlp, extras=extras)
        variants[name] = screen
    print(
        f"start-up: screen {load_seconds:.2f} s; medspaCy import {imported:.2f} s + load "
        f"{loaded:.2f} s"
    )
    for name, screen in variants.items():
        scores = corpus_scores(screen)
        rate = records_per_second(screen)
        print(
            f"{name:18s} "
            + "  ".join(f"{k}: {v}" for k, v in scores.items())
            + f"  records/s: {rate:.1f}"
        )


if __name__ == "__main__":
    main()
