"""Faults during writes and runs: disk full, I/O errors, a database locked by another
process, a model that stops responding. Each must leave the database consistent, give one
clear line, and leave the application able to carry on."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from concord import paths
from concord.cli import main
from concord.errors import InputError, ModelError, StoreError
from concord.llm.runtime import Generation, GenerationRequest
from concord.llm.scripted import ScriptedRuntime
from concord.llm.watchdog import TimeoutRuntime, timeout_from_env
from concord.pipeline import PanelSettings, run_panel
from concord.services import Services
from concord.store import Repository
from concord.store import connection as connection_module
from concord.store import transaction as transaction_module
from tests import factories as f
from tests.identity import PASSWORD, enrol

USER = "dr.jones"
TARGET = "renal/overall"


def _consistent(repo: Repository) -> tuple[int, int, tuple[int, str]]:
    """Integrity and chain ok, no open transaction; returns (decisions, cases, audit head)."""
    assert repo.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert repo.verify_audit().ok
    assert not repo.db.conn.in_transaction
    count = repo.db.execute("SELECT count(*) FROM decisions").fetchone()[0]
    unaudited = repo.db.execute(
        "SELECT count(*) FROM decisions d WHERE NOT EXISTS "
        "(SELECT 1 FROM audit a WHERE a.entity = 'decision:' || d.decision_id)"
    ).fetchone()[0]
    assert unaudited == 0
    cases = repo.db.execute("SELECT count(*) FROM cases").fetchone()[0]
    return count, cases, repo.audit_head()


@pytest.fixture
def stored(repo: Repository, monkeypatch: pytest.MonkeyPatch) -> Repository:
    """A record, a case and a clinician in the database (their password for the CLI)."""
    monkeypatch.setenv("CONCORD_PASSWORD", PASSWORD)
    rec = f.record()
    repo.save_record(rec, "tester")
    repo.save_case(f.case(rec), "tester")
    enrol(repo, USER, "clinician")
    return repo


def _fill_disk(repo: Repository) -> None:
    """The database may not grow by one more page: SQLite reports SQLITE_FULL."""
    pages = repo.db.execute("PRAGMA page_count").fetchone()[0]
    repo.db.execute(f"PRAGMA max_page_count={pages}")


def _free_disk(repo: Repository) -> None:
    repo.db.execute("PRAGMA max_page_count=1073741823")


# -- disk full -----------------------------------------------------------------------------------


def test_disk_full_during_a_decision(stored: Repository) -> None:
    before = _consistent(stored)
    _fill_disk(stored)
    big = f.decision("D-big", reason="checked " * 4000)
    with pytest.raises(StoreError, match="disk is full; nothing was written") as info:
        stored.append_decision(big)
    assert "concord.sqlite" in info.value.one_line() and "\n" not in info.value.one_line()
    assert _consistent(stored) == before
    _free_disk(stored)
    assert stored.append_decision(big) is True  # the application carries on
    assert _consistent(stored)[0] == before[0] + 1


def test_disk_full_half_way_through_a_case_leaves_no_part_of_it(stored: Repository) -> None:
    rec = f.record("patient-b.txt", f.CLINIC_TEXT + "Note " * 5000)
    stored.save_record(rec, "tester")
    before = _consistent(stored)
    tables = ("cases", "briefs", "evidence", "case_gates", "scorecards", "runs")
    counts = {t: stored.db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}
    _fill_disk(stored)
    big_case = f.case(rec, case_id="C-2").model_copy(update={"meta": {"notes": "x" * 200_000}})
    with pytest.raises(StoreError, match="disk is full"):
        stored.save_case(big_case, "tester")
    assert _consistent(stored) == before
    assert counts == {
        t: stored.db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables
    }
    _free_disk(stored)
    assert stored.save_case(big_case, "tester") is True


def test_cli_decide_on_a_full_disk_prints_one_line(stored: Repository, capsys) -> None:
    _fill_disk(stored)
    # the CLI opens its own connection: give it the same limit through the pragma hook
    original = connection_module.open_database

    def full_disk_open(path=None):  # type: ignore[no-untyped-def]
        db = original(path)
        db.execute(f"PRAGMA max_page_count={db.execute('PRAGMA page_count').fetchone()[0]}")
        return db

    import concord.store.repository as repository_module

    before = _consistent(stored)
    old = repository_module.open_database
    repository_module.open_database = full_disk_open
    try:
        code = main(
            [
                "decide",
                "C-1",
                "--target",
                TARGET,
                "--accept",
                "--user",
                USER,
                "--reason",
                "checked " * 3000,
            ]
        )
    finally:
        repository_module.open_database = old
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("concord: error: ") and err.count("\n") == 1
    assert "disk is full; nothing was written" in err
    _free_disk(stored)
    assert _consistent(stored) == before


# -- I/O errors from the operating system --------------------------------------------------------

_IO_SCRIPT = """
import json, resource, signal, sys
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from tests import factories as f
from concord.errors import StoreError
from concord.store import Repository
repo = Repository.open(Path(sys.argv[1]))
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
limit = max(p.stat().st_size for p in Path(sys.argv[1]).parent.glob("concord.sqlite*")) + 4096
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
try:
    repo.append_decision(f.decision("D-io", reason="checked " * 20000))
    out = {"written": True}
except StoreError as exc:
    out = {"written": False, "error": exc.one_line(), "in_transaction": repo.db.conn.in_transaction}
resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
out["retry"] = repo.append_decision(f.decision("D-io", reason="checked " * 20000))
print(json.dumps(out))
"""


def test_os_write_error_mid_transaction_rolls_back_and_the_retry_succeeds(
    stored: Repository,
) -> None:
    """The process's file-size limit makes the OS refuse the write (EFBIG): SQLite reports
    an I/O error; nothing is written; once the limit is lifted the same write goes through."""
    before = _consistent(stored)
    stored.close()
    repo = Path(__file__).resolve().parents[2]  # the subprocess imports tests.*
    done = subprocess.run(
        [sys.executable, "-c", _IO_SCRIPT, str(paths.database_path()), str(repo)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    out = json.loads(done.stdout)
    assert out["written"] is False, out
    assert "disk I/O error while writing; nothing was written" in out["error"]
    assert out["in_transaction"] is False and out["retry"] is True
    with Repository.open() as repo:
        decisions, cases, _ = _consistent(repo)
        assert (decisions, cases) == (before[0] + 1, before[1])
        assert [d.decision_id for d in repo.decisions()] == ["D-io"]


# -- a database locked by another process --------------------------------------------------------

_LOCK_SCRIPT = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
if sys.argv[2] == "exclusive":
    conn.execute("PRAGMA locking_mode=EXCLUSIVE")
    conn.execute("BEGIN EXCLUSIVE")
    conn.execute("SELECT count(*) FROM audit").fetchone()
else:
    conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()
conn.execute("ROLLBACK")
conn.close()
"""


@pytest.fixture
def short_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transaction_module, "BUSY_TIMEOUT_MS", 300)


def _hold_lock(mode: str) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", _LOCK_SCRIPT, str(paths.database_path()), mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    return holder


def _release(holder: subprocess.Popen[str]) -> None:
    assert holder.stdin is not None
    holder.stdin.write("\n")
    holder.stdin.flush()
    holder.wait(timeout=30)


def test_write_lock_held_by_another_process(
    stored: Repository, short_busy_timeout: None, capsys
) -> None:
    stored.db.execute("PRAGMA busy_timeout=300")
    before = _consistent(stored)
    holder = _hold_lock("immediate")
    try:
        with pytest.raises(StoreError, match="locked by another process .*nothing was written"):
            stored.append_decision(f.decision("D-locked"))
        args = [
            "decide",
            "C-1",
            "--target",
            TARGET,
            "--accept",
            "--user",
            USER,
            "--reason",
            "checked",
            "--decision-id",
            "D-cli",
        ]
        assert main(args) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "locked by another process" in err
        assert _consistent(stored) == before  # reads still work while the lock is held
    finally:
        _release(holder)
    assert stored.append_decision(f.decision("D-locked")) is True
    assert main(args) == 0
    assert [d.decision_id for d in stored.decisions()] == ["D-locked", "D-cli"]
    _consistent(stored)


def test_exclusive_lock_held_by_another_process(
    stored: Repository, short_busy_timeout: None, capsys
) -> None:
    stored.close()
    holder = _hold_lock("exclusive")
    try:
        assert main(["cases", "--json"]) == 1
        err = capsys.readouterr().err
        assert err.startswith("concord: error: ") and err.count("\n") == 1
        assert "locked" in err
    finally:
        _release(holder)
    assert main(["cases", "--json"]) == 0
    assert [c["case_id"] for c in json.loads(capsys.readouterr().out)["cases"]] == ["C-1"]


def test_cli_decide_retried_with_the_same_decision_id_is_a_no_op(
    stored: Repository, capsys
) -> None:
    """A retry after an unclear failure (killed, timed out) must not be refused or doubled."""
    args = [
        "decide",
        "C-1",
        "--target",
        TARGET,
        "--accept",
        "--user",
        USER,
        "--reason",
        "checked",
        "--decision-id",
        "D-retry",
        "--json",
    ]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    time.sleep(0.01)
    assert main(args) == 0, capsys.readouterr().err
    second = json.loads(capsys.readouterr().out)
    assert (first["created"], second["created"]) == (True, False)
    assert len(stored.decisions()) == 1


# -- a model that stops responding ---------------------------------------------------------------


class HangingRuntime:
    """Answers like a scripted runtime until `hang` is set, then blocks until released."""

    def __init__(self, answer: ScriptedRuntime) -> None:
        self.model_name, self.model_sha256 = "hanging", "h" * 64
        self.answer = answer
        self.hang = threading.Event()
        self.release = threading.Event()
        self.calls = 0
        self.closed = False

    def generate(self, request: GenerationRequest) -> Generation:
        self.calls += 1
        if self.hang.is_set():
            self.release.wait(timeout=60)
        return self.answer.generate(request)

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def hanging() -> Iterator[HangingRuntime]:
    from tests.fake_agents import BriefWriter

    runtime = HangingRuntime(ScriptedRuntime(BriefWriter()))
    yield runtime
    runtime.release.set()


def _run(svc: Services, runtime, record) -> list:  # type: ignore[no-untyped-def]
    return list(
        run_panel(
            record,
            runtime,
            profiles=svc.profiles,
            screen=svc.screen,
            lexicon=svc.lexicon,
            config=svc.config,
            settings=PanelSettings(judges=0),
        )
    )


def test_model_that_stops_responding_raises_one_clear_error(hanging: HangingRuntime) -> None:
    svc = Services()
    try:
        record = f.record()
        watched = TimeoutRuntime(hanging, seconds=2.0)  # a busy machine: calls stall too
        assert _run(svc, watched, record)[-1].case is not None  # responsive: works
        hanging.hang.set()
        with pytest.raises(ModelError, match=r"hanging: model did not respond within 2 s"):
            _run(svc, watched, record)
        with pytest.raises(ModelError, match="still busy"):  # never entered twice at once
            _run(svc, watched, record)
        hanging.hang.clear()
        hanging.release.set()
        deadline = time.monotonic() + 10
        while watched._pending is not None and not watched._pending.done():
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert _run(svc, watched, record)[-1].case is not None  # the application carries on
        watched.close()
        assert hanging.closed
    finally:
        svc.close()


def test_cli_run_with_an_unresponsive_model_stores_nothing(
    hanging: HangingRuntime, monkeypatch: pytest.MonkeyPatch, capsys, tmp_path: Path
) -> None:
    hanging.hang.set()
    monkeypatch.setattr(
        Services, "runtime", lambda self, name=None: TimeoutRuntime(hanging, seconds=0.3)
    )
    path = tmp_path / "patient.txt"
    path.write_text(f.CLINIC_TEXT, encoding="utf-8")
    assert main(["run", str(path), "--judges", "0", "--json"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == "concord: error: hanging: model did not respond within 0.3 s"
    with Repository.open() as repo:
        _, cases, _ = _consistent(repo)
        assert cases == 0


def test_a_runtime_that_raises_timeout_error_becomes_a_model_error() -> None:
    class TimesOut:
        model_name, model_sha256 = "server", "s" * 64

        def generate(self, request: GenerationRequest) -> Generation:
            raise TimeoutError("read timed out")

        def close(self) -> None:
            pass

    with pytest.raises(ModelError, match=r"server: model did not respond in time \(read timed"):
        TimeoutRuntime(TimesOut(), seconds=5).generate(GenerationRequest(prefix="", prompt="x"))


def test_other_runtime_errors_pass_through_unchanged() -> None:
    empty = ScriptedRuntime([])
    with pytest.raises(ModelError, match="no output left"):
        TimeoutRuntime(empty, seconds=5).generate(GenerationRequest(prefix="", prompt="x"))


def test_timeout_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONCORD_MODEL_TIMEOUT", "42")
    assert timeout_from_env() == 42.0
    monkeypatch.setenv("CONCORD_MODEL_TIMEOUT", "soon")
    with pytest.raises(InputError, match="must be a number"):
        timeout_from_env()
    monkeypatch.delenv("CONCORD_MODEL_TIMEOUT")
    assert timeout_from_env() == 120.0  # seconds without progress, not for the whole answer
