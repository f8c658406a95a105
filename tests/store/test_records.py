from __future__ import annotations

from datetime import timedelta

import pytest

from concord.domain import CaseStatus
from concord.errors import NotFoundError
from concord.store import Repository
from tests import factories as f


def test_record_round_trip(repo: Repository) -> None:
    rec = f.record()
    record_id, created = repo.save_record(rec, "importer")
    assert (record_id, created) == (rec.record_id, True)
    assert repo.get_record(record_id) == rec
    last = repo.audit_rows()[-1]
    assert (last.action, last.entity, last.user) == ("import", f"record:{record_id}", "importer")


def test_duplicate_import_returns_the_existing_id_and_is_audited(repo: Repository) -> None:
    first, _ = repo.save_record(f.record("a.txt"), "importer")
    again, created = repo.save_record(f.record("renamed.txt"), "someone")
    assert (again, created) == (first, False)
    assert len(repo.list_records()) == 1
    assert repo.get_record(first).name == "a.txt"
    assert repo.audit_rows()[-1].action == "import (duplicate)"


def test_unknown_record_names_the_id(repo: Repository) -> None:
    with pytest.raises(NotFoundError, match="R-missing"):
        repo.get_record("R-missing")


def test_worklist_shows_the_latest_case_of_each_record(repo: Repository) -> None:
    rec_a, rec_b = f.record("a.txt"), f.record("b.txt", "Other patient.\nNothing of note.\n")
    repo.save_record(rec_a, "importer")
    repo.save_record(rec_b, "importer")
    repo.save_case(f.case(rec_a, "C-old", grade="Low"), "runner")
    repo.save_case(f.case(rec_a, "C-new", f.T0 + timedelta(days=1), grade="Very Low"), "runner")
    repo.set_case_status("C-new", CaseStatus.REVIEWED, "dr.jones")
    summaries = {s.record_id: s for s in repo.list_records()}
    a = summaries[rec_a.record_id]
    assert (a.latest_case_id, a.latest_status, a.worst_grade) == (
        "C-new",
        CaseStatus.REVIEWED,
        "Very Low",
    )
    assert a.human_review is True
    assert a.triggered_gates == 2  # the negated gate does not count
    b = summaries[rec_b.record_id]
    assert (b.latest_case_id, b.latest_status, b.triggered_gates) == (None, None, 0)
    assert b.imported_at.utcoffset() == timedelta(0)
