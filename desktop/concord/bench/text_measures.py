"""Measurements without the model: evidence alignment and the record screen (throughput,
and how its cost grows with the length of the record)."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from concord.domain.gate import GateStatus
from concord.domain.record import Record
from concord.evidence.align import align_extract
from concord.evidence.record_index import record_index
from concord.screen.record_screen import RecordScreen


@dataclass(frozen=True)
class AlignmentResult:
    extracts: int
    seconds: float
    record_chars: int
    index_seconds: float  # of `seconds`, building the record's search index
    statuses: dict[str, int]

    @property
    def per_second(self) -> float | None:
        return self.extracts / self.seconds if self.seconds > 0 else None


def measure_alignment(record: Record, extracts: Sequence[str]) -> AlignmentResult:
    """Align every extract to `record`, the record's search index built inside the timing
    (a run builds it once per record)."""
    started = time.perf_counter()
    record_index(record)
    index_seconds = time.perf_counter() - started
    statuses = Counter(align_extract(record, text).status.value for text in extracts)
    seconds = time.perf_counter() - started
    return AlignmentResult(
        extracts=len(extracts),
        seconds=seconds,
        record_chars=sum(len(d.text) for d in record.documents),
        index_seconds=index_seconds,
        statuses=dict(statuses),
    )


@dataclass(frozen=True)
class ScreenResult:
    records: int
    seconds: float
    gates_triggered: int

    @property
    def per_second(self) -> float | None:
        return self.records / self.seconds if self.seconds > 0 else None


def measure_screen(
    screen: RecordScreen, records: Sequence[Record], min_seconds: float, min_rounds: int = 1
) -> ScreenResult:
    """Screen `records` round after round until `min_seconds` have passed."""
    if not records:
        raise ValueError("no records to screen")
    started = time.perf_counter()
    rounds = triggered = 0
    while rounds < min_rounds or time.perf_counter() - started < min_seconds:
        for record in records:
            hits = screen.screen(record)
            triggered += sum(h.status == GateStatus.TRIGGERED for h in hits)
        rounds += 1
    return ScreenResult(
        records=rounds * len(records),
        seconds=time.perf_counter() - started,
        gates_triggered=triggered // rounds,
    )


@dataclass(frozen=True)
class ScalingResult:
    """Screening time of a base record and of one `factor` times longer (CPU seconds, best
    of the runs made)."""

    factor: int
    base_lines: int
    long_lines: int
    base_seconds: float
    long_seconds: float

    @property
    def ratio(self) -> float | None:
        return self.long_seconds / self.base_seconds if self.base_seconds > 0 else None


def _best_seconds(screen: RecordScreen, record: Record, runs: int) -> float:
    best = float("inf")
    for _ in range(max(1, runs)):
        started = time.process_time()
        screen.screen(record)
        best = min(best, time.process_time() - started)
    return best


def measure_screen_scaling(
    screen: RecordScreen, base: Record, longer: Record, factor: int, runs: int = 3
) -> ScalingResult:
    """Time the screen on `base` and on `longer` (`factor` times its length): a linear
    screen takes about `factor` times as long, a quadratic one `factor`² times."""
    screen.screen(base)  # warm caches (spelling memo, compiled patterns) before timing
    return ScalingResult(
        factor=factor,
        base_lines=len(base.lines),
        long_lines=len(longer.lines),
        base_seconds=_best_seconds(screen, base, runs),
        long_seconds=_best_seconds(screen, longer, max(1, runs - 1)),
    )
