"""Running the agent panel off the UI thread (STYLE rule 7).

`PanelRunner` (UI thread) owns one QThread with one `_PanelWorker`. The worker keeps its
OWN `Services` (own SQLite connection, own loaded runtimes, reused across runs) created in
that thread; it runs the `run_panel` generator, turns each RunEvent into a `progress`
signal, and saves the finished case itself, so the UI thread only ever receives a case id.

Cancel sets a thread-safe flag that `run_panel` reads between steps (`should_stop`), and
that the runtime wrapper below reads before every generation, so a run stops at the next
model call. A generation already under way is not interrupted (llama.cpp has no hook for
it); the UI treats the run as cancelled at once and ignores whatever the worker finishes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, QThread, Signal, Slot

from concord.errors import Cancelled
from concord.llm.runtime import Generation, GenerationRequest, Runtime
from concord.pipeline import PanelSettings, RunEvent, run_panel
from concord.services import Services

RuntimeFactory = Callable[[Services, str | None], Runtime]


def default_runtime_factory(services: Services, model: str | None) -> Runtime:
    return services.runtime(model)


class _StoppableRuntime:
    """Wraps a runtime: refuses to start a generation once cancel was asked for."""

    def __init__(self, inner: Runtime, should_stop: Callable[[], bool], subject: str) -> None:
        self._inner = inner
        self._should_stop = should_stop
        self._subject = subject
        self.model_name = inner.model_name
        self.model_sha256 = inner.model_sha256

    def generate(self, request: GenerationRequest) -> Generation:
        if self._should_stop():
            raise Cancelled("run cancelled by the user", subject=self._subject)
        return self._inner.generate(request)

    def close(self) -> None:  # the Services cache owns the runtime
        pass


@dataclass(frozen=True)
class RunRequest:
    run_id: int
    record_id: str
    model: str | None
    settings: PanelSettings
    user: str


class _PanelWorker(QObject):
    progress = Signal(int, object)  # run id, RunEvent
    finished = Signal(int, str)  # run id, case id
    failed = Signal(int, object)  # run id, exception
    cancelled = Signal(int)
    idle = Signal()

    def __init__(self, runtime_factory: RuntimeFactory) -> None:
        super().__init__()
        self.runtime_factory = runtime_factory
        self.stop_flag = threading.Event()
        self._services: Services | None = None

    @Slot(object)
    def run(self, request: RunRequest) -> None:
        try:
            self._run(request)
        except Cancelled:
            self.cancelled.emit(request.run_id)
        except BaseException as exc:  # noqa: BLE001 - shown by the UI
            self.failed.emit(request.run_id, exc)
        finally:
            self.idle.emit()

    def _run(self, request: RunRequest) -> None:
        if self._services is None:
            self._services = Services()
        svc = self._services
        stop = self.stop_flag.is_set
        record = svc.repo.get_record(request.record_id)
        self.progress.emit(request.run_id, RunEvent("load", "loading the model", 0, 1))
        runtime = _StoppableRuntime(self.runtime_factory(svc, request.model), stop, record.name)
        if stop():
            raise Cancelled("run cancelled by the user", subject=record.name)
        case = None
        for event in run_panel(record, runtime, profiles=svc.profiles, screen=svc.screen,
                               lexicon=svc.lexicon, config=svc.config,
                               settings=request.settings, should_stop=stop):
            self.progress.emit(request.run_id, event)
            if event.case is not None:
                case = event.case
        if case is None:
            raise Cancelled("the run ended without a case", subject=record.name)
        svc.repo.save_case(case, request.user)
        self.finished.emit(request.run_id, case.case_id)

    @Slot()
    def close(self) -> None:
        if self._services is not None:
            self._services.close()
            self._services = None


class PanelRunner(QObject):
    """One panel run at a time, in its own thread. Signals arrive on the UI thread."""

    progress = Signal(object)  # RunEvent
    finished = Signal(str)  # case id
    failed = Signal(object)  # exception
    cancelled = Signal()
    busy_changed = Signal(bool)

    _start = Signal(object)
    _close = Signal()

    def __init__(self, runtime_factory: RuntimeFactory = default_runtime_factory,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread = QThread()
        self._thread.setObjectName("concord-panel")
        self._worker = _PanelWorker(runtime_factory)
        self._worker.moveToThread(self._thread)
        self._start.connect(self._worker.run)
        self._close.connect(self._worker.close)
        self._worker.progress.connect(self._on_progress)
        self._worker.finished.connect(self._on_finished)
        self._worker.failed.connect(self._on_failed)
        self._worker.cancelled.connect(self._on_cancelled)
        self._worker.idle.connect(self._on_idle)
        self._run_id = 0
        self._active: int | None = None  # the run the UI is following
        self._worker_busy = False
        self.record_id: str | None = None
        self._thread.start()

    @property
    def runtime_factory(self) -> RuntimeFactory:
        return self._worker.runtime_factory

    @runtime_factory.setter
    def runtime_factory(self, factory: RuntimeFactory) -> None:
        self._worker.runtime_factory = factory

    @property
    def running(self) -> bool:
        """A run the UI is following (not one that is still winding down after Cancel)."""
        return self._active is not None

    @property
    def worker_busy(self) -> bool:
        return self._worker_busy

    def start(self, record_id: str, *, model: str | None, settings: PanelSettings,
              user: str) -> None:
        if self._worker_busy:
            raise RuntimeError("a run is still in progress or stopping")
        self._run_id += 1
        self._active = self._run_id
        self._worker_busy = True
        self.record_id = record_id
        self._worker.stop_flag.clear()
        self.busy_changed.emit(True)
        self._start.emit(RunRequest(self._run_id, record_id, model, settings, user))

    def cancel(self) -> None:
        """Stop at the next step; the UI stops following the run at once."""
        if self._active is None:
            return
        self._worker.stop_flag.set()
        self._active = None
        self.cancelled.emit()

    def _current(self, run_id: int) -> bool:
        return run_id == self._active

    @Slot(int, object)
    def _on_progress(self, run_id: int, event: RunEvent) -> None:
        if self._current(run_id):
            self.progress.emit(event)

    @Slot(int, str)
    def _on_finished(self, run_id: int, case_id: str) -> None:
        if self._current(run_id):
            self._active = None
            self.finished.emit(case_id)

    @Slot(int, object)
    def _on_failed(self, run_id: int, error: BaseException) -> None:
        if self._current(run_id):
            self._active = None
            self.failed.emit(error)

    @Slot(int)
    def _on_cancelled(self, run_id: int) -> None:
        if self._current(run_id):
            self._active = None
            self.cancelled.emit()

    @Slot()
    def _on_idle(self) -> None:
        self._worker_busy = False
        self.record_id = None
        self.busy_changed.emit(False)

    def shutdown(self, wait_ms: int = 30_000) -> None:
        if self._thread.isRunning():
            self._worker.stop_flag.set()
            self._close.emit()
            self._thread.quit()
            self._thread.wait(wait_ms)
