"""The UI's database thread: one Repository (one SQLite connection) living in a QThread.

Views never call the Repository on the UI thread. They call `DbThread.call(fn, on_ok,
on_error)`; `fn(repo)` runs in the database thread and its result (or the exception) comes
back by a queued signal, where `on_ok(result)` / `on_error(exc)` run on the UI thread.
Requests run one at a time in the order they were made, so a write followed by a read
sees the write. `call` is typed: `on_ok` takes exactly what `fn` returns.
"""

from __future__ import annotations

import itertools
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from PySide6.QtCore import QObject, QThread, Signal, Slot

from concord.store import Repository

T = TypeVar("T")
OnError = Callable[[BaseException], None]
_Request = Callable[[Repository], object]
_Done = Callable[[object], None]


class _DbWorker(QObject):
    done = Signal(int, object)
    failed = Signal(int, object)

    def __init__(self, database: Path | None) -> None:
        super().__init__()
        self._database = database
        self._repo: Repository | None = None

    @Slot(int, object)
    def run(self, request_id: int, fn: _Request) -> None:
        try:
            if self._repo is None:
                self._repo = Repository.open(self._database)
            result = fn(self._repo)
        except BaseException as exc:  # handed to the UI thread, which shows it
            self.failed.emit(request_id, exc)
            return
        self.done.emit(request_id, result)

    @Slot()
    def close(self) -> None:
        if self._repo is not None:
            self._repo.close()
            self._repo = None


class DbThread(QObject):
    """Owner of the database thread; lives on the UI thread."""

    _request = Signal(int, object)
    _close = Signal()
    busy_changed = Signal(bool)

    def __init__(self, database: Path | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread = QThread()
        self._thread.setObjectName("concord-db")
        self._worker = _DbWorker(database)
        self._worker.moveToThread(self._thread)
        self._request.connect(self._worker.run)
        self._close.connect(self._worker.close)
        self._worker.done.connect(self._on_done)
        self._worker.failed.connect(self._on_failed)
        self._pending: dict[int, tuple[_Done | None, OnError | None]] = {}
        self._ids = itertools.count(1)
        self._thread.start()

    @property
    def pending(self) -> int:
        return len(self._pending)

    def call(
        self,
        fn: Callable[[Repository], T],
        on_ok: Callable[[T], None] | None = None,
        on_error: OnError | None = None,
    ) -> int:
        """Run `fn(repo)` in the database thread; `on_ok(result)` or `on_error(exc)` then
        runs on the UI thread. Returns the request's id."""
        request_id = next(self._ids)
        done: _Done | None = None
        if on_ok is not None:
            ok = on_ok

            def done(result: object) -> None:
                ok(result)  # type: ignore[arg-type]  # the result of fn, by construction

        self._pending[request_id] = (done, on_error)
        if len(self._pending) == 1:
            self.busy_changed.emit(True)
        self._request.emit(request_id, fn)
        return request_id

    def _finish(self, request_id: int) -> tuple[_Done | None, OnError | None]:
        callbacks = self._pending.pop(request_id, (None, None))
        if not self._pending:
            self.busy_changed.emit(False)
        return callbacks

    @Slot(int, object)
    def _on_done(self, request_id: int, result: object) -> None:
        on_ok, _ = self._finish(request_id)
        if on_ok is not None:
            on_ok(result)

    @Slot(int, object)
    def _on_failed(self, request_id: int, error: BaseException) -> None:
        _, on_error = self._finish(request_id)
        if on_error is not None:
            on_error(error)
        else:
            traceback.print_exception(error)

    def shutdown(self) -> None:
        if self._thread.isRunning():
            self._close.emit()
            self._thread.quit()
            self._thread.wait(10_000)
