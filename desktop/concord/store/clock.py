"""Clocks that run backwards against the audit chain.

Order in Concord is the chain's (`seq`): which decision is in force, whether a signed PDF is
still current, what came before or after. Timestamps are what each writer's clock said, and a
clock can be wrong (set back, set ahead, a workstation out of step). Nothing is decided by
them; where a row's time is earlier than the time of the row before it in the chain, that is
recorded here and reported: by `concord audit verify` as a warning naming both rows, and on
the case (`concord show`, the case header in the app).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlite_utils import Database


@dataclass(frozen=True)
class ClockStep:
    """Row `seq` says `at`, earlier than row `before_seq` (`before_at`) before it."""

    seq: int
    at: str
    user: str
    action: str
    before_seq: int
    before_at: str

    @property
    def seconds_back(self) -> float:
        return (
            datetime.fromisoformat(self.before_at) - datetime.fromisoformat(self.at)
        ).total_seconds()

    def describe(self) -> str:
        return (
            f"clock ran backwards: seq {self.seq} ({self.action} by {self.user}) is stamped "
            f"{self.at}, {_span(self.seconds_back)} before seq {self.before_seq} ({self.before_at})"
            " that precedes it in the chain; order is the chain's"
        )

    def to_json(self) -> dict[str, object]:
        return {
            "seq": self.seq,
            "at": self.at,
            "user": self.user,
            "action": self.action,
            "before_seq": self.before_seq,
            "before_at": self.before_at,
            "seconds_back": self.seconds_back,
            "detail": self.describe(),
        }


def _span(seconds: float) -> str:
    if seconds >= 86400:
        return f"{seconds / 86400:.1f} days"
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 60:
        return f"{seconds / 60:.1f} min"
    return f"{seconds:.3f} s"


def backward_steps(rows: Iterable[dict[str, object]]) -> list[ClockStep]:
    """Each row (in chain order: seq, at, user, action) stamped earlier than the row before
    it. One pass; a clock set far ahead shows as one step back when the right clock resumes,
    a clock set back as one step back at its own row."""
    steps: list[ClockStep] = []
    previous: tuple[int, datetime, str] | None = None
    for row in rows:
        seq, at = int(str(row["seq"])), str(row["at"])
        moment = datetime.fromisoformat(at)
        if previous is not None and moment < previous[1]:
            steps.append(
                ClockStep(seq, at, str(row["user"]), str(row["action"]), previous[0], previous[2])
            )
        previous = (seq, moment, at)
    return steps


_CASE_ROWS = """
SELECT seq, at, user, action FROM audit WHERE entity = :case
UNION
SELECT a.seq, a.at, a.user, a.action FROM audit a
  JOIN decisions d ON a.entity = 'decision:' || d.decision_id
 WHERE d.case_id = :id
ORDER BY seq
"""


def case_clock_steps(db: Database, case_id: str) -> list[ClockStep]:
    """Backward steps among one case's own rows: its save, status changes, decisions and
    signatures, in chain order."""
    return backward_steps(db.query(_CASE_ROWS, {"case": f"case:{case_id}", "id": case_id}))
