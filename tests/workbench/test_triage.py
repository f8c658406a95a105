"""The worklist's urgency without Qt (issue 25, item 7): the order of the nine urgencies,
blind mode ordering by status alone, the surgery date and the wait within one urgency, and
the counts line."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from concord.domain import CaseStatus, Severity
from concord.workbench.red_flags import RedFlag
from concord.workbench.triage import Urgency, WorklistRow, triage_counts, triage_order

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
MAJOR = RedFlag("hyperkalaemia", "Potassium 6.3", Severity.MAJOR)
MINOR = RedFlag("anaemia", "Haemoglobin 98", Severity.MINOR)


def row(name: str, status: CaseStatus | None, minutes: int = 0, **more: object) -> WorklistRow:
    return WorklistRow(
        record_id=f"R-{name}",
        name=name,
        source_name=f"{name}.txt",
        imported_at=T0 + timedelta(minutes=minutes),
        case_id=None if status is None else f"C-{name}",
        status=status,
        **more,  # type: ignore[arg-type]
    )


ROWS = [
    row("signed", CaseStatus.SIGNED),
    row("reviewed", CaseStatus.REVIEWED),
    row("not-run", None),
    row("amended", CaseStatus.AMENDED),
    row("needs-review", CaseStatus.NEEDS_REVIEW),
    row("flag-not-run", None, red_flags=(MAJOR,)),
    row("minor-flag-not-run", None, 5, red_flags=(MINOR,)),
    row("failed", CaseStatus.RUN_FAILED),
    row("missed-major", CaseStatus.NEEDS_REVIEW, missed_major=("Potassium 6.3",)),
    row("missed-by-all", CaseStatus.NEEDS_REVIEW, missed_by_every_agent=("Potassium 6.3",)),
    row("reviewed-missed", CaseStatus.REVIEWED, 5, missed_major=("Potassium 6.3",)),
]


def test_the_order_of_urgencies() -> None:
    order = [r.name for r in triage_order(ROWS)]
    assert order == [
        "missed-by-all",
        "missed-major",
        "failed",
        "flag-not-run",
        "needs-review",
        "amended",
        "not-run",
        "minor-flag-not-run",  # a minor flag does not lift a record not run (waited less)
        "reviewed",
        "reviewed-missed",  # a clinician has been through it: its status orders it
        "signed",
    ]


def test_blind_mode_orders_by_status_alone() -> None:
    urgencies = {r.name: r.urgency(blind=True) for r in ROWS}
    assert urgencies["missed-by-all"] == urgencies["needs-review"] == Urgency.NEEDS_REVIEW
    assert urgencies["flag-not-run"] == Urgency.NOT_RUN
    order = [r.name for r in triage_order(ROWS, blind=True)]
    assert order.index("failed") < order.index("missed-by-all") < order.index("not-run")


def test_within_one_urgency_the_earliest_surgery_then_the_longest_wait() -> None:
    rows = [
        row("late", CaseStatus.NEEDS_REVIEW, 0, surgery_date=date(2026, 3, 1)),
        row("none-old", CaseStatus.NEEDS_REVIEW, 0),
        row("none-new", CaseStatus.NEEDS_REVIEW, 10),
        row("early", CaseStatus.NEEDS_REVIEW, 20, surgery_date=date(2026, 2, 1)),
    ]
    assert [r.name for r in triage_order(rows)] == ["early", "late", "none-old", "none-new"]


def test_the_counts_line_names_what_is_to_do_first() -> None:
    counts = triage_counts(ROWS)
    assert (counts.total, counts.to_do) == (11, 8)
    assert counts.by_urgency[Urgency.NOT_RUN] == 2 and counts.by_urgency[Urgency.REVIEWED] == 2
    assert counts.summary().startswith("11 patients, 8 to do (missed by every agent 1 · ")
    assert counts.summary().endswith(" · reviewed, to sign 2 · signed 1")
    assert triage_counts([]).summary() == "No patients yet"
