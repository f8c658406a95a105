"""Batch evaluation over llama.cpp servers: many records, several servers, one DB writer.

`run_batch` is a generator (the CLI prints its events). The calling thread loads each
record, saves it, and puts it on a bounded queue; one worker thread per server takes
records off the queue and runs the panel through a `LlamaServerRuntime` whose first
choice is its own server and whose fall-backs are the others, so a request that fails on
one server (connection refused or reset, timeout, 5xx) is retried on another. The prompt
format is the registered model's own, read from its GGUF when the file is on this
workstation, so a batch and an in-process run of the same model see the same prompts.
Workers only generate: every case is saved by the calling thread. Each saved case records
in `case.batch` which server produced each brief and every request it made.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from concord.domain import UNVERIFIED_MODEL_SHA256, BatchProvenance, BatchRequest, Case, Record
from concord.errors import ConcordError, InputError
from concord.llm.chat_template import TemplateSplit
from concord.llm.server_runtime import (
    DEFAULT_TIMEOUT,
    LlamaServerRuntime,
    normalise_url,
    registered_template,
)
from concord.pipeline import AGENT_STAGES, PanelSettings, RunEvent, final_case
from concord.records.load import record_suffixes
from concord.records.patients import PatientSource, load_patients, plan_patients
from concord.services import Services

DEFAULT_QUEUE_SIZE = 4
POLL_SECONDS = 0.2


@dataclass(frozen=True)
class BatchEvent:
    kind: str  # queued, saved, failed, skipped (a stray file: not a patient), done
    message: str
    path: Path | None = None
    case_id: str | None = None
    servers: tuple[str, ...] = ()
    report: BatchReport | None = None


@dataclass
class BatchReport:
    saved: list[tuple[Path, str]] = field(default_factory=list)  # (file, case id)
    failed: list[tuple[Path, str]] = field(default_factory=list)  # (file, one-line error)
    skipped: list[tuple[Path, str]] = field(default_factory=list)
    """Stray files, not patients: a loose text that names no one, a patient folder's file of
    an unsupported type. They do not make the batch fail."""
    requests_by_server: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failed


def batch_patients(directory: Path) -> list[PatientSource]:
    """The patients of `directory`, as an import of the folder reads them
    (`concord.records.patients`: a record file or a sub-folder per patient, no symbolic link
    followed). InputError when it is not a folder or holds no record file."""
    if not directory.is_dir():
        raise InputError("not a folder", subject=directory)
    plan = plan_patients([directory])
    if not any(source.files for source in plan):
        expected = ", ".join(record_suffixes())
        raise InputError(f"no record files ({expected}) in the folder", subject=directory)
    return plan


@dataclass(frozen=True)
class _Done:
    path: Path
    case: Case | None
    error: str | None
    servers: tuple[str, ...] = ()


def _label_for(event: Any) -> str | None:
    """The runtime label for the generations that follow `event`: the agent whose run
    starts, or 'judge' once an agent has finished (the next calls are adjudication)."""
    if event.agent and event.done < event.total:
        return str(event.agent)
    if event.stage in AGENT_STAGES:
        return "judge"
    return None


def _run_one(
    svc: Services,
    record: Record,
    runtime: LlamaServerRuntime,
    settings: PanelSettings,
    server_models: dict[str, str],
    requested: str = "",
) -> Case:
    first = len(runtime.log)
    runtime.label = "screen"

    def follow(event: RunEvent) -> None:  # label the requests by the stage they serve
        label = _label_for(event)
        if label is not None:
            runtime.label = label

    # A server's model cannot be hashed from here, so no acceptance can cover it: batch
    # cases are silent (stored and compared, never in a review queue or a PDF).
    case = final_case(svc.run_panel(record, runtime, settings, silent=True), follow)
    served = runtime.log[first:]
    by_agent = {s.label: s.server for s in served if s.label != "judge"}
    batch = BatchProvenance(
        brief_servers=by_agent,
        requests=tuple(
            BatchRequest(
                server=s.server,
                label=s.label,
                seconds=s.seconds,
                prompt_tokens=s.prompt_tokens,
                completion_tokens=s.completion_tokens,
                prefix_reused=s.prefix_reused,
                failed_over_from=tuple(s.failed_over_from),
            )
            for s in served
        ),
        server_models={u: m for u, m in server_models.items() if u in set(by_agent.values())}
        or server_models,
        model_verified=False,
        requested_model=requested,
    )
    return case.model_copy(update={"batch": batch})


def _worker(
    svc: Services,
    runtime: LlamaServerRuntime,
    settings: PanelSettings,
    server_models: dict[str, str],
    todo: queue.Queue[tuple[Path, Record] | None],
    done: queue.Queue[_Done],
    should_stop: Callable[[], bool],
    requested: str = "",
) -> None:
    while True:
        item = todo.get()
        if item is None:
            return
        path, record = item
        if should_stop():
            done.put(_Done(path, None, "cancelled"))
            continue
        first = len(runtime.log)
        try:
            case = _run_one(svc, record, runtime, settings, server_models, requested)
        except ConcordError as exc:
            done.put(_Done(path, None, exc.one_line()))
            continue
        except Exception as exc:  # a bug must not hang the batch: report it as a failure
            done.put(_Done(path, None, f"{type(exc).__name__}: {exc}"))
            continue
        servers = tuple(dict.fromkeys(s.server for s in runtime.log[first:]))
        done.put(_Done(path, case, None, servers))


def run_batch(
    directory: Path,
    servers: Sequence[str],
    *,
    svc: Services,
    user: str,
    settings: PanelSettings | None = None,
    queue_size: int = DEFAULT_QUEUE_SIZE,
    model: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_tokens_cap: int | None = None,
    parallel: int = 1,
    should_stop: Callable[[], bool] = lambda: False,
) -> Iterator[BatchEvent]:
    """Run the panel on every record in `directory` over `servers`; yields progress events,
    the last of kind 'done' carrying the BatchReport. `parallel`: a record's specialists
    sent to its server at once (match the servers' slots, `llama-server -np N`)."""
    urls = list(dict.fromkeys(normalise_url(u) for u in servers))
    if not urls:
        raise InputError("no llama.cpp server given")
    if queue_size < 1:
        raise InputError("the queue size must be at least 1")
    plan = batch_patients(Path(directory))
    settings = settings or PanelSettings()
    requested = ""
    template: TemplateSplit | None = None  # the prompt format: from the servers
    if model is not None or svc.models.entries():
        entry = svc.model_entry(model)
        requested = entry.name
        template = registered_template(entry)  # the in-process prompt, if the file is here
    probe = LlamaServerRuntime(urls, timeout=min(timeout, 30.0))
    server_models = probe.server_models()
    # What wrote the answers is what the servers say they run: never the local file's name
    # or hash (the servers may run anything), and marked unverified wherever it is shown.
    reported = ", ".join(sorted(set(server_models.values()))) or "unknown model"
    name = f"{reported} (reported by the llama.cpp server, unverified)"
    sha256 = UNVERIFIED_MODEL_SHA256
    # Load the shared, read-only resources here, not racing in the workers.
    _ = (svc.profiles, svc.screen, svc.lexicon, svc.config, svc.repo)
    svc.keep_versions(svc.resources)  # stored from this thread: the workers only read

    started = time.perf_counter()
    report = BatchReport()
    todo: queue.Queue[tuple[Path, Record] | None] = queue.Queue(maxsize=queue_size)
    done: queue.Queue[_Done] = queue.Queue()
    runtimes = []
    threads = []
    for i, url in enumerate(urls):
        runtime = LlamaServerRuntime(
            urls[i:] + urls[:i],
            model_name=name,
            model_sha256=sha256,
            template=template,
            timeout=timeout,
            max_tokens_cap=max_tokens_cap,
            parallel=parallel,
        )
        runtimes.append(runtime)
        thread = threading.Thread(
            target=_worker,
            name=f"batch-{url}",
            args=(svc, runtime, settings, server_models, todo, done, should_stop, requested),
            daemon=True,
        )
        thread.start()
        threads.append(thread)

    pending = 0

    def collect(block: bool) -> Iterator[BatchEvent]:
        nonlocal pending
        while pending:
            try:
                result = done.get(timeout=POLL_SECONDS) if block else done.get_nowait()
            except queue.Empty:
                return
            pending -= 1
            if result.case is None:
                report.failed.append((result.path, result.error or "failed"))
                yield BatchEvent("failed", result.error or "failed", path=result.path)
                continue
            svc.repo.save_case(result.case, user)  # the only DB writer is this thread
            report.saved.append((result.path, result.case.case_id))
            yield BatchEvent(
                "saved",
                f"case {result.case.case_id}",
                path=result.path,
                case_id=result.case.case_id,
                servers=result.servers,
            )
            if block:
                return

    try:
        for loaded in load_patients(plan):  # one at a time: a cancel stops between them
            path, record = loaded.source.label, loaded.record
            if loaded.stray:
                report.skipped.append((path, loaded.problem))
                yield BatchEvent("skipped", loaded.problem, path=path)
                continue
            if record is None:
                report.failed.append((path, loaded.problem))
                yield BatchEvent("failed", loaded.problem, path=path)
                continue
            for stray, why in loaded.source.skipped:
                report.skipped.append((stray, f"{stray}: {why}"))
                yield BatchEvent("skipped", f"{stray}: {why}", path=stray)
            try:
                svc.repo.save_record(record, user)
            except ConcordError as exc:
                report.failed.append((path, exc.one_line()))
                yield BatchEvent("failed", exc.one_line(), path=path)
                continue
            while True:
                yield from collect(block=False)
                try:
                    todo.put((path, record), timeout=POLL_SECONDS)
                except queue.Full:
                    continue
                pending += 1
                yield BatchEvent("queued", record.name, path=path)
                break
        while pending:
            yield from collect(block=True)
    finally:
        while True:  # on cancel, drop what was not started
            try:
                todo.get_nowait()
            except queue.Empty:
                break
        for _ in threads:
            while True:  # the workers drain the queue; a sentinel always fits eventually
                try:
                    todo.put(None, timeout=POLL_SECONDS)
                    break
                except queue.Full:
                    if not any(t.is_alive() for t in threads):
                        break
        for thread in threads:
            thread.join(timeout=1.0)
    for runtime in runtimes:
        report.requests_by_server.update(s.server for s in runtime.log)
    report.seconds = time.perf_counter() - started
    yield BatchEvent(
        "done", f"{len(report.saved)} saved, {len(report.failed)} failed", report=report
    )
