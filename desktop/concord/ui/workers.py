"""Long model jobs off the UI thread: long work is a generator, and the UI thread never
waits on a model.

`JobRunner` (UI thread) owns one QThread with one `_JobWorker`. The worker keeps its OWN
`Services` (own SQLite connection, own loaded runtimes, reused across jobs) created in that
thread; it runs one job at a time — a Qt-free function of a `JobContext`
(`concord.workbench.model_jobs`) — forwards the job's progress by signal and hands the UI
thread only the job's small result (a case id, a run id, counts). `PanelRunner` is the
runner of the agent panel (`run_panel`); the QA review and answer grading pages share one
more runner for ASTRID judging and EVAL answer generation.

Cancel sets a thread-safe flag that jobs read between steps (`should_stop`), and that the
job context's runtime wrapper reads before every generation, so a job stops at the next model
call. A generation already under way is not interrupted (llama.cpp has no hook for it);
the UI treats the job as cancelled at once and ignores whatever the worker finishes.
"""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, QThread, Signal, Slot

from concord.errors import Cancelled
from concord.pipeline import PanelSettings
from concord.services import Services
from concord.workbench.model_jobs import (
    Job,
    JobContext,
    RuntimeFactory,
    default_runtime_factory,
    panel_job,
)


class _JobWorker(QObject):
    progress = Signal(int, object)  # job id, progress event
    finished = Signal(int, object)  # job id, the job's result
    failed = Signal(int, object)  # job id, exception
    cancelled = Signal(int)
    idle = Signal()

    def __init__(self, runtime_factory: RuntimeFactory) -> None:
        super().__init__()
        self.runtime_factory = runtime_factory
        self.stop_flag = threading.Event()
        self._services: Services | None = None

    @Slot(int, object)
    def run(self, job_id: int, job: Job) -> None:
        try:
            if self._services is None:
                self._services = Services(ui=True)
            context = JobContext(
                self._services,
                self.runtime_factory,
                self.stop_flag.is_set,
                lambda event: self.progress.emit(job_id, event),
            )
            result = job(context)
        except Cancelled:
            self.cancelled.emit(job_id)
        except BaseException as exc:
            self.failed.emit(job_id, exc)
        else:
            self.finished.emit(job_id, result)
        finally:
            self.idle.emit()

    @Slot()
    def close(self) -> None:
        if self._services is not None:
            self._services.close()
            self._services = None


class JobRunner(QObject):
    """One job at a time, in its own thread. Signals arrive on the UI thread."""

    progress = Signal(object)  # the job's progress event
    finished = Signal(object)  # the job's result
    failed = Signal(object)  # exception
    cancelled = Signal()
    busy_changed = Signal(bool)

    _start = Signal(int, object)
    _close = Signal()

    def __init__(
        self,
        runtime_factory: RuntimeFactory = default_runtime_factory,
        parent: QObject | None = None,
        *,
        name: str = "concord-jobs",
    ) -> None:
        super().__init__(parent)
        self._thread = QThread()
        self._thread.setObjectName(name)
        self._worker = _JobWorker(runtime_factory)
        self._worker.moveToThread(self._thread)
        self._start.connect(self._worker.run)
        self._close.connect(self._worker.close)
        self._worker.progress.connect(self._on_progress)
        self._worker.finished.connect(self._on_finished)
        self._worker.failed.connect(self._on_failed)
        self._worker.cancelled.connect(self._on_cancelled)
        self._worker.idle.connect(self._on_idle)
        self._job_id = 0
        self._active: int | None = None  # the job the UI is following
        self._worker_busy = False
        self._thread.start()

    @property
    def runtime_factory(self) -> RuntimeFactory:
        return self._worker.runtime_factory

    @runtime_factory.setter
    def runtime_factory(self, factory: RuntimeFactory) -> None:
        self._worker.runtime_factory = factory

    @property
    def running(self) -> bool:
        """A job the UI is following (not one that is still winding down after Cancel)."""
        return self._active is not None

    @property
    def worker_busy(self) -> bool:
        return self._worker_busy

    def start_job(self, job: Job) -> None:
        if self._worker_busy:
            raise RuntimeError("a run is still in progress or stopping")
        self._job_id += 1
        self._active = self._job_id
        self._worker_busy = True
        self._worker.stop_flag.clear()
        self.busy_changed.emit(True)
        self._start.emit(self._job_id, job)

    def cancel(self) -> None:
        """Stop at the next step; the UI stops following the job at once."""
        if self._active is None:
            return
        self._worker.stop_flag.set()
        self._active = None
        self.cancelled.emit()

    def _current(self, job_id: int) -> bool:
        return job_id == self._active

    @Slot(int, object)
    def _on_progress(self, job_id: int, event: object) -> None:
        if self._current(job_id):
            self.progress.emit(event)

    @Slot(int, object)
    def _on_finished(self, job_id: int, result: object) -> None:
        if self._current(job_id):
            self._active = None
            self.finished.emit(result)

    @Slot(int, object)
    def _on_failed(self, job_id: int, error: BaseException) -> None:
        if self._current(job_id):
            self._active = None
            self.failed.emit(error)

    @Slot(int)
    def _on_cancelled(self, job_id: int) -> None:
        if self._current(job_id):
            self._active = None
            self.cancelled.emit()

    @Slot()
    def _on_idle(self) -> None:
        self._worker_busy = False
        self.busy_changed.emit(False)

    def shutdown(self, wait_ms: int = 30_000) -> None:
        if self._thread.isRunning():
            self._worker.stop_flag.set()
            self._close.emit()
            self._thread.quit()
            self._thread.wait(wait_ms)


class PanelRunner(JobRunner):
    """The agent panel's runner: progress is a RunEvent, the result a case id."""

    def __init__(
        self,
        runtime_factory: RuntimeFactory = default_runtime_factory,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(runtime_factory, parent, name="concord-panel")
        self.record_id: str | None = None  # the record of the run under way

    def start(
        self, record_id: str, *, model: str | None, settings: PanelSettings, user: str
    ) -> None:
        self.start_job(panel_job(record_id, model, settings, user))
        self.record_id = record_id

    @Slot()
    def _on_idle(self) -> None:
        self.record_id = None
        super()._on_idle()
