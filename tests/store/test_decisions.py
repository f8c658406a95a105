from __future__ import annotations

import json
import sqlite3
from datetime import timedelta, timezone
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from concord.domain import DecisionAction
from concord.errors import StoreError
from concord.store import Repository
from concord.store import repository as repository_module
from concord.store.decision_rows import decision_row
from tests import factories as f


def test_decisions_are_returned_in_append_order(repo: Repository) -> None:
    first = f.decision("D-2", target_id="renal/coverage")
    second = f.decision("D-1", target_id="gate/hyperkalaemia", override="not relevant")
    third = f.decision("D-3", case_id="QA-set-1", target_id="qa/7/cf")
    for d in (first, second, third):
        assert repo.append_decision(d) is True
    assert repo.decisions() == [first, second, third]
    assert repo.decisions(case_id="C-1") == [first, second]
    assert repo.decisions(target_id="qa/7/cf") == [third]
    assert repo.decisions(case_id="C-1", target_id="gate/hyperkalaemia") == [second]
    assert repo.decisions(case_id="nope") == []
    assert second.action is DecisionAction.OVERRIDE


def test_each_decision_is_audited_in_the_same_transaction(repo: Repository) -> None:
    before = repo.audit_head()[0]
    repo.append_decision(f.decision(override=0.25))
    (row,) = repo.audit_rows(since_seq=before)
    assert (row.action, row.entity, row.user) == ("decide (override)", "decision:D-1", "dr.jones")
    # the audit row holds the decision's whole stored row, not a pointer to it
    assert json.loads(row.new_value or "") == decision_row(f.decision(override=0.25))
    assert row.old_value == '{"case_id":"C-1","target_id":"renal/coverage","value":0.5}'
    assert row.reason == "checked against the record"
    assert row.model_sha256 == "m" * 64


def test_same_decision_twice_writes_nothing(repo: Repository) -> None:
    assert repo.append_decision(f.decision()) is True
    head = repo.audit_head()
    # the same instant in another time zone is the same decision
    same = f.decision(at=(f.T0 + timedelta(hours=1)).astimezone(timezone(timedelta(hours=2))))
    assert repo.append_decision(same) is False
    assert repo.audit_head() == head
    assert len(repo.decisions()) == 1


def test_different_content_under_the_same_id_is_refused(repo: Repository) -> None:
    repo.append_decision(f.decision())
    with pytest.raises(StoreError, match="D-1"):
        repo.append_decision(f.decision(override=0.1))
    assert repo.decisions() == [f.decision()]


def test_append_only_triggers_refuse_update_and_delete(repo: Repository) -> None:
    repo.append_decision(f.decision())
    for sql in (
        "UPDATE decisions SET reason = 'changed'",
        "DELETE FROM decisions",
        "UPDATE audit SET user = 'mallory'",
        "DELETE FROM audit WHERE seq = 1",
    ):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            repo.db.execute(sql)
    assert repo.decisions() == [f.decision()]
    assert repo.verify_audit().ok


def test_a_failure_midway_leaves_no_decision_and_no_audit_row(
    repo: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    head = repo.audit_head()

    def broken(*args: Any, **kwargs: Any) -> None:
        raise OSError("disk unplugged")

    monkeypatch.setattr(repository_module, "append_audit", broken)
    with pytest.raises(OSError, match="disk unplugged"):
        repo.append_decision(f.decision())
    assert repo.db.execute("SELECT count(*) FROM decisions").fetchone()[0] == 0
    assert repo.audit_head() == head
    assert not repo.db.conn.in_transaction
    monkeypatch.undo()
    assert repo.append_decision(f.decision()) is True  # the retry goes through


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=40, deadline=None)
@given(original=json_values, new=json_values, reason=st.text())
def test_any_json_value_round_trips(original: Any, new: Any, reason: str) -> None:
    with Repository.open(None) as repo:  # the autouse CONCORD_HOME is shared by examples
        n = len(repo.decisions())
        d = f.decision(f"D-{n}", original_value=original, new_value=new, reason=reason)
        assert repo.append_decision(d) is True
        (back,) = repo.decisions(target_id=d.target_id)[n:]
        assert back.model_dump(mode="json", exclude={"seq"}) == d.model_dump(
            mode="json", exclude={"seq"}
        )
        assert repo.append_decision(d) is False
