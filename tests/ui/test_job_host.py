"""The desktop's threads keep their contract (ui/workers.py): every long job of the window —
the panel, ASTRID and EVAL jobs, site validation, imports, signing — runs on ONE job thread
with ONE Services, one job at a time; quick jobs (imports, signing) never wait for a model
run to end, and never run inside a job's open transaction; the database thread only
answers short requests."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from PySide6.QtCore import QThread
from PySide6.QtWidgets import QFileDialog

from concord.domain import CaseStatus
from concord.records import load_record
from concord.review import DISPOSITION_VALUES, make_decision, required_targets
from concord.store import Repository
from concord.store.transaction import write_transaction
from concord.ui import signing
from concord.ui.workers import JobRunner
from concord.workbench import model_jobs
from concord.workbench.decisions import append_decisions
from concord.workbench.model_jobs import JobContext
from tests.identity import PASSWORD
from tests.ui.helpers import USER, demo_record_path, idle, session_for

LONG = 20.0  # seconds: far longer than any of these tests may take


def _thread_name() -> str:
    """The QThread's name (Python calls a thread it did not start 'Dummy-N')."""
    return QThread.currentThread().objectName()


def _quick_runner(window) -> JobRunner:
    return JobRunner(parent=window, host=window.job_host, urgent=True)


def _runners(window) -> list[JobRunner]:
    return [
        window.runner,
        window.jobs,
        window.validation_jobs,
        window.patients.importer,
        window.patients.signing.jobs,
    ]


def test_every_job_of_the_window_runs_on_one_thread_with_one_services(make_window, qtbot):
    window = make_window()
    seen: list[tuple[int, str]] = []

    def job(ctx: JobContext) -> None:
        seen.append((id(ctx.services), _thread_name()))

    assert all(runner.host is window.job_host for runner in _runners(window))
    # jobs of the same kinds (a page's own runners answer their own results)
    for urgent in (False, False, True):
        runner = JobRunner(parent=window, host=window.job_host, urgent=urgent)
        runner.start_job(job)
        qtbot.waitUntil(lambda r=runner: not r.worker_busy, timeout=10_000)
    window.jobs.start_job(job)
    qtbot.waitUntil(lambda: not window.jobs.worker_busy, timeout=10_000)
    assert len(seen) == 4
    assert len({services for services, _ in seen}) == 1  # one Services: one connection, one model
    threads = {name for _, name in seen}
    assert threads == {"concord-jobs"}
    assert _thread_name() not in threads


def test_two_model_jobs_never_run_at_once_and_the_second_says_it_waits(make_window, qtbot):
    window = make_window()
    spans: dict[str, list[float]] = {}

    def job(name: str, seconds: float):
        def run(ctx: JobContext) -> str:
            spans[name] = [time.monotonic()]
            time.sleep(seconds)
            spans[name].append(time.monotonic())
            return name

        return run

    waited: list[str] = []
    window.jobs.waiting.connect(waited.append)
    finished: list[object] = []
    window.jobs.finished.connect(finished.append)
    window.validation_jobs.start_job(job("validation", 0.6), label="a site validation run")
    window.jobs.start_job(job("judge", 0.1))
    qtbot.waitUntil(lambda: finished == ["judge"], timeout=10_000)
    assert waited == ["a site validation run"]
    assert spans["judge"][0] >= spans["validation"][1]  # it started after the first ended


def test_a_patients_run_behind_another_job_says_it_waits_until_it_starts(make_window, qtbot):
    window = make_window()
    record = load_record(demo_record_path())
    with Repository.open() as repo:
        repo.save_record(record, USER)
    window.open_record(record.record_id)
    qtbot.waitUntil(lambda: window.case_view.bundle is not None, timeout=10_000)
    release = threading.Event()
    window.validation_jobs.start_job(lambda ctx: release.wait(LONG), label="a site validation run")
    window.patients.run_current("")
    view = window.case_view
    assert view.status_badge.text() == "Status: waiting for the model"  # not "running"
    assert "Waiting for a site validation run to end" in view.run_panel.status.text()
    release.set()
    qtbot.waitUntil(
        lambda: view.status_badge.text() != "Status: waiting for the model", timeout=10_000
    )
    assert view.status_badge.text() == f"Status: {CaseStatus.RUNNING.value}"
    qtbot.waitUntil(lambda: not window.runner.worker_busy, timeout=30_000)


def test_an_import_runs_at_the_next_checkpoint_of_a_model_job(make_window, qtbot):
    """The long job waits (checkpoint after checkpoint) for something only the quick job
    does: were quick jobs queued behind it, it would never see it and fail."""
    window = make_window()
    imported = threading.Event()
    order: list[str] = []

    def model_job(ctx: JobContext) -> str:
        deadline = time.monotonic() + LONG
        while not imported.is_set():
            if ctx.should_stop() or time.monotonic() > deadline:
                raise AssertionError("the quick job never ran at a checkpoint")
            time.sleep(0.02)
        order.append("model job resumed")
        return "done"

    def quick_job(ctx: JobContext) -> str:
        order.append("quick job")
        imported.set()
        return "imported"

    results = _quick_job_beside_a_model_job(window, qtbot, model_job, quick_job)
    assert results == ["imported", "done"]
    assert order == ["quick job", "model job resumed"]


def _quick_job_beside_a_model_job(
    window, qtbot, model_job, quick_job, *, then: Callable[[], object] = lambda: None
) -> list[object]:
    """Start the model job on the window's runner, then the quick job on another runner once
    the model job runs (`then` right after); the two jobs' results (or the model job's
    failure) in the order they ended."""
    results: list[object] = []
    window.jobs.finished.connect(results.append)
    window.jobs.failed.connect(results.append)
    quick = _quick_runner(window)
    quick.finished.connect(results.append)
    window.jobs.start_job(model_job)
    qtbot.waitUntil(lambda: window.job_host.running, timeout=10_000)
    quick.start_job(quick_job)
    then()
    qtbot.waitUntil(lambda: len(results) == 2, timeout=int(LONG * 1000))
    return results


def test_a_runtime_asking_from_its_own_thread_never_runs_a_quick_job_there(make_window, qtbot):
    """The watchdog's runtime asks `should_stop` from its own thread while it decodes: that
    only reads the flag; the quick job runs at the job's next check on the job thread, which
    owns the database connection."""
    window = make_window()
    ran_on: list[str] = []
    asked_from_runtime = threading.Event()
    quick_waiting = threading.Event()

    def model_job(ctx: JobContext) -> str:
        def runtime_thread() -> None:
            quick_waiting.wait(LONG)
            ctx.should_stop()  # as TimeoutRuntime's batch thread asks
            asked_from_runtime.set()

        thread = threading.Thread(target=runtime_thread, name="concord-model-batch")
        thread.start()
        thread.join(LONG)
        assert asked_from_runtime.is_set() and not ran_on, "ran on the runtime's thread"
        deadline = time.monotonic() + LONG
        while not ran_on:
            if ctx.should_stop() or time.monotonic() > deadline:
                raise AssertionError("the quick job never ran at a checkpoint")
            time.sleep(0.02)
        return "done"

    def quick_job(ctx: JobContext) -> str:
        ran_on.append(_thread_name())
        return "imported"

    results = _quick_job_beside_a_model_job(
        window, qtbot, model_job, quick_job, then=quick_waiting.set
    )
    assert results == ["imported", "done"]
    assert ran_on and ran_on[0] != "concord-model-batch"


def test_a_quick_job_never_runs_inside_an_open_transaction(make_window, qtbot):
    window = make_window()
    events: list[str] = []
    quick_done = threading.Event()

    def model_job(ctx: JobContext) -> None:
        repo = ctx.services.repo
        with write_transaction(repo.db):
            events.append("transaction open")
            for _ in range(5):
                ctx.should_stop()  # a checkpoint inside the transaction: nothing may run
                time.sleep(0.05)
            events.append("transaction closed")
        deadline = time.monotonic() + LONG
        while not quick_done.is_set() and time.monotonic() < deadline:
            ctx.should_stop()
            time.sleep(0.02)

    def quick_job(ctx: JobContext) -> None:
        events.append("quick job")
        quick_done.set()

    window.jobs.start_job(model_job)
    qtbot.waitUntil(lambda: "transaction open" in events, timeout=10_000)
    _quick_runner(window).start_job(quick_job)
    qtbot.waitUntil(lambda: not window.jobs.worker_busy, timeout=int(LONG * 1000))
    assert events == ["transaction open", "transaction closed", "quick job"]


def test_a_cancelled_job_that_waits_is_never_started(make_window, qtbot):
    window = make_window()
    started: list[str] = []
    release = threading.Event()

    def first(ctx: JobContext) -> None:
        release.wait(LONG)

    window.validation_jobs.start_job(first)
    window.jobs.start_job(lambda ctx: started.append("second"))
    window.jobs.cancel()
    assert not window.jobs.running and window.jobs.worker_busy  # still queued
    release.set()
    qtbot.waitUntil(lambda: not window.jobs.worker_busy, timeout=10_000)
    assert started == []


def test_an_import_runs_in_the_job_thread_and_the_database_thread_stays_free(
    make_window, qtbot, monkeypatch, tmp_path
):
    threads: list[str] = []
    release = threading.Event()
    real = model_jobs.import_paths

    def slow_import(repo, paths, user, progress=None):
        threads.append(_thread_name())
        release.wait(LONG)  # as long as OCR of a long scan
        return real(repo, paths, user, progress)

    monkeypatch.setattr(model_jobs, "import_paths", slow_import)
    window = make_window()
    source = demo_record_path()
    copy = tmp_path / source.name
    copy.write_bytes(source.read_bytes())
    window.patients.import_files([copy])
    qtbot.waitUntil(lambda: threads == ["concord-jobs"], timeout=10_000)
    answered: list[int] = []
    window.db.call(lambda repo: len(repo.list_records()), answered.append)
    qtbot.waitUntil(lambda: answered == [0], timeout=5_000)  # not blocked by the import
    release.set()
    record_id = load_record(copy).record_id
    qtbot.waitUntil(lambda: not window.patients.importer.worker_busy, timeout=10_000)
    idle(qtbot, window, lambda: window.worklist.model.rowCount() == 1)
    with Repository.open() as repo:
        assert [r.record_id for r in repo.list_records()] == [record_id]


def test_signing_writes_the_pdf_in_the_job_thread(
    make_window, stored_case, qtbot, monkeypatch, tmp_path
):
    record, case = stored_case
    session = session_for(USER)
    with Repository.open() as repo:
        decisions = [
            make_decision(
                case,
                target.id,
                user=USER,
                reason="checked against the record",
                disposition=DISPOSITION_VALUES[0] if target.kind.value == "disposition" else None,
            )
            for target in required_targets(case)
        ]
        append_decisions(repo, case, decisions, session)
    threads: list[str] = []
    real = model_jobs.sign

    def sign(repo, signer, case_id, out):
        threads.append(_thread_name())
        return real(repo, signer, case_id, out)

    monkeypatch.setattr(model_jobs, "sign", sign)
    monkeypatch.setattr(signing, "ask_signature", lambda parent, summary, who: PASSWORD)
    out = tmp_path / "signed.pdf"
    monkeypatch.setattr(
        QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(out), "PDF"))
    )
    window = make_window()
    window.open_case(case.case_id)
    idle(qtbot, window, lambda: window.case_view.case is not None)
    window.patients.sign_case()
    qtbot.waitUntil(lambda: "Signed by" in window.case_view.banner.text(), timeout=60_000)
    assert threads == ["concord-jobs"]
    assert out.stat().st_size > 1_000 and out.read_bytes().startswith(b"%PDF")
    with Repository.open() as repo:
        assert repo.case_status(case.case_id) is CaseStatus.SIGNED


def test_closing_the_window_stops_the_one_job_thread(make_window, qtbot):
    window = make_window()
    window.jobs.start_job(lambda ctx: None)
    qtbot.waitUntil(lambda: not window.jobs.worker_busy, timeout=10_000)
    window.close()
    assert not window.job_host.thread_running
