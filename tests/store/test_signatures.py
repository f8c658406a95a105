from __future__ import annotations

import sqlite3

import pytest

from concord.domain import CaseStatus
from concord.errors import InputError, NotFoundError, StoreError
from concord.store import Repository
from tests import factories as f


@pytest.fixture
def stored(repo: Repository) -> Repository:
    rec = f.record()
    repo.save_record(rec, "importer")
    repo.save_case(f.case(rec), "runner")
    repo.set_case_status("C-1", CaseStatus.REVIEWED, "dr.jones", reason="decided")
    return repo


def test_signature_is_recorded_and_marks_the_case_signed(stored: Repository) -> None:
    assert stored.latest_signature("C-1") is None
    head = stored.audit_head()
    sig = stored.record_signature(
        "C-1", "dr.jones", "reviewed and approved", "ab" * 32, "/tmp/c1.pdf", head
    )
    assert (sig.case_id, sig.user, sig.audit_head_seq, sig.audit_head_hash) == (
        "C-1",
        "dr.jones",
        head[0],
        head[1],
    )
    assert sig.signed_at.utcoffset() is not None
    assert stored.case_status("C-1") is CaseStatus.SIGNED
    assert stored.latest_signature("C-1") == sig
    assert stored.audit_rows()[-1].action == "sign"
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        stored.db.execute("UPDATE signatures SET user = 'mallory'")


def test_a_head_that_is_not_in_the_trail_is_refused(stored: Repository) -> None:
    seq, _ = stored.audit_head()
    with pytest.raises(StoreError, match="audit head"):
        stored.record_signature("C-1", "dr.jones", "approved", "ab", "x.pdf", (seq, "f" * 64))
    assert stored.latest_signature("C-1") is None
    assert stored.case_status("C-1") is CaseStatus.REVIEWED


def test_only_a_reviewed_or_amended_case_is_signed(stored: Repository) -> None:
    head = stored.audit_head()
    stored.record_signature("C-1", "dr.jones", "approved", "ab", "x.pdf", head)
    with pytest.raises(InputError, match="'signed': it cannot be signed"):
        stored.record_signature("C-1", "dr.jones", "approved", "cd", "y.pdf", head)
    stored.set_case_status("C-1", CaseStatus.AMENDED, "dr.jones", reason="decided again")
    again = stored.record_signature("C-1", "dr.jones", "approved", "cd", "y.pdf", head)
    first = stored.signatures("C-1")[0]
    assert again.supersedes == first.signature_id and first.supersedes is None


def test_signing_an_unknown_case_names_it(stored: Repository) -> None:
    with pytest.raises(NotFoundError, match="C-9"):
        stored.record_signature("C-9", "dr.jones", "approved", "ab", "x.pdf", stored.audit_head())
