"""Running the panel from the UI: progress, cancel, responsiveness, failures, bad files."""

from __future__ import annotations

import threading

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QMessageBox

from concord.errors import ModelError
from concord.llm.runtime import GenerationRequest
from concord.llm.scripted import ScriptedRuntime
from concord.records import load_record
from concord.store import Repository
from tests.fake_agents import answer_for, scripted_runtime
from tests.ui.helpers import USER, demo_record_path


def _open_imported(window, qtbot) -> str:
    record = load_record(demo_record_path())
    with Repository.open() as repo:
        repo.save_record(record, USER)
    window.open_record(record.record_id)
    qtbot.waitUntil(lambda: window.case_view.bundle is not None, timeout=10_000)
    return record.record_id


def test_run_shows_progress_and_opens_the_case(make_window, qtbot):
    window = make_window()
    _open_imported(window, qtbot)
    ended: list[str] = []
    window.run_ended.connect(ended.append)
    with qtbot.waitSignal(window.run_ended, timeout=30_000):
        qtbot.keyClick(window, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    assert ended == ["finished"]
    qtbot.waitUntil(lambda: window.case_view.case is not None, timeout=10_000)
    bars = window.case_view.run_panel.bars
    assert "anaesthetist" in bars and any(k.startswith("spec:") for k in bars)
    assert all(b.value() == b.maximum() for b in bars.values())


def test_cancel_stops_a_scripted_run(make_window, qtbot):
    window = make_window(runtime_factory=lambda svc, m: scripted_runtime(delay=0.4))
    _open_imported(window, qtbot)
    panel = window.case_view.run_panel
    with qtbot.waitSignal(window.runner.progress, timeout=10_000):
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "anaesthetist" in panel.bars, timeout=10_000)
    with qtbot.waitSignal(window.run_ended, timeout=10_000) as signal:
        qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)
    assert signal.args == ["cancelled"]
    # the worker itself stops at its next model call (one 0.4 s scripted call at most)
    qtbot.waitUntil(lambda: not window.runner.worker_busy, timeout=10_000)
    assert panel.run_button.isEnabled() and not panel.cancel_button.isEnabled()
    with Repository.open() as repo:
        assert repo.list_cases() == []


def test_ui_stays_responsive_during_a_run(make_window, qtbot):
    """The event loop keeps turning while the model 'thinks'. Each scripted model call
    waits until the UI thread has handled three more timer events before it answers; a
    call that blocked the UI thread could never see them and fails the run. No wall-clock
    figure is asserted here: the stall in milliseconds is measured by `concord bench`."""
    ticks = [0]
    turned = threading.Condition()
    model_threads: set[int] = set()

    def tick() -> None:
        with turned:
            ticks[0] += 1
            turned.notify_all()

    def respond(request: GenerationRequest) -> str:
        model_threads.add(threading.get_ident())
        with turned:
            seen = ticks[0]
            if not turned.wait_for(lambda: ticks[0] >= seen + 3, timeout=15):
                raise RuntimeError("the UI event loop did not turn while the model ran")
        return answer_for(request)

    window = make_window(runtime_factory=lambda svc, m: ScriptedRuntime(respond))
    _open_imported(window, qtbot)
    probe = QTimer()
    probe.setInterval(5)
    probe.timeout.connect(tick)
    probe.start()
    try:
        with qtbot.waitSignal(window.run_ended, timeout=120_000) as signal:
            window.run_current("")
    finally:
        probe.stop()
    assert signal.args == ["finished"]
    assert model_threads and threading.main_thread().ident not in model_threads


def test_failing_model_is_a_message_not_a_crash(make_window, qtbot):
    def broken(svc, model):
        raise ModelError("model file has the wrong hash", subject="bad.gguf")

    window = make_window(runtime_factory=broken)
    _open_imported(window, qtbot)
    with qtbot.waitSignal(window.run_ended, timeout=10_000) as signal:
        window.run_current("")
    assert signal.args == ["failed"]
    banner = window.case_view.banner
    assert banner.isVisible() and "bad.gguf: model file has the wrong hash" in banner.text()
    assert window.case_view.run_panel.run_button.isEnabled()


def test_bad_file_import_shows_a_clear_message(make_window, qtbot, tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text("{not json", encoding="utf-8")
    good = tmp_path / "ok.txt"
    good.write_text("Patient with K+ 6.3 mmol/L\n", encoding="utf-8")
    window = make_window()
    window.patients.import_files([bad, good, tmp_path / "missing.pdf"])
    qtbot.waitUntil(lambda: window.findChild(QMessageBox, "errorBox") is not None, timeout=10_000)
    box = window.findChild(QMessageBox, "errorBox")
    assert "broken.json" in box.text() and "missing.pdf" in box.text()
    qtbot.waitUntil(lambda: len(window.worklist.model.rows) == 1, timeout=10_000)
    assert window.worklist.model.rows[0].name


def test_the_judges_bar_is_busy_until_the_judges_have_answered(qtbot) -> None:
    from concord.pipeline import RunEvent, Stage
    from concord.ui.run_view import JUDGES, RunPanel

    panel = RunPanel()
    qtbot.addWidget(panel)
    panel.started(2)
    panel.on_event(RunEvent(Stage.ADJUDICATION, "judges proposing matches (2 run(s))", 0, 1))
    bar = panel.bars[JUDGES]
    assert bar.maximum() == 0  # busy: nothing is shown as done that has not happened
    assert not any(key.startswith("judge:") for key in panel.bars)
    panel.on_event(RunEvent(Stage.ADJUDICATION, "judges proposed matches", 1, 1, seconds=1.4))
    assert (bar.value(), bar.maximum(), bar.format()) == (1, 1, "done 1.4 s")
    assert panel.bar_labels[JUDGES].text() == "Judges"
