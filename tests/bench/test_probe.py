"""The Qt event-loop probe: work runs off the UI thread, progress reaches the UI thread."""

from __future__ import annotations

import os
import threading
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest

from concord.bench.model_measures import PanelInputs, measure_pipeline
from concord.bench.records import bench_record
from concord.pipeline import PanelSettings
from concord.services import Services
from tests.bench.fakes import SwitchableRuntime

pytest.importorskip("PySide6")


def test_work_runs_in_another_thread_and_reports_a_stall(qapp) -> None:
    from PySide6.QtCore import QTimer

    from concord.ui.bench_probe import run_with_event_loop

    main = threading.get_ident()
    ui_blocked = threading.Event()

    def block_the_ui_thread() -> None:  # a known stall of at least 200 ms
        time.sleep(0.2)
        ui_blocked.set()

    QTimer.singleShot(0, block_the_ui_thread)

    def work(emit):
        for n in range(3):
            emit(n)
        assert ui_blocked.wait(30)  # the stall happened while the probe was watching
        return threading.get_ident()

    worker, stall_ms = run_with_event_loop(work)
    assert worker != main
    assert stall_ms >= 190.0  # the probe saw the stall (sleep guarantees 200 ms, tick 5 ms)


def test_an_error_in_the_work_is_raised_on_the_calling_thread(qapp) -> None:
    from concord.ui.bench_probe import run_with_event_loop

    def work(emit):
        raise ValueError("model failed")

    with pytest.raises(ValueError, match="model failed"):
        run_with_event_loop(work)


def test_pipeline_under_the_probe(qapp) -> None:
    from concord.ui.bench_probe import run_with_event_loop

    svc = Services()
    try:
        inputs = PanelInputs(
            svc.profiles,
            svc.screen,
            svc.lexicon,
            svc.config,
            PanelSettings(judges=1, max_specialists=1),
        )
        result = measure_pipeline(
            SwitchableRuntime(), bench_record(1024).record, inputs, run_with_event_loop
        )
    finally:
        svc.close()
    assert result.stall_ms is not None
    assert result.agents[0] == "anaesthetist" and result.calls >= 2
    assert result.model_seconds <= result.wall_seconds
