"""The QA session without Qt (issue 25, item 7), against a real temporary Repository and the
scripted judge: what a reviewer decides on a row, what the session derives (the item's CF),
an undo appended as a withdrawal, the bulk accept of an item's rest, and what counts as
reviewed."""

from __future__ import annotations

import pytest

from concord.accounts.session import Session
from concord.astrid.items import QaItem
from concord.domain import DecisionAction
from concord.domain.decision_history import is_withdrawal
from concord.domain.decision_reason import ACCEPT_REASON, BLIND_REASON
from concord.errors import InputError
from concord.llm.scripted import ScriptedRuntime
from concord.store import Repository, verify_chain
from concord.store.label_store import LabelStore
from concord.workbench.qa_session import (
    CF,
    CF_REASON,
    CR,
    RA,
    SENTENCE,
    QaRow,
    QaSession,
    accept_rest,
    apply_update,
    load_session,
    make_row_decision,
    store_decisions,
    target_id,
    undo_last,
)
from tests.astrid.helpers import demo_items, scripted  # noqa: F401 - fixtures
from tests.astrid.test_pipeline import run_demo
from tests.identity import enrol


@pytest.fixture
def judged(
    repo: Repository,
    demo_items: list[QaItem],  # noqa: F811
    scripted: ScriptedRuntime,  # noqa: F811
) -> tuple[str, str]:
    store, run_id = run_demo(repo, demo_items, scripted)
    return store.get_run(run_id).set_id, run_id


@pytest.fixture
def reviewer(repo: Repository) -> Session:
    return enrol(repo, "dr_a", "clinician")


def _session(repo: Repository, judged: tuple[str, str], run: bool = True) -> QaSession:
    set_id, run_id = judged
    return load_session(repo, set_id, run_id if run else None, "dr_a")


def _first_item(session: QaSession) -> str:
    return session.items[session.start_item].item_id


def _other(row: QaRow) -> str:
    """A value that is not the judge's."""
    return next(v for v in row.options if v != row.judge_value)


def test_every_item_has_a_row_per_sentence_then_relevance_and_refusal(
    repo: Repository, judged: tuple[str, str]
) -> None:
    session = _session(repo, judged)
    for item in session.items:
        kinds = [r.kind for r in session.item_rows(item.item_id)]
        assert kinds == [SENTENCE] * len(session.sentences[item.item_id]) + [CR, RA]
    assert session.verdicts_done == 0 and session.items_done == 0 and session.start_item == 0
    assert session.verdicts_total == len(session.rows)


def test_an_accept_needs_no_words_an_override_of_a_seen_verdict_does(
    repo: Repository, judged: tuple[str, str], reviewer: Session
) -> None:
    session = _session(repo, judged)
    row = next(r for r in session.item_rows(_first_item(session)) if r.acceptable)
    accepted = make_row_decision(session, row, None, "", blind=False)
    assert accepted.action == DecisionAction.ACCEPT and accepted.reason == ACCEPT_REASON
    with pytest.raises(InputError, match="needs a reason"):
        make_row_decision(session, row, _other(row), "", blind=False)
    blind = make_row_decision(session, row, _other(row), "", blind=True)
    assert blind.blind and blind.reason == BLIND_REASON
    overridden = make_row_decision(session, row, _other(row), "context says so", blind=False)
    update = store_decisions(repo, session, [overridden], reviewer)
    session = apply_update(session, update)
    assert session.decided(row) and session.mine[row.target_id].new_value == _other(row)
    assert session.verdicts_done == 1


def test_deciding_every_sentence_derives_the_items_cf_and_an_undo_withdraws_it(
    repo: Repository, judged: tuple[str, str], reviewer: Session
) -> None:
    session = _session(repo, judged)
    item_id = _first_item(session)
    sentences = [r for r in session.item_rows(item_id) if r.kind == SENTENCE]
    made = [make_row_decision(session, r, "grounded", "read it", blind=True) for r in sentences]
    update = store_decisions(repo, session, made, reviewer)
    session = apply_update(session, update)
    cf = session.mine[target_id(item_id, CF)]
    assert cf.reason == CF_REASON and session.cf_mine(item_id) == 1.0
    assert len(update.appended) == len(made) + 1  # the sentences, then the derived CF
    assert not session.item_done(item_id)  # relevance and refusal are still open

    before = len(repo.decisions())
    undone = undo_last(repo, session, reviewer)
    session = apply_update(session, undone)
    assert undone.withdrawn is not None
    assert undone.withdrawn.decision_id == made[-1].decision_id  # the last made, not the CF
    assert [is_withdrawal(d) for d in undone.appended] == [True, True]  # it, and the CF
    assert not session.decided(sentences[-1]) and session.cf_mine(item_id) is None
    assert len(repo.decisions()) == before + 2  # appended, nothing edited
    assert verify_chain(repo.db).ok


def test_the_bulk_accept_takes_the_rest_of_the_item_and_then_it_is_reviewed(
    repo: Repository, judged: tuple[str, str], reviewer: Session
) -> None:
    session = _session(repo, judged)
    item_id = _first_item(session)
    first = session.item_rows(item_id)[0]
    mine = make_row_decision(session, first, _other(first), "not in the context", blind=False)
    session = apply_update(session, store_decisions(repo, session, [mine], reviewer))
    with pytest.raises(ValueError, match="Blind mode"):
        accept_rest(session, item_id, "", blind=True)
    rest = accept_rest(session, item_id, "", blind=False)
    open_rows = [r for r in session.item_rows(item_id) if not session.decided(r)]
    assert [d.target_id for d in rest] == [r.target_id for r in open_rows if r.acceptable]
    assert first.target_id not in {d.target_id for d in rest}  # the decided one stays
    assert all(d.action == DecisionAction.ACCEPT and d.reason.startswith("accepted") for d in rest)
    how = session.provenance(bulk=True, seconds=3.0)
    session = apply_update(session, store_decisions(repo, session, rest, reviewer, how))
    stored = LabelStore(repo).provenance([d.decision_id for d in rest])
    assert all(stored[d.decision_id].bulk for d in rest)
    assert session.item_done(item_id) and session.items_done == 1
    assert session.open_item(session.item_index(item_id)) != session.item_index(item_id)
    assert accept_rest(session, item_id, "", blind=False) == []  # nothing left: nothing made
    # reloading finds the same: the reviewer resumes on the next item not done
    again = _session(repo, judged)
    assert again.item_done(item_id) and again.start_item != session.item_index(item_id)


def test_a_set_with_no_judge_run_is_labelled_not_accepted(
    repo: Repository, judged: tuple[str, str], reviewer: Session
) -> None:
    session = _session(repo, judged, run=False)
    row = session.item_rows(_first_item(session))[-1]
    assert row.kind == RA and row.judge is None and not row.acceptable
    with pytest.raises(ValueError, match="no judge's verdict to accept"):
        make_row_decision(session, row, None, "", blind=False)
    label = make_row_decision(session, row, "refuses", "", blind=False)
    assert label.case_id == session.set_id and label.original_value is None
    assert label.reason == BLIND_REASON  # nothing was shown: no words needed
    session = apply_update(session, store_decisions(repo, session, [label], reviewer))
    assert session.decided(row)
    # the same reviewer opening the judged run sees the set's label as their decision there
    assert _session(repo, judged).decided(
        next(r for r in _session(repo, judged).rows if r.target_id == row.target_id)
    )
