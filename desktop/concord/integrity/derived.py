"""Everything the application derives from the chain, derived again and compared.

The audit chain pins each case's JSON (its hash in the `case save` row) and each record's
content hash (the `import` row); decisions are signed; signatures are signed rows. From those:

* records: the stored JSON's content hash, the `content_hash` column and the id it gives;
* cases: the worklist columns (grade, human review, model, config ...) from the case JSON,
  and every child table (briefs, evidence, gates, scorecards) and the run row;
* status: the lifecycle replayed in chain order through the same rule that records a decision
  (`decisions.next_status`): a `case status` row is valid only where a decision before it led
  to exactly that status, a `sign` only where the case was signable, and the table must hold
  the status the replay ends in.

Each difference is a Problem naming the table, the row and the column. One read of each table,
so the cost grows linearly with the installation.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from concord.decisions import next_status
from concord.domain import Case, CaseStatus, Decision, Record
from concord.integrity.report import Problem
from concord.integrity.trail import CaseEvent, Trail
from concord.review import outstanding_among, required_targets
from concord.store import Repository, case_rows

_CASE_COLUMNS = (
    "record_id",
    "created_at",
    "worst_grade",
    "human_review",
    "model_sha256",
    "model_name",
    "config_version",
    "mode",
)
"""Columns of `cases` derived from the case JSON (status is replayed; json is hashed)."""
_RUN_IGNORED = ("ended_at",)
"""The run row's end is the clock at saving, not in the case JSON."""


def check_records(repo: Repository, trail: Trail) -> tuple[list[Problem], int]:
    problems: list[Problem] = []
    count = 0
    for row in repo.db.query("SELECT record_id, content_hash, json FROM records"):
        count += 1
        record_id = str(row["record_id"])
        try:
            record = Record.model_validate_json(str(row["json"]))
        except ValidationError:
            problems.append(
                Problem(check="records", subject=record_id, detail="stored record is unreadable")
            )
            continue
        actual = record.content_hash
        imported = trail.imports.get(record_id)
        audited = imported[1].get("content_hash") if imported else None
        if actual != row["content_hash"] or record.record_id != record_id:
            problems.append(
                Problem(
                    check="records",
                    seq=imported[0] if imported else None,
                    subject=record_id,
                    detail="the record's text no longer hashes to its content_hash/id: its "
                    "documents were edited after import",
                )
            )
        elif imported is not None and audited != actual:
            problems.append(
                Problem(
                    check="records",
                    seq=imported[0],
                    subject=record_id,
                    detail="the record differs from the one the import row holds the hash of",
                )
            )
        elif imported is None:
            problems.append(
                Problem(check="records", subject=record_id, detail="record not in the audit trail")
            )
    return problems, count


def load_cases(repo: Repository) -> tuple[dict[str, Case], dict[str, dict[str, Any]]]:
    """case_id -> the case from its stored JSON, and -> its row (one read)."""
    cases: dict[str, Case] = {}
    rows: dict[str, dict[str, Any]] = {}
    for row in repo.db.query("SELECT * FROM cases"):
        case_id = str(row["case_id"])
        text = str(row.pop("json"))  # kept parsed only: memory grows by one case, not two
        rows[case_id] = row
        try:
            cases[case_id] = Case.model_validate_json(text)
        except ValidationError:
            continue  # reported with the JSON hash check
    return cases, rows


def check_case_tables(
    repo: Repository, cases: dict[str, Case], rows: dict[str, dict[str, Any]]
) -> list[Problem]:
    """The worklist columns and every child table, against what the case JSON gives."""
    problems: list[Problem] = []
    for case_id, case in cases.items():
        expected = case_rows.case_row(case, "")
        changed = [c for c in _CASE_COLUMNS if expected[c] != rows[case_id][c]]
        if changed:
            problems.append(
                Problem(
                    check="cases",
                    subject=case_id,
                    detail="cases row differs from the audited case JSON: " + ", ".join(changed),
                )
            )
    derived = {**case_rows.CHILD_TABLES, "runs": lambda c: [case_rows.run_row(c)]}
    for table, rows_of in derived.items():
        stored = _grouped(repo.db.query(f"SELECT * FROM {table}"), table)
        for case_id, case in cases.items():
            want = _canonical(rows_of(case), table)
            have = stored.pop(case_id, [])
            if want != have:
                problems.append(
                    Problem(
                        check="cases",
                        subject=case_id,
                        detail=f"{table} rows differ from the audited case JSON",
                    )
                )
        for case_id in stored:
            problems.append(
                Problem(
                    check="cases",
                    subject=case_id,
                    detail=f"{table} rows for a case that is not stored",
                )
            )
    return problems


def _canonical(rows: Iterable[dict[str, Any]], table: str) -> list[tuple[Any, ...]]:
    ignored = _RUN_IGNORED if table == "runs" else ()
    return sorted(
        (
            tuple((k, _comparable(v)) for k, v in sorted(row.items()) if k not in ignored)
            for row in rows
        ),
        key=repr,
    )


def _comparable(value: Any) -> Any:
    return repr(value) if isinstance(value, float) else value


def _grouped(rows: Iterable[dict[str, Any]], table: str) -> dict[str, list[tuple[Any, ...]]]:
    by_case: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_case[str(row["case_id"])].append(row)
    return {case_id: _canonical(group, table) for case_id, group in by_case.items()}


def check_statuses(
    trail: Trail,
    cases: dict[str, Case],
    rows: dict[str, dict[str, Any]],
    decisions: dict[str, list[tuple[int, Decision]]],
) -> list[Problem]:
    """Replay every case's lifecycle in chain order (see the module doc)."""
    problems: list[Problem] = []
    strict_from = trail.signed_rows_from
    for case_id, case in cases.items():
        events: list[tuple[int, CaseEvent | Decision]] = [
            (e.seq, e) for e in trail.case_events.get(case_id, [])
        ]
        events += decisions.get(case_id, [])
        events.sort(key=lambda pair: pair[0])
        status, found = _replay(case, events, strict_from)
        problems += found
        if status is not None and str(status) != rows[case_id]["status"]:
            problems.append(
                Problem(
                    check="cases",
                    seq=events[-1][0] if events else None,
                    subject=case_id,
                    detail=f"status is '{rows[case_id]['status']}' but the audit trail says "
                    f"'{status}'",
                )
            )
    return problems


def _replay(
    case: Case, events: list[tuple[int, CaseEvent | Decision]], strict_from: int | None
) -> tuple[CaseStatus | None, list[Problem]]:
    problems: list[Problem] = []
    status: CaseStatus | None = None
    pending: tuple[int, CaseStatus] | None = None
    decided: list[Decision] = []
    required = required_targets(case)

    def problem(seq: int, detail: str) -> None:
        problems.append(Problem(check="cases", seq=seq, subject=case.case_id, detail=detail))

    for seq, event in events:
        strict = strict_from is not None and seq > strict_from
        if isinstance(event, Decision):
            decided.append(event)
            if status is not None:
                left = tuple(outstanding_among(required, decided))
                became = next_status(status, left, event)
                if became is not None:
                    pending = (seq, became)
            continue
        new = _status(event.new)
        if event.kind == "save":
            if strict and new != case.initial_status:
                problem(seq, f"saved as '{event.new}' but its run ended '{case.initial_status}'")
            status = new
        elif event.kind == "status":
            if pending is not None and new == pending[1]:
                status, pending = new, None
            elif strict:
                problem(
                    seq,
                    f"status change to '{event.new}' by {event.user} is not what the decisions "
                    "and signatures before it lead to",
                )
            else:
                status = new  # before rows were signed: the status row is taken as it is
        elif event.kind == "sign":
            if pending is not None:
                status, pending = pending[1], None  # a status row the chain lacks
            if strict and (status is None or not status.signable):
                problem(seq, f"signed while the case was '{status}', which cannot be signed")
            status = CaseStatus.SIGNED
    if pending is not None and strict_from is not None and pending[0] > strict_from:
        problem(
            pending[0],
            f"the decision at seq {pending[0]} moves the case to '{pending[1]}', "
            "but no status row records it",
        )
        status = pending[1]
    return status, problems


def _status(value: Any) -> CaseStatus | None:
    try:
        return CaseStatus(str(value))
    except ValueError:
        return None
