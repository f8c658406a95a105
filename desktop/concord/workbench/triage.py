"""How urgent each patient of the worklist is, and what is still to do.

Urgency is the worklist's default order, most urgent first:

1. a major red flag the record shows that every agent missed (mutual omission),
2. a major red flag the anaesthetist brief missed,
3. a run that failed (re-run it, or review it by hand),
4. a record not run yet with a major red flag (the screen reads it at import),
5. a case that needs review,
6. a case amended after it was signed (it must be signed again),
7. a record not run yet,
8. a reviewed case waiting for a signature,
9. a signed case.

Within one urgency, the earliest planned surgery first (none stated: last), then the longest
waiting. The first two come from the judges' verdicts and the fourth from the record screen,
so in blind mode (verdicts hidden) the order uses the case status alone. A case already
reviewed or signed is ordered by its status: a clinician has been through its findings. A
status this module does not know yet is "needs review": an unknown state is never sorted
out of sight.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from enum import IntEnum

from concord.domain import CaseStatus
from concord.workbench.red_flags import RedFlag


class Urgency(IntEnum):
    MISSED_BY_EVERY_AGENT = 1
    MISSED_MAJOR_GATE = 2
    RUN_FAILED = 3
    MAJOR_FLAG_NOT_RUN = 4
    NEEDS_REVIEW = 5
    AMENDED = 6
    NOT_RUN = 7
    REVIEWED = 8
    SIGNED = 9

    @property
    def title(self) -> str:
        return URGENCY_TITLES[self]

    @property
    def to_do(self) -> bool:
        return self < Urgency.REVIEWED


URGENCY_TITLES = {
    Urgency.MISSED_BY_EVERY_AGENT: "Missed by every agent",
    Urgency.MISSED_MAJOR_GATE: "Major red flag missed",
    Urgency.RUN_FAILED: "Run failed",
    Urgency.MAJOR_FLAG_NOT_RUN: "Major red flag, not run yet",
    Urgency.NEEDS_REVIEW: "Needs review",
    Urgency.AMENDED: "Amended, sign again",
    Urgency.NOT_RUN: "Not run yet",
    Urgency.REVIEWED: "Reviewed, to sign",
    Urgency.SIGNED: "Signed",
}
_BY_STATUS = {
    CaseStatus.NOT_RUN: Urgency.NOT_RUN,
    CaseStatus.RUNNING: Urgency.NOT_RUN,
    CaseStatus.RUN_FAILED: Urgency.RUN_FAILED,
    CaseStatus.NEEDS_REVIEW: Urgency.NEEDS_REVIEW,
    CaseStatus.AMENDED: Urgency.AMENDED,
    CaseStatus.REVIEWED: Urgency.REVIEWED,
    CaseStatus.SIGNED: Urgency.SIGNED,
}


def status_urgency(status: CaseStatus | None) -> Urgency:
    if status is None:
        return Urgency.NOT_RUN
    return _BY_STATUS.get(status, Urgency.NEEDS_REVIEW)


@dataclass(frozen=True)
class WorklistRow:
    """One patient record and the state of its latest case, as the worklist shows it."""

    record_id: str
    name: str  # the patient's name where the record gives it, else the record's name
    source_name: str  # the record's own name (often its file)
    imported_at: datetime
    case_id: str | None = None
    status: CaseStatus | None = None  # None: not run
    brief_quality: str | None = None  # worst grade of the AI briefs, not the patient's risk
    quality_capped: bool = False  # a missed major red flag lowered that grade
    red_flags: tuple[RedFlag, ...] = ()  # the gates the record screen fired, major first
    missed_by_every_agent: tuple[str, ...] = ()  # titles of the major mutual omissions
    missed_major: tuple[str, ...] = ()  # major gates the anaesthetist brief missed
    human_review: bool | None = None
    required_left: int = 0  # required judgements not decided yet
    date_of_birth: str | None = None  # as the record writes it
    record_number: str | None = None  # MRN / NHS / hospital number, as the record writes it
    operation: str | None = None  # the planned operation (the record's, else the case's)
    surgery_date: date | None = None  # the planned date of surgery the record states
    run_problem: str = ""  # why the last run failed, in words, and what to do
    screened: bool = True  # False: a record not run yet whose screen is still under way

    @property
    def major_flags(self) -> tuple[RedFlag, ...]:
        return tuple(f for f in self.red_flags if f.major)

    def urgency(self, *, blind: bool = False) -> Urgency:
        by_status = status_urgency(self.status)
        if blind:
            return by_status
        if by_status == Urgency.NOT_RUN and self.major_flags:
            return Urgency.MAJOR_FLAG_NOT_RUN
        if by_status not in (Urgency.NEEDS_REVIEW, Urgency.RUN_FAILED):
            return by_status
        if self.missed_by_every_agent:
            return Urgency.MISSED_BY_EVERY_AGENT
        if self.missed_major:
            return Urgency.MISSED_MAJOR_GATE
        return by_status

    def order_key(self, *, blind: bool = False) -> tuple[object, ...]:
        """Urgency, then the earliest planned surgery (none stated: last), then the longest
        waiting."""
        surgery = (self.surgery_date is None, self.surgery_date or date.max)
        return (self.urgency(blind=blind), *surgery, self.imported_at, self.record_id)

    def to_do(self, *, blind: bool = False) -> bool:
        return self.urgency(blind=blind).to_do


def triage_order(rows: Iterable[WorklistRow], *, blind: bool = False) -> list[WorklistRow]:
    """Most urgent first; within one urgency, the earliest surgery date, then the longest
    waiting (imported first)."""
    return sorted(rows, key=lambda r: r.order_key(blind=blind))


@dataclass(frozen=True)
class TriageCounts:
    total: int
    to_do: int
    by_urgency: dict[Urgency, int]

    def summary(self) -> str:
        """ "7 patients, 5 to do (missed by every agent 1 · needs review 4) · signed 2"."""
        if not self.total:
            return "No patients yet"
        head = f"{self.total} patient{'s' if self.total != 1 else ''}, {self.to_do} to do"
        counts = sorted(self.by_urgency.items())
        urgent = [f"{u.title.lower()} {n}" for u, n in counts if n and u.to_do]
        rest = "".join(f" · {u.title.lower()} {n}" for u, n in counts if n and not u.to_do)
        return head + (f" ({' · '.join(urgent)})" if urgent else "") + rest


def triage_counts(rows: Iterable[WorklistRow], *, blind: bool = False) -> TriageCounts:
    urgencies = Counter(r.urgency(blind=blind) for r in rows)
    total = sum(urgencies.values())
    to_do = sum(n for u, n in urgencies.items() if u.to_do)
    return TriageCounts(total, to_do, dict(urgencies))
