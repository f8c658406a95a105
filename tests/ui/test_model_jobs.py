"""Starting an ASTRID judge run and EVAL answer generation from their pages: the real
widgets, the window's job runner (its own thread and Services) and a scripted runtime."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt

from concord.astrid.load import load_items
from concord.astrid.store import AstridStore
from concord.errors import ModelError
from concord.eval.eval_store import EvalStore
from concord.eval.questions import load_question_set
from concord.llm.runtime import GenerationRequest
from concord.llm.scripted import ScriptedRuntime
from concord.store import Repository
from tests.astrid.helpers import DEMO, rule_judge
from tests.eval.helpers import GOOD, QUESTIONS, scripted_answers
from tests.ui.helpers import idle
from tests.ui.test_grading_view import open_grading
from tests.ui.test_qa_page import open_qa, texts

N_ITEMS = 2


def judge_runtime(svc, model):
    return ScriptedRuntime(rule_judge(), model_name="scripted-judge")


def answer_runtime(svc, model):
    return ScriptedRuntime(scripted_answers, model_name="scripted-answers")


def broken_runtime(svc, model):
    def crash(request: GenerationRequest) -> str:
        raise ModelError("the model process stopped", subject="broken-model")

    return ScriptedRuntime(crash, model_name="broken-model")


@pytest.fixture
def qa_set(repo: Repository) -> str:
    """A QA set that has not been judged."""
    set_id, _ = AstridStore(repo).save_set(
        load_items(DEMO)[:N_ITEMS], name="demo", source="demo", user="t"
    )
    return set_id


@pytest.fixture
def question_set(repo: Repository, tmp_path) -> str:
    """A question set with golden answers and no generated answer."""
    path = tmp_path / "q.jsonl"
    path.write_text(QUESTIONS, encoding="utf-8")
    set_id, _ = EvalStore(repo).import_set(load_question_set(path), str(path), "ann")
    return set_id


def jobs_idle(qtbot, window, until=lambda: True) -> None:
    idle(qtbot, window, lambda: not window.jobs.worker_busy and until())


# -- ASTRID ---------------------------------------------------------------------------------


def test_judge_button_runs_the_judge_and_shows_the_new_run(
    make_window, qa_set, qtbot, repo
) -> None:
    window = make_window(runtime_factory=judge_runtime)
    view = open_qa(qtbot, window)
    assert view.session.run is None and "No judge run on this set yet" in view.banner.text()
    button = view.judge.start_button
    assert button.isEnabled() and button.text() == "Judge this QA set (Ctrl+J)"
    assert view.judge.model_combo.count() >= 1  # the model store's judge models
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert not button.isEnabled() and view.judge.cancel_button.isEnabled()
    jobs_idle(qtbot, window, lambda: view.session is not None and view.session.run is not None)
    run = view.session.run
    assert run.model_name == "scripted-judge" and run.set_id == qa_set
    assert AstridStore(repo).run_ids(qa_set) == [run.run_id]
    assert view.choices[view.run_box.currentIndex()].run_id == run.run_id
    assert any("judge: " in t for t in texts(view))
    assert view.progress_label.text().startswith("Your progress")
    assert run.run_id in view.judge.status.text() and view.banner.isHidden()
    assert button.isEnabled() and not view.judge.cancel_button.isEnabled()


def test_ctrl_j_judges_and_a_failing_model_is_a_message(make_window, qa_set, qtbot, repo) -> None:
    window = make_window(runtime_factory=broken_runtime)
    view = open_qa(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)
    assert view.judging
    jobs_idle(qtbot, window, lambda: not view.judging)
    assert view.banner.isVisible()
    assert "The judge run failed" in view.banner.text()
    assert "the model process stopped" in view.banner.text()
    assert "failed" in view.judge.status.text()
    assert AstridStore(repo).run_ids(qa_set) == []
    assert view.judge.start_button.isEnabled()
    window.jobs.runtime_factory = judge_runtime  # the user fixes the model and tries again
    qtbot.mouseClick(view.judge.start_button, Qt.MouseButton.LeftButton)
    jobs_idle(qtbot, window, lambda: view.session.run is not None)
    assert len(AstridStore(repo).run_ids(qa_set)) == 1


def test_cancel_stops_the_judge_and_stores_nothing(make_window, qa_set, qtbot, repo) -> None:
    started, release = threading.Event(), threading.Event()
    judge = rule_judge()

    def slow(request: GenerationRequest) -> str:
        started.set()
        release.wait(10)
        return judge(request)

    window = make_window(runtime_factory=lambda svc, model: ScriptedRuntime(slow))
    view = open_qa(qtbot, window)
    qtbot.mouseClick(view.judge.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(started.is_set, timeout=10_000)
    qtbot.mouseClick(view.judge.cancel_button, Qt.MouseButton.LeftButton)
    assert not view.judging and "cancelled" in view.judge.status.text()
    assert not view.judge.start_button.isEnabled()  # the model call is still under way
    release.set()
    jobs_idle(qtbot, window)
    assert view.judge.start_button.isEnabled()
    assert AstridStore(repo).run_ids(qa_set) == []


# -- EVAL -----------------------------------------------------------------------------------


def test_generate_button_makes_answers_and_the_queue_shows_them(
    make_window, question_set, qtbot, repo
) -> None:
    window = make_window(runtime_factory=answer_runtime)
    view = open_grading(qtbot, window)
    assert not view.state.items and "No generated answers" in view.banner.text()
    button = view.generate.start_button
    assert button.isEnabled() and button.text() == "Generate answers (Ctrl+G)"
    view.k_box.setValue(2)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert not button.isEnabled()
    jobs_idle(qtbot, window, lambda: view.state is not None and len(view.state.items) == 4)
    assert len(EvalStore(repo).answers()) == 4
    item = view.current()
    assert item is not None and any(item.answer.text.startswith(g) for g in GOOD.values())
    assert view.progress.text().endswith("0 / 4 answers graded")
    assert view.buttons["good"].isEnabled() and view.banner.isHidden()
    assert "4 new answer(s)" in view.generate.status.text()
    assert button.isEnabled()


def test_ctrl_g_with_a_failing_model_shows_a_message(
    make_window, question_set, qtbot, repo
) -> None:
    window = make_window(runtime_factory=broken_runtime)
    view = open_grading(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    assert view.generating
    jobs_idle(qtbot, window, lambda: not view.generating)
    idle(qtbot, window)  # the reload after the failure
    assert view.banner.isVisible() and "Answer generation failed" in view.banner.text()
    assert "the model process stopped" in view.banner.text()
    assert EvalStore(repo).answers() == []
    assert view.generate.start_button.isEnabled()
