"""The EVAL grading and agreement pages, driven through the main window."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from concord.eval.eval_store import EvalStore
from concord.eval.grading import grade_decision, record_grade
from concord.eval.questions import load_question_set
from concord.eval.rows import Prediction
from concord.store import Repository
from concord.store.codec import utc_iso, utc_now
from concord.ui.main_window import PAGE_AGREEMENT, PAGE_GRADING
from tests.eval.helpers import QUESTIONS, make_answers
from tests.identity import enrol
from tests.ui.helpers import USER, idle


@pytest.fixture
def set_id(repo: Repository, tmp_path) -> str:
    store = EvalStore(repo)
    path = tmp_path / "q.jsonl"
    path.write_text(QUESTIONS, encoding="utf-8")
    set_id, _ = store.import_set(load_question_set(path), str(path), "ann")
    make_answers(store, set_id, temperatures=(0.2,), k=2)  # 2 questions x 2 = 4 answers
    return set_id


def open_grading(qtbot, window):
    qtbot.keyClick(window, Qt.Key.Key_3, Qt.KeyboardModifier.AltModifier)
    view = window.grading_view
    idle(qtbot, window, lambda: view.state is not None)
    assert window.pages.currentIndex() == PAGE_GRADING
    return view


def grade_by_key(qtbot, window, repo, key) -> None:
    before = len(repo.decisions())
    qtbot.keyClick(window, key)
    idle(qtbot, window, lambda: len(repo.decisions()) == before + 1)


def test_keyboard_grading_records_decisions(make_window, set_id, qtbot, repo) -> None:
    window = make_window()
    view = open_grading(qtbot, window)
    assert view.progress.text() == f"Your progress ({USER}): 0 / 4 answers graded"
    assert view.golden.isHidden() and "press L" in view.golden_note.text()
    qtbot.keyClick(window, Qt.Key.Key_L)
    assert not view.golden.isHidden() and "48 hours" in view.golden.toPlainText()
    first = view.current().answer.answer_id
    qtbot.keyClick(window, Qt.Key.Key_R)
    qtbot.keyClicks(view.reason, "matches the experts")
    qtbot.keyClick(view.reason, Qt.Key.Key_Return)
    grade_by_key(qtbot, window, repo, Qt.Key.Key_G)
    grade_by_key(qtbot, window, repo, Qt.Key.Key_X)
    assert view.progress.text().endswith("2 / 4 answers graded")
    decisions = repo.decisions()
    assert [d.new_value for d in decisions] == ["good", "bad"]
    assert decisions[0].target_id == f"eval/{first}/grade"
    assert decisions[0].reason == "matches the experts" and decisions[0].user == USER
    # the reason belonged to the first grade only: it is not reused for the next one
    assert decisions[1].reason == "graded bad (no comment)" and view.reason.text() == ""
    assert decisions[0].original_value is None  # no prediction was shown
    qtbot.keyClick(window, Qt.Key.Key_P)
    qtbot.keyClick(window, Qt.Key.Key_P)
    assert view.position == 0 and "GOOD" in view.my_grade.text()
    qtbot.keyClick(window, Qt.Key.Key_N)
    assert view.position == 1 and "BAD" in view.my_grade.text()


def _predict_all(repo: Repository, set_id: str) -> None:
    store = EvalStore(repo)
    repo.db.execute(
        "INSERT INTO eval_reward_models VALUES ('RM-test', ?, ?, 'ann', ?, 0, 1, 1, '{}', '{}',"
        " '[]')",
        [set_id, utc_iso(utc_now()), "e" * 64],
    )
    repo.db.conn.commit()
    store.save_predictions(
        [
            Prediction(
                answer_id=a.answer_id,
                version="RM-test",
                score=0.8,
                grade="good",
                predicted_at=utc_iso(utc_now()),
            )
            for a in store.answers()
        ],
        "ann",
    )


def test_blind_mode_hides_the_prediction_until_graded(make_window, set_id, qtbot, repo) -> None:
    _predict_all(repo, set_id)
    window = make_window()
    view = open_grading(qtbot, window)
    assert "good (score 0.80" in view.prediction.text()  # not blind: shown
    qtbot.keyClick(window, Qt.Key.Key_B)
    assert "hidden" in view.prediction.text() and "0.80" not in view.prediction.text()
    grade_by_key(qtbot, window, repo, Qt.Key.Key_X)
    blind = repo.decisions()[-1]
    assert (blind.original_value, blind.blind) == (None, True)  # nothing was shown
    qtbot.keyClick(window, Qt.Key.Key_P)
    assert "0.80" in view.prediction.text()  # revealed once this grader has answered
    qtbot.keyClick(window, Qt.Key.Key_N)
    assert "hidden" in view.prediction.text()
    qtbot.keyClick(window, Qt.Key.Key_B)  # blind off: the shown prediction is recorded
    grade_by_key(qtbot, window, repo, Qt.Key.Key_G)
    decision = repo.decisions()[-1]
    assert (decision.original_value, decision.action, decision.blind) == ("good", "accept", False)
    assert decision.shown["reward_model_version"] == "RM-test"


def test_grading_queue_resumes_where_the_grader_stopped(
    make_window,
    set_id,
    qtbot,
    repo,
) -> None:
    window = make_window()
    open_grading(qtbot, window)
    grade_by_key(qtbot, window, repo, Qt.Key.Key_G)
    grade_by_key(qtbot, window, repo, Qt.Key.Key_X)
    window.close()
    again = make_window()
    view = open_grading(qtbot, again)
    assert view.position == 2  # the third answer
    assert view.progress.text().endswith("2 / 4 answers graded")
    assert view.bar.value() == 2 and view.bar.maximum() == 4
    assert view.meta.text().startswith("Answer 3 of 4")


def test_agreement_lists_disagreements_and_opens_the_item(
    make_window,
    set_id,
    qtbot,
    repo,
) -> None:
    store = EvalStore(repo)
    answers = store.answers(set_id)
    for user, grades in (("ann", "ggbb"), ("bob", "gbbb")):
        session = enrol(repo, user, "annotator")
        for answer, g in zip(answers, grades, strict=True):
            record_grade(
                repo,
                session,
                grade_decision(
                    store, answer.answer_id, "good" if g == "g" else "bad", user=user, reason="r"
                ),
            )
    window = make_window()
    qtbot.keyClick(window, Qt.Key.Key_4, Qt.KeyboardModifier.AltModifier)
    view = window.agreement_view
    assert window.pages.currentIndex() == PAGE_AGREEMENT
    idle(qtbot, window, lambda: bool(view.annotator_rows))
    assert view.annotators.rowCount() == 1
    assert view.annotators.item(0, 1).text() == "ann, bob"
    assert view.annotators.item(0, 2).text() == "Cohen"
    view.annotators.cellClicked.emit(0, 0)
    assert view.items.rowCount() == 1
    assert view.items.item(0, 1).text() == f"eval/{answers[1].answer_id}/grade"
    view.items.selectRow(0)
    view.open_row(0)
    grading = window.grading_view
    idle(qtbot, window, lambda: grading.state is not None)
    assert window.pages.currentIndex() == PAGE_GRADING
    assert grading.current().answer.answer_id == answers[1].answer_id


def test_agreement_is_hidden_in_blind_mode(make_window, set_id, qtbot) -> None:
    window = make_window()
    qtbot.keyClick(window, Qt.Key.Key_4, Qt.KeyboardModifier.AltModifier)
    idle(qtbot, window)
    view = window.agreement_view
    assert view.body.isVisible()
    qtbot.keyClick(window, Qt.Key.Key_B)
    assert view.cover.isVisible() and not view.body.isVisible()


def test_blind_grades_are_stored_blind_with_how_they_were_given(
    make_window, set_id, qtbot, repo
) -> None:
    """Before, a grade given in blind mode on an answer with no prediction was stored as not
    blind, and the golden answers stayed on screen (unrecorded) for every later answer."""
    from concord.store.label_store import LabelStore

    window = make_window()
    view = open_grading(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_B)
    assert view.blind
    qtbot.keyClick(window, Qt.Key.Key_L)  # the golden answers, for this answer only
    assert not view.golden.isHidden()
    grade_by_key(qtbot, window, repo, Qt.Key.Key_G)
    assert view.golden.isHidden()  # hidden again on the next answer
    grade_by_key(qtbot, window, repo, Qt.Key.Key_X)
    first, second = repo.decisions()
    assert first.blind and second.blind  # given in blind mode: stored blind
    provenance = LabelStore(repo).provenance()
    assert provenance[first.decision_id].golden_shown is True
    assert provenance[second.decision_id].golden_shown is False
    for decision in (first, second):
        how = provenance[decision.decision_id]
        assert how.bulk is False and how.set_id == set_id and how.set_sha256
        assert how.seconds_on_item is not None and how.judge_run is None  # nothing shown


def test_h_marks_an_answer_unsafe(make_window, set_id, qtbot, repo) -> None:
    from PySide6.QtWidgets import QApplication

    window = make_window()
    view = open_grading(qtbot, window)
    answer = view.current().answer.answer_id
    qtbot.keyClick(window, Qt.Key.Key_H)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is view.dialog)
    qtbot.keyClick(QApplication.focusWidget() or view.dialog, Qt.Key.Key_3)
    idle(qtbot, window, lambda: len(repo.decisions()) == 1 and not view.busy)
    [mark] = repo.decisions()
    assert mark.target_id == f"eval/{answer}/harm" and mark.new_value == "major"
    assert mark.case_id == set_id and mark.original_value is None
    assert "UNSAFE (major)" in view.my_grade.text() and view.position == 0
