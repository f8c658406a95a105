"""The llama.cpp runtime in a child process, so a native crash ends that process only.

A damaged or hostile GGUF can crash llama.cpp with a segmentation fault; in-process, that
would take the application and the database writer with it. `IsolatedRuntime` verifies
the file's SHA-256 in the parent (before any child exists), then starts
`python -m concord.llm.isolated` and talks to it over its stdin/stdout with one JSON
object per line. The child holds the model and its saved record-prefix KV state, so
prefix reuse works exactly as in-process; each request costs one JSON round trip.

While it works, the child reports its progress on the same pipe (a `{"progress": ...}`
line at most once a second: prompt tokens evaluated, tokens written, steps of a long
evaluation; `concord.llm.watchdog`). The parent's `ProgressWatch` stops the child only when
nothing has moved for `timeout` seconds, and says what it measured ("no token for 120 s
after 812 tokens at 3.1 tok/s"): a slow model that is still writing is never killed.

If the child dies (a signal, an exit) or stops making progress, the parent raises
ModelError naming what happened and the last line the child wrote to stderr; the next
request starts a fresh child (the hash is verified again, from the per-process cache when
the file is unchanged).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from dataclasses import asdict
from importlib import import_module
from pathlib import Path
from typing import IO, Any

from concord import errors
from concord.errors import Cancelled, ModelError
from concord.llm.registry import ModelEntry, verify_file
from concord.llm.runtime import (
    FinishReason,
    Generation,
    GenerationRequest,
    StopCheck,
    takes_added_requests,
)
from concord.llm.watchdog import DEFAULT_TIMEOUT_S, Progress, ProgressWatch

DEFAULT_LOAD_TIMEOUT = 300.0  # seconds: loading is one native call, with no progress to report
STOP_GRACE = 5.0
DEFAULT_FACTORY = "concord.llm.llama_cpp_runtime:LlamaCppRuntime"
CANCEL_POLL = 0.2  # seconds between checks of `should_stop` while the child decodes
_EOF = object()
BATCH_OPS = frozenset({"add", "end"})  # a batch's requests added, the batch ended


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "unknown signal"
        return f"signal {-code}, {name}"
    return f"exit code {code}"


class IsolatedRuntime:
    """Runtime protocol over a child process running LlamaCppRuntime (or `factory`).
    `timeout`: seconds the child may go without progress while it answers."""

    def __init__(
        self,
        entry: ModelEntry,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        load_timeout: float = DEFAULT_LOAD_TIMEOUT,
        factory: str = DEFAULT_FACTORY,
        **opts: Any,
    ) -> None:
        self.entry = entry
        self.model_name = entry.name
        self.model_sha256 = entry.sha256
        self.timeout = timeout
        self._answering = ProgressWatch(timeout)
        self.watch = self._answering  # the watch of what the child does now (the backstop reads it)
        self.load_timeout = load_timeout
        self.factory = factory
        opts.setdefault("n_ctx", entry.n_ctx)
        opts.setdefault("n_gpu_layers", entry.n_gpu_layers)
        self.opts = opts
        self.parallel = 1  # what the child's runtime decodes together (from its load reply)
        self._proc: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[object] = queue.Queue()
        self._stderr: IO[bytes] | None = None
        self._lock = threading.Lock()
        self.restarts = 0
        self._start()  # fail now, not at the first request, on a bad file

    # -- child lifecycle -----------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def _start(self) -> None:
        path = self.entry.resolved_path()
        verify_file(path, size=self.entry.size, sha256=self.entry.sha256)
        stat = path.stat()
        if self._stderr is not None:
            self._stderr.close()
        # The child's stderr, kept for error messages; it lives as long as the child.
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115
        env = dict(os.environ)
        # The child imports what the parent can (as multiprocessing's spawn does).
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "concord.llm.isolated"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=env,
        )
        self._lines = queue.Queue()
        threading.Thread(
            target=self._pump,
            args=(self._proc.stdout, self._lines),
            name=f"isolated-{self._proc.pid}",
            daemon=True,
        ).start()
        self.watch = ProgressWatch(self.load_timeout)  # loading reports no progress
        try:
            reply = self._load(path, stat)
        finally:
            self.watch = self._answering
        self.parallel = int(reply.get("parallel", 1))

    def _load(self, path: Path, stat: os.stat_result) -> dict[str, Any]:
        return self._call(
            {
                "op": "load",
                "path": str(path),
                "sha256": self.entry.sha256,
                "size": stat.st_size,
                "mtime_ns": stat.st_mtime_ns,
                "model_name": self.entry.name,
                "factory": self.factory,
                "opts": self.opts,
            },
            self.watch,
            what="loading the model",
        )

    @staticmethod
    def _pump(stream: IO[bytes] | None, lines: queue.Queue[object]) -> None:
        assert stream is not None
        for line in iter(stream.readline, b""):
            lines.put(line)
        lines.put(_EOF)

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(0)
            text = self._stderr.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return lines[-1][:300] if lines else ""

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=STOP_GRACE)
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def _died(self, what: str) -> ModelError:
        proc = self._proc
        code = None
        if proc is not None:
            try:
                code = proc.wait(timeout=STOP_GRACE)
            except subprocess.TimeoutExpired:
                code = None
        tail = self._stderr_tail()
        self._kill()
        detail = f"; last output: {tail}" if tail else ""
        return ModelError(
            f"model process ended unexpectedly ({_describe_exit(code)}) while {what}; "
            f"the application is unaffected{detail}",
            subject=self.model_name,
        )

    # -- protocol ------------------------------------------------------------------------

    def _send(self, message: dict[str, Any], *, what: str) -> None:
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        try:
            proc.stdin.write(json.dumps(message).encode("utf-8") + b"\n")
            proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._died(what) from None

    def _reply(
        self,
        watch: ProgressWatch,
        *,
        what: str,
        should_stop: StopCheck | None = None,
    ) -> dict[str, Any]:
        """The child's next reply, while `watch` sees it make progress (its progress lines
        are read on the way). While waiting, `should_stop()` is asked every CANCEL_POLL s;
        when it says stop, the child is told to cancel (once) and its reply (Cancelled) is
        awaited as usual."""
        cancel_sent = False
        while True:
            remaining = watch.remaining()
            wait = remaining if should_stop is None else min(remaining, CANCEL_POLL)
            try:
                line = self._lines.get(timeout=max(0.0, wait))
            except queue.Empty:
                if watch.remaining() > 0:
                    if not cancel_sent and should_stop is not None and should_stop():
                        self._send({"op": "cancel"}, what=what)
                        cancel_sent = True
                    continue
                stuck = watch.describe()
                self._kill()
                raise ModelError(
                    f"model process was stopped while {what}: {stuck}",
                    subject=self.model_name,
                ) from None
            if line is _EOF:
                raise self._died(what)
            assert isinstance(line, bytes)
            try:
                reply = json.loads(line)
            except ValueError:
                continue  # not a protocol line (should not happen: stdout is private)
            if isinstance(reply.get("progress"), dict):
                watch.observe(Progress.from_json(reply["progress"]))
                continue
            watch.answered()
            if reply.get("ok"):
                return dict(reply)
            if what == "loading the model":
                self._kill()
            raise _rebuild_error(reply)

    def _call(self, message: dict[str, Any], watch: ProgressWatch, *, what: str) -> dict[str, Any]:
        watch.start()
        self._send(message, what=what)
        return self._reply(watch, what=what)

    def _ensure_started(self) -> None:
        if self._proc is None or self._proc.poll() is not None:
            if self._proc is not None:
                self._kill()
            self.restarts += 1
            self._start()

    def generate(self, request: GenerationRequest) -> Generation:
        with self._lock:
            self._ensure_started()
            reply = self._call(
                {"op": "generate", "request": asdict(request)}, self.watch, what="generating"
            )
            return _generation(reply["generation"])

    takes_added_requests = True

    def generate_many(
        self, requests: Sequence[GenerationRequest], should_stop: StopCheck | None = None
    ) -> Iterator[tuple[int, Generation]]:
        """The child decodes `requests` together and answers each as it finishes; the
        watch judges the whole batch by its progress. `should_stop` cancels in the child.
        Requests appended while an answer is handled are sent to the child, which starts
        them at its next step; when every request is answered the child is told the batch
        is over (it waits for more until then)."""
        if not requests:
            return
        with self._lock:
            self._ensure_started()
            self.watch.start()
            sent = len(requests)
            self._send(
                {"op": "generate_many", "requests": [asdict(r) for r in requests[:sent]]},
                what="generating",
            )
            answered = 0
            try:
                while answered < sent:
                    reply = self._reply(self.watch, what="generating", should_stop=should_stop)
                    answered += 1
                    yield int(reply["index"]), _generation(reply["generation"])
                    self.watch.answered()  # the caller's time with an answer is not the child's
                    if len(requests) > sent:  # added while the answer was handled
                        added = [asdict(r) for r in requests[sent:]]
                        sent = len(requests)
                        self._send({"op": "add", "requests": added}, what="generating")
                self._end_batch(cancel=False)
            except GeneratorExit:
                # The caller stopped listening: cancel in the child and read its replies to
                # the end, so the next request reads only its own.
                if self._proc is not None:
                    self._end_batch(cancel=answered < sent)
                raise

    def _end_batch(self, *, cancel: bool) -> None:
        """End the batch in the child (`cancel`: stop decoding it) and read its replies up
        to its end: answers nobody waits for any more, then the end, or the error that
        ended it (a cancel, ours or one `should_stop` sent just as the last answer came).
        Every batch's replies are read to their end, so no reply is left for the next
        request to take as its own."""
        try:
            self._send({"op": "cancel" if cancel else "end"}, what="ending a batch")
            while not self._reply(self.watch, what="ending a batch").get("end"):
                pass  # an answer the caller no longer wants
        except errors.ConcordError:
            return  # the batch ended with it (a dead or stuck child was stopped by _reply)

    def close(self) -> None:
        with self._lock:
            proc = self._proc
            if proc is not None and proc.poll() is None and proc.stdin is not None:
                try:
                    proc.stdin.write(b'{"op": "close"}\n')
                    proc.stdin.flush()
                    proc.wait(timeout=STOP_GRACE)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            self._kill()
            if self._stderr is not None:
                self._stderr.close()
                self._stderr = None

    def __del__(self) -> None:  # a forgotten runtime must not leave a child behind
        proc = getattr(self, "_proc", None)
        if proc is not None and proc.poll() is None:
            proc.kill()


def _rebuild_error(reply: dict[str, Any]) -> errors.ConcordError:
    cls = getattr(errors, str(reply.get("kind")), None)
    if not (isinstance(cls, type) and issubclass(cls, errors.ConcordError)):
        cls = ModelError
    return cls(str(reply.get("problem") or "model process failed"), subject=reply.get("subject"))


# -- the child -------------------------------------------------------------------------


def _load(message: dict[str, Any]) -> Any:
    path = Path(message["path"])
    stat = path.stat()
    if (stat.st_size, stat.st_mtime_ns) != (message["size"], message["mtime_ns"]):
        raise ModelError("file changed after its hash was verified; refusing to load", subject=path)
    module, _, name = str(message["factory"]).partition(":")
    factory = getattr(import_module(module), name)
    return factory(path, message["sha256"], model_name=message["model_name"], **message["opts"])


def _error_reply(exc: BaseException) -> dict[str, Any]:
    if isinstance(exc, errors.ConcordError):
        return {
            "ok": False,
            "kind": type(exc).__name__,
            "problem": exc.problem,
            "subject": exc.subject,
        }
    return {"ok": False, "kind": "ModelError", "problem": f"{type(exc).__name__}: {exc}"}


class _Inbox:
    """The child's stdin, read by a thread: requests are queued in order; a cancel request
    sets a flag that the decoding loop checks. The flag is cleared when the next request
    is read (not a request added to a batch), so a late cancel never stops a later
    request."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.cancelled = threading.Event()
        self.closed = False  # the parent closed the pipe
        self._messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream: IO[bytes]) -> None:
        for raw in iter(stream.readline, b""):
            try:
                message = json.loads(raw)
            except ValueError:
                message = {"op": "invalid"}
            if not isinstance(message, dict):
                message = {"op": "invalid"}
            if message.get("op") == "cancel":
                self.cancelled.set()
                continue
            if message.get("op") not in BATCH_OPS:
                self.cancelled.clear()
            self._messages.put(message)
        self._messages.put(None)

    def next(self) -> dict[str, Any] | None:
        return self._messages.get()

    def take(self, timeout: float) -> dict[str, Any] | None:
        """The next message within `timeout` seconds (queue.Empty if none); None at the
        end of the pipe, which stays there for `next`."""
        message = (
            self._messages.get(timeout=timeout) if timeout > 0 else self._messages.get_nowait()
        )
        if message is None:
            self.closed = True
            self._messages.put(None)
        return message


class _BatchFeed:
    """The requests the parent adds to a batch being decoded (`RequestFeed`): appended to
    the batch's list; `block` waits for some, or for the parent's end of the batch."""

    def __init__(self, inbox: _Inbox, requests: list[GenerationRequest]) -> None:
        self._inbox = inbox
        self._requests = requests
        self.ended = False

    def __call__(self, block: bool) -> bool:
        while not self.ended:
            try:
                message = self._inbox.take(CANCEL_POLL if block else 0.0)
            except queue.Empty:
                if not block:
                    return True
                if self._inbox.cancelled.is_set():
                    raise Cancelled("generation cancelled") from None
                continue
            op = None if message is None else message.get("op")
            if op == "add":
                assert message is not None
                self._requests.extend(GenerationRequest(**r) for r in message["requests"])
                if block:
                    return True
            elif op == "end" or message is None:
                self.ended = True
            else:
                raise ModelError(f"request {op!r} arrived while a batch was being decoded")
        return False


class _Out:
    """The child's private stdout: one JSON object a line, written whole."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._lock = threading.Lock()

    def send(self, message: dict[str, Any]) -> None:
        line = json.dumps(message).encode("utf-8") + b"\n"
        with self._lock:
            self._stream.write(line)

    def progress(self, progress: Progress) -> None:
        self.send({"progress": progress.as_json()})


def _report_progress(runtime: Any, out: _Out) -> None:
    """Give the runtime a meter that sends its progress to the parent, if it counts any."""
    if hasattr(runtime, "on_progress"):
        runtime.on_progress = out.progress


def _answers(
    runtime: Any, requests: list[GenerationRequest], inbox: _Inbox
) -> Iterator[tuple[int, Generation]]:
    """Every request of a batch, those the parent adds included, until it ends the batch:
    added ones start at once on a runtime that takes them, else after the others."""
    feed = _BatchFeed(inbox, requests)
    if takes_added_requests(runtime):
        yield from runtime.generate_many(requests, inbox.cancelled.is_set, feed)
        return
    start = 0
    while True:
        batch = requests[start:]
        many = getattr(runtime, "generate_many", None)
        answers: Iterator[tuple[int, Generation]] = (
            many(batch, inbox.cancelled.is_set)
            if many is not None
            else ((i, runtime.generate(r)) for i, r in enumerate(batch))
        )
        for index, generation in answers:
            yield start + index, generation
        start += len(batch)
        if not feed(True):
            return


def _serve(runtime: Any, message: dict[str, Any], inbox: _Inbox, out: _Out) -> None:
    """Answer one generate_many request: a line per finished request, in finishing order,
    until the parent ends the batch; then a line saying it ended (an error reply ends it
    too)."""
    requests = [GenerationRequest(**r) for r in message["requests"]]
    for index, generation in _answers(runtime, requests, inbox):
        out.send({"ok": True, "index": index, "generation": asdict(generation)})
    out.send({"ok": True, "end": True})


def child_main() -> int:
    """Serve load/generate/generate_many/close requests on stdin; answers go to a private
    copy of stdout (the real fd 1 is pointed at stderr so native prints cannot corrupt
    them)."""
    from concord.netguard import install_network_guard

    install_network_guard()
    out = _Out(os.fdopen(os.dup(1), "wb", buffering=0))
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    runtime: Any = None
    inbox = _Inbox(sys.stdin.buffer)
    while (message := inbox.next()) is not None:
        try:
            op = message.get("op")
            if op == "close":
                break
            if op == "load":
                runtime = _load(message)
                _report_progress(runtime, out)
                reply: dict[str, Any] = {"ok": True, "parallel": getattr(runtime, "parallel", 1)}
            elif op == "generate":
                if runtime is None:
                    raise ModelError("no model loaded")
                generation = runtime.generate(GenerationRequest(**message["request"]))
                reply = {"ok": True, "generation": asdict(generation)}
            elif op == "generate_many":
                if runtime is None:
                    raise ModelError("no model loaded")
                _serve(runtime, message, inbox, out)
                continue
            elif op in BATCH_OPS:
                continue  # for a batch that already ended (on an error the parent has)
            else:
                raise ModelError(f"unknown request {op!r}")
        except Exception as exc:  # every failure becomes a reply; the parent raises it
            reply = _error_reply(exc)
        out.send(reply)
    if runtime is not None:
        runtime.close()
    return 0


if __name__ == "__main__":
    sys.exit(child_main())


def _generation(fields: dict[str, Any]) -> Generation:
    """A Generation from the child's JSON reply."""
    return Generation(**{**fields, "finish_reason": FinishReason(fields["finish_reason"])})
