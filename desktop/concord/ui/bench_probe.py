"""How long the Qt event loop is blocked while work runs the way the UI runs it.

`run_with_event_loop(work)` runs `work(emit)` in the application's `JobRunner` (the worker
thread that runs a panel from the window), which forwards every `emit(event)` to the UI
thread through a queued signal, and meanwhile lets the UI thread's event loop turn with a
precise 5 ms timer. The longest gap between two ticks, minus the interval, is the longest
the event loop could not react: the stall a clinician would feel as a frozen window.

Used by `concord bench` (through a lazy import in the command layer) on a real-model run.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QEventLoop, QObject, Qt, QTimer, Slot

from concord.ui.workers import JobRunner

TICK_MS = 5
Emit = Callable[[object], None]
_app: QCoreApplication | None = None


def _application() -> QCoreApplication:
    """The running Qt application, else a QApplication (offscreen without a display)."""
    global _app
    existing = QCoreApplication.instance()
    if existing is not None:
        return existing
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    _app = QApplication([sys.argv[0] if sys.argv else "concord"])
    return _app


class _Watch(QObject):
    """Lives on the UI thread: times the ticks and receives the job's outcome."""

    def __init__(self, loop: QEventLoop) -> None:
        super().__init__()
        self._loop = loop
        self.last = time.perf_counter()
        self.max_gap = 0.0
        self.outcome: tuple[bool, Any] | None = None

    @Slot()
    def tick(self) -> None:
        now = time.perf_counter()
        self.max_gap = max(self.max_gap, now - self.last)
        self.last = now

    @Slot(object)
    def done(self, result: object) -> None:
        self.outcome = (True, result)
        self._loop.quit()

    @Slot(object)
    def failed(self, error: object) -> None:
        self.outcome = (False, error)
        self._loop.quit()


def run_with_event_loop(work: Callable[[Emit], Any]) -> tuple[Any, float]:
    """(work's result, the longest the event loop was blocked in ms). The work runs in the
    application's own `JobRunner`, its progress reaching the UI thread by queued signal;
    the work's exception, if any, is raised here on the calling (UI) thread."""
    _application()
    loop = QEventLoop()
    watch = _Watch(loop)
    runner = JobRunner(name="concord-bench")
    runner.finished.connect(watch.done)
    runner.failed.connect(watch.failed)
    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.setInterval(TICK_MS)
    timer.timeout.connect(watch.tick)
    timer.start()
    watch.last = time.perf_counter()
    runner.start_job(lambda ctx: work(ctx.progress))
    try:
        loop.exec()
    finally:
        timer.stop()
        runner.shutdown()
    watch.tick()
    stall_ms = max(0.0, watch.max_gap * 1000.0 - TICK_MS)
    if watch.outcome is None:
        raise RuntimeError("the event loop stopped before the work finished")
    ok, value = watch.outcome
    if not ok:
        raise value
    return value, stall_ms
