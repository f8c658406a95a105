"""Keystrokes per decided item for a reviewer who agrees with the judge, counted by pressing
keys on the real window (tests/ui/keystrokes.py): ASTRID at most 3 keys per item, the
clinician queue at most 5 keys per required judgement (each is clinical: E to its evidence
and back, then A, or for a red flag O, a typed reason and Enter), EVAL one key per answer."""

from __future__ import annotations

from concord.eval.eval_store import EvalStore
from concord.eval.questions import load_question_set
from concord.store import Repository
from tests.eval.helpers import make_answers
from tests.ui.keystrokes import astrid_queue, clinician_queue, eval_queue
from tests.ui.test_qa_page import N_ITEMS, judged_set

ASTRID_KEYS_PER_ITEM = 3
CLINICIAN_KEYS_PER_REQUIRED = 5


def test_astrid_agreeing_costs_at_most_three_keys_per_item(make_window, repo: Repository) -> None:
    judged_set(repo)
    window = make_window()
    count = astrid_queue(window)
    assert count.items == N_ITEMS and window.qa_view.session.items_done == N_ITEMS
    assert count.per_item <= ASTRID_KEYS_PER_ITEM
    assert count.keys == N_ITEMS  # one Enter per item


def test_clinician_queue_costs_at_most_two_keys_per_required_judgement(
    case_window, stored_case
) -> None:
    _, case = stored_case
    count = clinician_queue(case_window, case.case_id)
    assert count.required and count.keys_required <= CLINICIAN_KEYS_PER_REQUIRED * count.required
    assert count.lines < count.judgements  # failed quotes are grouped
    assert count.keys_all == count.keys_required + 2  # the rest: Ctrl+Shift+A, Enter
    queue = case_window.case_view.queue
    assert all(e.decided for e in queue.entries)


def test_eval_grading_is_one_key_per_answer(make_window, repo: Repository, tmp_path) -> None:
    from tests.eval.helpers import QUESTIONS

    path = tmp_path / "q.jsonl"
    path.write_text(QUESTIONS, encoding="utf-8")
    store = EvalStore(repo)
    set_id, _ = store.import_set(load_question_set(path), str(path), "ann")
    make_answers(store, set_id, temperatures=(0.2,), k=2)
    window = make_window()
    count = eval_queue(window)
    assert count.items == len(store.answers()) and count.keys == count.items
