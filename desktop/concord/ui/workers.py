"""Long jobs off the UI thread, all on ONE job thread that holds the window's ONE Services.

`JobHost` (UI thread) owns one QThread with one `_HostWorker`. The worker keeps the
window's `Services` — one SQLite connection and the loaded model runtimes, created in that
thread and reused by every job — and runs the jobs submitted to it one at a time, in the
order they came. So a model is loaded once (one child process) and never decoded by two
jobs at once: on a workstation of a few cores two decoders spinning side by side slow each
other far more than they share (README, "What to expect per patient").

A job is a Qt-free function of a `JobContext` (`concord.workbench.model_jobs`, and the
import and signing jobs of `concord.workbench.jobs`); it reports progress by signal and
hands the UI thread only its small result (a case id, a run id, counts, a signed file).

`JobRunner` is one page's handle on the host: one job at a time per runner, its signals
arriving on the UI thread (progress, finished, failed, cancelled, busy_changed, and
`waiting` when the job must wait behind another page's job). `PanelRunner` is the agent
panel's runner.

Quick jobs are *urgent* (an import, signing a PDF): they never wait for a long model job
to end. A long job passes a checkpoint before every model call, between its steps and as
each answer of a batch is handled (its `should_stop`, asked on the job thread); there the
worker first runs the urgent jobs waiting, provided the database connection has no
transaction open, and then the long job goes on where it was. An urgent job waits at most
one model answer. The model runtime asks the same `should_stop` from its own thread while
it decodes (to cancel mid-batch); that only reads the flag, so a job never runs on a thread
that does not own the connection.

Cancel sets the job's own thread-safe flag, which the job reads at its next checkpoint, so a
job stops at the next model call; a job still waiting is never started. A generation already
under way is not interrupted (llama.cpp has no hook for it): the UI treats the job as
cancelled at once and ignores whatever the worker finishes.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass

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


@dataclass(frozen=True)
class _Submission:
    job_id: int
    job: Job
    stop: threading.Event
    urgent: bool


@dataclass(frozen=True)
class _Held:
    """What the UI thread keeps of a job submitted and not ended."""

    owner: JobRunner
    label: str
    stop: threading.Event


class _HostWorker(QObject):
    """Lives in the job thread: the queue of submissions and the one Services."""

    started = Signal(int)  # job id
    progress = Signal(int, object)  # job id, progress event
    finished = Signal(int, object)  # job id, the job's result
    failed = Signal(int, object)  # job id, exception
    cancelled = Signal(int)  # job id
    ended = Signal(int)  # job id: after finished, failed or cancelled, or never started

    def __init__(self, runtime_factory: RuntimeFactory) -> None:
        super().__init__()
        self.runtime_factory = runtime_factory
        self._lock = threading.Lock()
        self._queue: deque[_Submission] = deque()
        self._services: Services | None = None
        self._in_urgent = False

    def submit(self, submission: _Submission) -> None:
        """Any thread: queue a submission (the host then wakes `pump`)."""
        with self._lock:
            self._queue.append(submission)

    def _take(self, *, urgent_only: bool) -> _Submission | None:
        with self._lock:
            for sub in self._queue:
                if sub.urgent:
                    self._queue.remove(sub)
                    return sub
            if urgent_only or not self._queue:
                return None
            return self._queue.popleft()

    @Slot()
    def pump(self) -> None:
        """Run everything waiting, urgent jobs first, then in the order they came."""
        while (sub := self._take(urgent_only=False)) is not None:
            self._run(sub)

    def _services_for_jobs(self) -> Services:
        if self._services is None:
            self._services = Services(ui=True)
        return self._services

    def _transaction_open(self) -> bool:
        services = self._services
        if services is None or "repo" not in services.__dict__:
            return False
        return bool(services.repo.db.conn.in_transaction)

    def _checkpoint(self) -> None:
        """Between the steps of a long job: run the urgent jobs that are waiting."""
        if self._in_urgent or self._transaction_open():
            return
        self._in_urgent = True
        try:
            while (sub := self._take(urgent_only=True)) is not None:
                self._run(sub)
        finally:
            self._in_urgent = False

    def _run(self, sub: _Submission) -> None:
        job_id = sub.job_id
        if sub.stop.is_set():  # cancelled while it waited: never started
            self.cancelled.emit(job_id)
            self.ended.emit(job_id)
            return
        self.started.emit(job_id)
        job_thread = threading.get_ident()

        def should_stop() -> bool:
            # urgent jobs run here, on the job thread that owns the database connection;
            # a runtime that asks from its own thread (the watchdog's) only reads the flag
            if not sub.urgent and threading.get_ident() == job_thread:
                self._checkpoint()
            return sub.stop.is_set()

        try:
            context = JobContext(
                self._services_for_jobs(),
                self.runtime_factory,
                should_stop,
                lambda event: self.progress.emit(job_id, event),
            )
            result = sub.job(context)
        except Cancelled:
            self.cancelled.emit(job_id)
        except BaseException as exc:
            self.failed.emit(job_id, exc)
        else:
            self.finished.emit(job_id, result)
        finally:
            self.ended.emit(job_id)

    @Slot()
    def close(self) -> None:
        if self._services is not None:
            self._services.close()
            self._services = None


class JobHost(QObject):
    """The window's one job thread and its one Services; lives on the UI thread."""

    _wake = Signal()
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
        self._worker = _HostWorker(runtime_factory)
        self._worker.moveToThread(self._thread)
        self._wake.connect(self._worker.pump)
        self._close.connect(self._worker.close)
        self._worker.started.connect(self._on_started)
        self._worker.progress.connect(self._on_progress)
        self._worker.finished.connect(self._on_finished)
        self._worker.failed.connect(self._on_failed)
        self._worker.cancelled.connect(self._on_cancelled)
        self._worker.ended.connect(self._on_ended)
        self._ids = 0
        self._jobs: dict[int, _Held] = {}  # submitted and not ended
        self._running: list[int] = []  # started and not ended (an urgent job nests in a long one)
        self._thread.start()

    @property
    def runtime_factory(self) -> RuntimeFactory:
        return self._worker.runtime_factory

    @runtime_factory.setter
    def runtime_factory(self, factory: RuntimeFactory) -> None:
        self._worker.runtime_factory = factory

    def submit(self, owner: JobRunner, job: Job, *, urgent: bool, label: str) -> int:
        """Queue `job` for `owner`; its id."""
        self._ids += 1
        job_id = self._ids
        stop = threading.Event()
        self._jobs[job_id] = _Held(owner, label, stop)
        self._worker.submit(_Submission(job_id, job, stop, urgent))
        self._wake.emit()
        return job_id

    def stop(self, job_id: int) -> None:
        if job_id in self._jobs:
            self._jobs[job_id].stop.set()

    def busy_for(self, owner: JobRunner) -> str | None:
        """The label of a job of ANOTHER runner now running or queued before owner's, if any."""
        for held in self._jobs.values():
            if held.owner is not owner:
                return held.label or "another job"
        return None

    @property
    def running(self) -> bool:
        """A job has started and not ended (as the UI thread has heard so far)."""
        return bool(self._running)

    @property
    def thread_running(self) -> bool:
        return self._thread.isRunning()

    def _owner(self, job_id: int) -> JobRunner | None:
        held = self._jobs.get(job_id)
        return None if held is None else held.owner

    @Slot(int)
    def _on_started(self, job_id: int) -> None:
        self._running.append(job_id)

    @Slot(int, object)
    def _on_progress(self, job_id: int, event: object) -> None:
        if (owner := self._owner(job_id)) is not None:
            owner._job_progress(job_id, event)

    @Slot(int, object)
    def _on_finished(self, job_id: int, result: object) -> None:
        if (owner := self._owner(job_id)) is not None:
            owner._job_finished(job_id, result)

    @Slot(int, object)
    def _on_failed(self, job_id: int, error: BaseException) -> None:
        if (owner := self._owner(job_id)) is not None:
            owner._job_failed(job_id, error)

    @Slot(int)
    def _on_cancelled(self, job_id: int) -> None:
        if (owner := self._owner(job_id)) is not None:
            owner._job_cancelled(job_id)

    @Slot(int)
    def _on_ended(self, job_id: int) -> None:
        held = self._jobs.pop(job_id, None)
        if job_id in self._running:
            self._running.remove(job_id)
        if held is not None:
            held.owner._job_ended(job_id)

    def shutdown(self, wait_ms: int = 30_000) -> None:
        if self._thread.isRunning():
            for held in self._jobs.values():
                held.stop.set()
            self._close.emit()
            self._thread.quit()
            self._thread.wait(wait_ms)


class JobRunner(QObject):
    """One page's jobs on the window's job host, one at a time. Signals arrive on the UI
    thread. Without a host of its own (`host=None`) the runner makes and owns one."""

    progress = Signal(object)  # the job's progress event
    finished = Signal(object)  # the job's result
    failed = Signal(object)  # exception
    cancelled = Signal()
    busy_changed = Signal(bool)
    waiting = Signal(str)  # the label of the other job this one waits behind

    def __init__(
        self,
        runtime_factory: RuntimeFactory = default_runtime_factory,
        parent: QObject | None = None,
        *,
        name: str = "concord-jobs",
        host: JobHost | None = None,
        urgent: bool = False,
        label: str = "",
    ) -> None:
        super().__init__(parent)
        self._owns_host = host is None
        self.host = host if host is not None else JobHost(runtime_factory, self, name=name)
        self.urgent = urgent
        self.label = label
        self._submitted: int | None = None  # the job submitted and not ended
        self._active: int | None = None  # the job the UI is following

    @property
    def runtime_factory(self) -> RuntimeFactory:
        return self.host.runtime_factory

    @runtime_factory.setter
    def runtime_factory(self, factory: RuntimeFactory) -> None:
        self.host.runtime_factory = factory

    @property
    def running(self) -> bool:
        """A job the UI is following (not one that is still winding down after Cancel)."""
        return self._active is not None

    @property
    def worker_busy(self) -> bool:
        """This runner's job is waiting, running or stopping."""
        return self._submitted is not None

    def start_job(self, job: Job, label: str = "") -> None:
        if self._submitted is not None:
            raise RuntimeError("a run is still in progress or stopping")
        ahead = None if self.urgent else self.host.busy_for(self)
        job_id = self.host.submit(self, job, urgent=self.urgent, label=label or self.label)
        self._submitted = self._active = job_id
        self.busy_changed.emit(True)
        if ahead is not None:
            self.waiting.emit(ahead)

    def cancel(self) -> None:
        """Stop at the next step; the UI stops following the job at once."""
        if self._active is None:
            return
        self.host.stop(self._active)
        self._active = None
        self.cancelled.emit()

    # called by the host, on the UI thread, for this runner's jobs only ---------------

    def _current(self, job_id: int) -> bool:
        return job_id == self._active

    def _job_progress(self, job_id: int, event: object) -> None:
        if self._current(job_id):
            self.progress.emit(event)

    def _job_finished(self, job_id: int, result: object) -> None:
        if self._current(job_id):
            self._active = None
            self.finished.emit(result)

    def _job_failed(self, job_id: int, error: BaseException) -> None:
        if self._current(job_id):
            self._active = None
            self.failed.emit(error)

    def _job_cancelled(self, job_id: int) -> None:
        if self._current(job_id):
            self._active = None
            self.cancelled.emit()

    def _job_ended(self, job_id: int) -> None:
        if job_id == self._submitted:
            self._submitted = None
            self._on_idle()

    def _on_idle(self) -> None:
        self.busy_changed.emit(False)

    def shutdown(self, wait_ms: int = 30_000) -> None:
        """Stop this runner's job; a runner that owns its host also closes the host."""
        if self._submitted is not None:
            self.host.stop(self._submitted)
        if self._owns_host:
            self.host.shutdown(wait_ms)


class PanelRunner(JobRunner):
    """The agent panel's runner: progress is a RunEvent, the result a case id."""

    def __init__(
        self,
        runtime_factory: RuntimeFactory = default_runtime_factory,
        parent: QObject | None = None,
        *,
        host: JobHost | None = None,
    ) -> None:
        super().__init__(runtime_factory, parent, name="concord-panel", host=host)
        self.record_id: str | None = None  # the record of the run under way

    def start(
        self, record_id: str, *, model: str | None, settings: PanelSettings, user: str
    ) -> None:
        self.start_job(panel_job(record_id, model, settings, user), label="the agent panel's run")
        self.record_id = record_id

    def _on_idle(self) -> None:
        self.record_id = None
        super()._on_idle()
