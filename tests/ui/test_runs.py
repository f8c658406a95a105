"""Running the panel from the UI: progress, cancel, responsiveness, failures, bad files."""

from __future__ import annotations

import time

from PySide6.QtCore import QElapsedTimer, Qt, QTimer
from PySide6.QtWidgets import QMessageBox
from tests.ui.conftest import USER, demo_record_path
from tests.ui.scripted_outputs import scripted_runtime

from concord.errors import ModelError
from concord.records import load_record
from concord.store import Repository


def _open_imported(window, qtbot) -> str:  # noqa: ANN001
    record = load_record(demo_record_path())
    with Repository.open() as repo:
        repo.save_record(record, USER)
    window.open_record(record.record_id)
    qtbot.waitUntil(lambda: window.case_view.bundle is not None, timeout=10_000)
    return record.record_id


def test_run_shows_progress_and_opens_the_case(make_window, qtbot):  # noqa: ANN001
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


def test_cancel_stops_a_scripted_run(make_window, qtbot):  # noqa: ANN001
    window = make_window(runtime_factory=lambda svc, m: scripted_runtime(delay=0.4))
    _open_imported(window, qtbot)
    panel = window.case_view.run_panel
    with qtbot.waitSignal(window.runner.progress, timeout=10_000):
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "anaesthetist" in panel.bars, timeout=10_000)
    started = time.monotonic()
    with qtbot.waitSignal(window.run_ended, timeout=3_000) as signal:
        qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)
    assert signal.args == ["cancelled"]
    # the worker itself stops at its next model call: well within a few seconds
    qtbot.waitUntil(lambda: not window.runner.worker_busy, timeout=3_000)
    assert time.monotonic() - started < 3.0
    assert panel.run_button.isEnabled() and not panel.cancel_button.isEnabled()
    with Repository.open() as repo:
        assert repo.list_cases() == []


def test_ui_stays_responsive_during_a_run(make_window, qtbot):  # noqa: ANN001
    """Event-loop latency probe: a 10 ms timer must keep firing while the model 'thinks'."""
    window = make_window(runtime_factory=lambda svc, m: scripted_runtime(delay=0.15))
    _open_imported(window, qtbot)
    gaps: list[int] = []
    clock = QElapsedTimer()
    clock.start()
    last = [clock.elapsed()]

    def tick() -> None:
        now = clock.elapsed()
        gaps.append(now - last[0])
        last[0] = now

    probe = QTimer()
    probe.setInterval(10)
    probe.timeout.connect(tick)
    probe.start()
    with qtbot.waitSignal(window.run_ended, timeout=60_000):
        window.run_current("")
    probe.stop()
    assert len(gaps) > 50
    assert max(gaps) < 250, f"event loop blocked for {max(gaps)} ms"


def test_failing_model_is_a_message_not_a_crash(make_window, qtbot):  # noqa: ANN001
    def broken(svc, model):  # noqa: ANN001, ANN202
        raise ModelError("model file has the wrong hash", subject="bad.gguf")

    window = make_window(runtime_factory=broken)
    _open_imported(window, qtbot)
    with qtbot.waitSignal(window.run_ended, timeout=10_000) as signal:
        window.run_current("")
    assert signal.args == ["failed"]
    banner = window.case_view.banner
    assert banner.isVisible() and "bad.gguf: model file has the wrong hash" in banner.text()
    assert window.case_view.run_panel.run_button.isEnabled()


def test_bad_file_import_shows_a_clear_message(make_window, qtbot, tmp_path):  # noqa: ANN001
    bad = tmp_path / "broken.json"
    bad.write_text("{not json", encoding="utf-8")
    good = tmp_path / "ok.txt"
    good.write_text("Patient with K+ 6.3 mmol/L\n", encoding="utf-8")
    window = make_window()
    window.import_files([bad, good, tmp_path / "missing.pdf"])
    qtbot.waitUntil(lambda: window.findChild(QMessageBox, "errorBox") is not None,
                    timeout=10_000)
    box = window.findChild(QMessageBox, "errorBox")
    assert "broken.json" in box.text() and "missing.pdf" in box.text()
    qtbot.waitUntil(lambda: len(window.worklist.model.rows) == 1, timeout=10_000)
    assert window.worklist.model.rows[0].name
