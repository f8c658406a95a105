from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from concord.domain import CaseStatus
from concord.errors import InputError, NotFoundError, StoreError
from concord.store import Repository
from tests import factories as f


@pytest.fixture
def stored(repo: Repository) -> Repository:
    rec = f.record()
    repo.save_record(rec, "importer")
    assert repo.save_case(f.case(rec), "runner") is True
    return repo


def test_case_round_trip_with_briefs_scorecards_and_gates(stored: Repository) -> None:
    expected = f.case(f.record())
    got = stored.get_case("C-1")
    assert got == expected
    assert got.brief("cardiology").evidence[0].alignment.start == 15
    assert got.scorecards[1].disagreements[0].spans[0].text == "K+ 6.3"
    assert got.worst_grade == "Low" and got.human_review


def test_case_rows_are_queryable(stored: Repository) -> None:
    db = stored.db
    briefs = list(db.query("SELECT agent, status, prompt_sha256, verified_evidence FROM briefs"))
    assert briefs == [
        {
            "agent": "anaesthetist",
            "status": "ok",
            "prompt_sha256": "p-anaesthetist",
            "verified_evidence": 1,
        },
        {
            "agent": "cardiology",
            "status": "ok",
            "prompt_sha256": "p-cardiology",
            "verified_evidence": 1,
        },
    ]
    cards = list(db.query("SELECT specialist, overall, grade, human_review FROM scorecards"))
    assert cards == [
        {"specialist": "cardiology", "overall": 82.0, "grade": "Medium", "human_review": 0},
        {"specialist": "renal", "overall": 55.5, "grade": "Low", "human_review": 1},
    ]
    failed = db.execute("SELECT count(*) FROM evidence WHERE status = 'FAILED'").fetchone()[0]
    assert failed == 2
    gates = db.execute("SELECT count(*) FROM case_gates WHERE status = 'triggered'").fetchone()
    assert gates[0] == 2
    run = next(db.query("SELECT * FROM runs"))
    assert run["case_id"] == "C-1" and '"cardiology":"p-cardiology"' in run["prompt_sha256s"]
    last = stored.audit_rows()[-1]
    assert (last.action, last.entity, last.model_sha256) == ("case save", "case:C-1", "m" * 64)


def test_list_cases(stored: Repository) -> None:
    (summary,) = stored.list_cases()
    assert summary.case_id == "C-1"
    assert summary.record_name == "patient-a.txt"
    assert summary.status is CaseStatus.NEEDS_REVIEW
    assert (summary.worst_grade, summary.human_review) == ("Low", True)
    assert summary.created_at == f.T0


def test_saving_the_same_case_again_is_a_no_op(stored: Repository) -> None:
    head = stored.audit_head()
    assert stored.save_case(f.case(f.record()), "runner") is False
    assert stored.audit_head() == head


def test_a_different_case_under_a_stored_id_is_refused(stored: Repository) -> None:
    with pytest.raises(StoreError, match="C-1"):
        stored.save_case(f.case(f.record(), grade="Very Low"), "runner")
    assert stored.get_case("C-1").worst_grade == "Low"


def test_a_case_for_an_unknown_record_writes_nothing(repo: Repository) -> None:
    head = repo.audit_head()
    with pytest.raises(NotFoundError, match=f.record().record_id):
        repo.save_case(f.case(f.record()), "runner")
    assert repo.list_cases() == [] and repo.audit_head() == head
    assert repo.db.execute("SELECT count(*) FROM briefs").fetchone()[0] == 0


def test_naive_times_are_refused(repo: Repository) -> None:
    rec = f.record()
    repo.save_record(rec, "importer")
    with pytest.raises(InputError, match="timezone"):
        repo.save_case(f.case(rec, created_at=datetime(2025, 1, 1)), "runner")  # noqa: DTZ001


def test_times_are_stored_in_utc(repo: Repository) -> None:
    rec = f.record()
    repo.save_record(rec, "importer")
    paris = timezone(timedelta(hours=1))
    repo.save_case(f.case(rec, created_at=datetime(2025, 3, 1, 10, tzinfo=paris)), "runner")
    stored = repo.db.execute("SELECT created_at FROM cases").fetchone()[0]
    assert stored == "2025-03-01T09:00:00.000000+00:00"
    assert repo.list_cases()[0].created_at == f.T0


def test_set_case_status_is_audited(stored: Repository) -> None:
    stored.set_case_status("C-1", "reviewed", "dr.jones", reason="all decided")
    assert stored.case_status("C-1") is CaseStatus.REVIEWED
    last = stored.audit_rows()[-1]
    assert (last.old_value, last.new_value, last.reason) == (
        '"needs review"',
        '"reviewed"',
        "all decided",
    )


def test_unknown_case_names_the_id(repo: Repository) -> None:
    with pytest.raises(NotFoundError, match="C-404"):
        repo.get_case("C-404")
    with pytest.raises(NotFoundError, match="C-404"):
        repo.set_case_status("C-404", CaseStatus.REVIEWED, "dr.jones")
    with pytest.raises(InputError, match="bogus"):
        repo.set_case_status("C-404", "bogus", "dr.jones")


def test_a_case_the_tables_refuse_is_a_store_error_and_writes_nothing(repo: Repository) -> None:
    rec = f.record()
    repo.save_record(rec, "importer")
    good = f.case(rec)
    twice = good.model_copy(update={"briefs": (*good.briefs, good.briefs[0])})
    head = repo.audit_head()
    with pytest.raises(StoreError, match="C-1"):
        repo.save_case(twice, "runner")
    assert repo.list_cases() == [] and repo.audit_head() == head
    for table in ("briefs", "evidence", "case_gates", "scorecards", "runs"):
        assert repo.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0
