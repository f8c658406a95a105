"""Grading and agreement views on a fresh database, offscreen."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from tests.expert.conftest import QUESTIONS, make_answers  # noqa: E402

from concord.expert.eval_store import EvalStore  # noqa: E402
from concord.expert.questions import load_question_set  # noqa: E402
from concord.expert.rows import Prediction  # noqa: E402
from concord.services import Services  # noqa: E402
from concord.store.codec import utc_iso, utc_now  # noqa: E402
from concord.ui.agreement_view import AgreementView  # noqa: E402
from concord.ui.grading_view import GradingView  # noqa: E402


@pytest.fixture
def services(tmp_path):  # noqa: ANN001, ANN201
    svc = Services(tmp_path / "ui.sqlite")
    store = EvalStore(svc.repo)
    path = tmp_path / "q.jsonl"
    path.write_text(QUESTIONS, encoding="utf-8")
    set_id, _ = store.import_set(load_question_set(path), str(path), "ann")
    make_answers(store, set_id, temperatures=(0.2,), k=2)
    yield svc
    svc.close()


def test_keyboard_grading_records_decisions(qtbot, services) -> None:  # noqa: ANN001
    view = GradingView(services, user="ann")
    qtbot.addWidget(view)
    view.show()
    view.setFocus()
    assert view.progress.text() == "0/4 graded"
    assert not view.golden.isVisible()
    qtbot.keyClick(view, Qt.Key.Key_L)
    assert view.golden.isVisible() and "48 hours" in view.golden.text()
    first = view.queue.current().answer.answer_id
    view.reason.setText("matches the experts")
    qtbot.keyClick(view, Qt.Key.Key_G)
    qtbot.keyClick(view, Qt.Key.Key_X)
    assert view.progress.text() == "2/4 graded"
    decisions = services.repo.decisions()
    assert [d.new_value for d in decisions] == ["good", "bad"]
    assert decisions[0].target_id == f"eval/{first}/grade"
    assert decisions[0].reason == "matches the experts" and decisions[0].user == "ann"
    assert decisions[0].original_value is None  # no prediction was shown
    qtbot.keyClick(view, Qt.Key.Key_P)
    qtbot.keyClick(view, Qt.Key.Key_P)
    assert view.queue.position == 0 and "your grade: good" in view.meta.text()
    qtbot.keyClick(view, Qt.Key.Key_N)
    assert view.queue.position == 1


def test_blind_mode_hides_the_prediction_and_records_it_when_shown(qtbot, services) -> None:  # noqa: ANN001
    store = EvalStore(services.repo)
    answers = store.answers()
    services.repo.db.execute(
        "INSERT INTO eval_reward_models VALUES ('RM-test', ?, ?, 'ann', ?, 0, 1, 1, '{}', '{}',"
        " '[]')", [store.sets()[0].set_id, utc_iso(utc_now()), "e" * 64])
    services.repo.db.conn.commit()
    store.save_predictions([Prediction(answer_id=a.answer_id, version="RM-test", score=0.8,
                                       grade="good", predicted_at=utc_iso(utc_now()))
                            for a in answers], "ann")
    view = GradingView(services, user="bob")
    qtbot.addWidget(view)
    view.show()
    assert "hidden" in view.prediction.text()
    qtbot.keyClick(view, Qt.Key.Key_B)
    assert "good (0.80)" in view.prediction.text()
    qtbot.keyClick(view, Qt.Key.Key_G)
    decision = services.repo.decisions()[-1]
    assert (decision.original_value, decision.action, decision.blind) == ("good", "accept", False)
    assert decision.shown["reward_model_version"] == "RM-test"


def test_agreement_view_lists_disagreements_on_click(qtbot, services) -> None:  # noqa: ANN001
    grader_a, grader_b = GradingView(services, user="ann"), GradingView(services, user="bob")
    for view, keys in ((grader_a, "GGXX"), (grader_b, "GXXX")):
        qtbot.addWidget(view)
        view.show()
        for key in keys:
            qtbot.keyClick(view, Qt.Key.Key_G if key == "G" else Qt.Key.Key_X)
    view = AgreementView(services)
    qtbot.addWidget(view)
    assert view.annotators.rowCount() == 1
    assert view.annotators.item(0, 2).text() == "cohen"
    view.annotators.cellClicked.emit(0, 0)
    assert view.items.rowCount() == 1
    assert view.items.item(0, 1).text().startswith("eval/EA-")
