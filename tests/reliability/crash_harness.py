"""Crash-safety harness: SIGKILL processes that record decisions, then check the database.

Worker processes append decisions through the core (`Repository.append_decision`), each
decision with an id fixed by the harness, so a retried write is idempotent. After each
commit a worker appends `<n> <created>` to its acknowledgement file (O_APPEND, one write
call: a SIGKILL leaves a line whole or absent). The harness kills workers with SIGKILL at
random moments (most while writing, some while starting up and opening the database),
restarts each from its first unacknowledged id, and after every kill reopens the database
and checks:

  * PRAGMA integrity_check is ok;
  * every acknowledged decision is present, exactly once;
  * every decision has exactly one audit row and every decide audit row its decision;
  * the audit hash chain verifies.

At the end it also checks that every stored decision is exactly the one that was written.

    python tests/reliability/crash_harness.py --kills 200 --writes 10000      # long form
    python tests/reliability/crash_harness.py --kills 6 --writes 150 --json   # quick look

Exit status 0 when nothing was lost and every check passed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # for tests.factories when run as a script
    sys.path.insert(0, str(REPO))

from sqlite_utils import Database  # noqa: E402

from concord.domain import Decision  # noqa: E402
from concord.store import Repository, open_database, verify_chain  # noqa: E402
from concord.store.decision_rows import decision_from_row  # noqa: E402
from tests import factories  # noqa: E402

BLOCK = 250
"""Decision ids handed to a worker at a time."""
STARTUP_KILL_SHARE = 0.1
"""Share of kills aimed at a worker that is still starting (imports, open, migrate)."""
WORKER_TIMEOUT_S = 120.0
"""A worker that acknowledges nothing for this long is reported as hung."""


def decision_for(n: int) -> Decision:
    """The decision with number n: the same content on every attempt (ids fixed by caller)."""
    return factories.decision(
        f"D-{n:07d}",
        case_id=f"C-{n % 7}",
        target_id=f"renal/subscore/{n % 5}",
        override=round((n % 101) / 100, 2),
        at=factories.T0 + timedelta(seconds=n),
        reason=f"crash harness write {n}",
    )


# -- the worker -------------------------------------------------------------------------------


def worker(db: Path, ack: Path, first: int, last: int) -> int:
    """Append decisions first..last-1, acknowledging each after its commit returns."""
    fd = os.open(ack, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    repo = Repository.open(db)
    os.write(fd, f"ready {os.getpid()}\n".encode())
    for n in range(first, last):
        created = repo.append_decision(decision_for(n))
        os.write(fd, f"{n} {int(created)}\n".encode())
    repo.close()
    os.close(fd)
    return 0


# -- checking ---------------------------------------------------------------------------------


@dataclass
class Check:
    integrity: str
    present: int
    lost: list[int]
    duplicates: int
    unaudited_decisions: int
    audit_without_decision: int
    chain_ok: bool
    audit_rows: int

    @property
    def ok(self) -> bool:
        return (
            self.integrity == "ok"
            and not self.lost
            and self.duplicates == 0
            and self.unaudited_decisions == 0
            and self.audit_without_decision == 0
            and self.chain_ok
        )


def check_database(db: Path, acknowledged: set[int]) -> Check:
    """Reopen the database (a new connection) and check it against the acknowledgements.

    Call with acknowledgements read *before* this call: each was written after its commit.
    """
    conn = sqlite3.connect(str(db), timeout=30)
    try:
        integrity = "; ".join(r[0] for r in conn.execute("PRAGMA integrity_check"))
        with Database(conn).atomic():  # one snapshot for every query below
            ids = dict(
                conn.execute("SELECT decision_id, count(*) FROM decisions GROUP BY decision_id")
            )
            audit = dict(
                conn.execute(
                    "SELECT substr(entity, 10), count(*) FROM audit "
                    "WHERE entity LIKE 'decision:%' GROUP BY entity"
                )
            )
        report = verify_chain(Database(conn))
    finally:
        conn.close()
    present = {int(i[2:]) for i in ids}
    return Check(
        integrity=integrity,
        present=len(ids),
        lost=sorted(acknowledged - present),
        duplicates=sum(1 for c in ids.values() if c != 1),
        unaudited_decisions=sum(1 for i in ids if audit.get(i) != 1),
        audit_without_decision=sum(1 for i in audit if i not in ids),
        chain_ok=report.ok,
        audit_rows=report.rows,
    )


def check_contents(db: Path) -> int:
    """Stored decisions that differ from what was written (0 when all are intact)."""
    with Repository.open(db) as repo:
        rows = repo.db.query("SELECT * FROM decisions")
        return sum(
            1 for row in rows if decision_from_row(row) != decision_for(int(row["decision_id"][2:]))
        )


# -- the harness ------------------------------------------------------------------------------


@dataclass
class _Slot:
    index: int
    ack: Path
    log: Path
    block: tuple[int, int] | None = None
    proc: subprocess.Popen[bytes] | None = None
    ready_at: float | None = None
    started_at: float = 0.0
    offset: int = 0
    acked_in_run: int = 0
    progress_at: float = 0.0


@dataclass
class Report:
    kills: int = 0
    kills_while_writing: int = 0
    kills_during_startup: int = 0
    workers_started: int = 0
    writes_acknowledged: int = 0
    idempotent_retries: int = 0
    decisions_present: int = 0
    lost: int = 0
    duplicates: int = 0
    unaudited_decisions: int = 0
    audit_without_decision: int = 0
    altered_decisions: int = 0
    audit_rows: int = 0
    checks: int = 0
    failed_checks: int = 0
    integrity: str = ""
    chain_ok: bool = False
    worker_failures: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return (
            self.lost == 0
            and self.duplicates == 0
            and self.failed_checks == 0
            and self.unaudited_decisions == 0
            and self.audit_without_decision == 0
            and self.altered_decisions == 0
            and self.integrity == "ok"
            and self.chain_ok
            and not self.worker_failures
        )

    def summary(self) -> str:
        verdict = "NOTHING LOST" if self.ok else "FAILED"
        return (
            f"crash harness: {verdict}: {self.kills} SIGKILLs ({self.kills_while_writing} while "
            f"writing, {self.kills_during_startup} during startup), "
            f"{self.writes_acknowledged} acknowledged writes, {self.decisions_present} decisions "
            f"present, {self.lost} lost, {self.duplicates} duplicated, "
            f"{self.idempotent_retries} idempotent retries, {self.checks} reopen-checks "
            f"({self.failed_checks} failed), integrity {self.integrity}, audit chain "
            f"{'ok' if self.chain_ok else 'BROKEN'} ({self.audit_rows} rows), "
            f"{self.seconds:.0f} s"
        )


class Harness:
    def __init__(
        self,
        workdir: Path,
        kills: int,
        writes: int,
        procs: int,
        seed: int,
        startup_share: float = STARTUP_KILL_SHARE,
    ) -> None:
        self.startup_share = startup_share
        self.db = workdir / "crash.sqlite"
        self.kills_wanted, self.writes_wanted = kills, writes
        self.rng = random.Random(seed)
        self.report = Report()
        self.acked: set[int] = set()
        self.next_id = 1
        self.rate = 200.0  # writes/s per worker, re-estimated as the run goes
        self.next_kill_during_startup = False
        self.slots = [
            _Slot(k, workdir / f"ack-{k}.txt", workdir / f"worker-{k}.log") for k in range(procs)
        ]

    # bookkeeping ----------------------------------------------------------------------------

    def _read_acks(self, slot: _Slot) -> None:
        with slot.ack.open("rb") as handle:
            handle.seek(slot.offset)
            data = handle.read()
        complete = data[: data.rfind(b"\n") + 1]
        slot.offset += len(complete)
        if complete:
            slot.progress_at = time.monotonic()
        for line in complete.decode().splitlines():
            head, _, tail = line.partition(" ")
            if head == "ready":
                slot.ready_at = time.monotonic()
                continue
            n = int(head)
            if n in self.acked:
                raise AssertionError(f"decision {n} acknowledged twice")
            self.acked.add(n)
            slot.acked_in_run += 1
            if tail == "0":
                self.report.idempotent_retries += 1

    def _first_unacked(self, slot: _Slot) -> int | None:
        assert slot.block is not None
        first, last = slot.block
        return next((n for n in range(first, last) if n not in self.acked), None)

    def _need_more_writes(self) -> bool:
        handed_out = self.next_id - 1
        return handed_out < self.writes_wanted or self.report.kills < self.kills_wanted

    def _start(self, slot: _Slot) -> None:
        if slot.block is None or self._first_unacked(slot) is None:
            if not self._need_more_writes():
                slot.block, slot.proc = None, None
                return
            slot.block = (self.next_id, self.next_id + BLOCK)
            self.next_id += BLOCK
        first = self._first_unacked(slot)
        assert first is not None and slot.block is not None
        cmd = [
            sys.executable,
            __file__,
            "--worker",
            str(self.db),
            str(slot.ack),
            str(first),
            str(slot.block[1]),
        ]
        with slot.log.open("ab") as log:
            slot.proc = subprocess.Popen(cmd, stdout=log, stderr=log)
        slot.ready_at, slot.acked_in_run = None, 0
        slot.started_at = slot.progress_at = time.monotonic()
        self.report.workers_started += 1

    def _check(self) -> None:
        for slot in self.slots:
            self._read_acks(slot)
        result = check_database(self.db, set(self.acked))
        self.report.checks += 1
        if not result.ok:
            self.report.failed_checks += 1
            self.report.worker_failures.append(f"check after kill {self.report.kills}: {result}")

    def _kill(self, slot: _Slot) -> None:
        assert slot.proc is not None
        while_writing = slot.ready_at is not None
        slot.proc.send_signal(signal.SIGKILL)
        slot.proc.wait()
        self._read_acks(slot)
        if while_writing and slot.ready_at is not None:
            elapsed = max(time.monotonic() - slot.ready_at, 1e-3)
            if slot.acked_in_run:
                self.rate = 0.7 * self.rate + 0.3 * (slot.acked_in_run / elapsed)
        self.report.kills += 1
        if while_writing:
            self.report.kills_while_writing += 1
        else:
            self.report.kills_during_startup += 1
        self._check()
        self._start(slot)
        self.next_kill_during_startup = self.rng.random() < self.startup_share

    def _delay(self) -> float:
        """Random time to let a writing worker run: about the writes each kill should cover."""
        per_kill = max(self.writes_wanted / max(self.kills_wanted, 1), 5)
        return self.rng.uniform(0, 2 * per_kill / max(self.rate, 1.0))

    # the loop -------------------------------------------------------------------------------

    def run(self) -> Report:
        started = time.monotonic()
        open_database(self.db).close()  # schema in place before the first kill
        for slot in self.slots:
            slot.ack.touch()
            self._start(slot)
        victim: _Slot | None = None
        kill_at = 0.0
        while any(s.proc is not None for s in self.slots):
            now = time.monotonic()
            for slot in self.slots:
                self._poll(slot, now)
            if self.report.worker_failures:
                break
            if victim is not None and (victim.proc is None or victim.proc.poll() is not None):
                victim = None  # finished its block before the kill came
            if victim is None and self.report.kills < self.kills_wanted:
                victim, kill_at = self._choose_victim(now)
            if victim is not None and now >= kill_at:
                self._kill(victim)
                victim = None
            time.sleep(0.002)
        self._finish(started)
        return self.report

    def _poll(self, slot: _Slot, now: float) -> None:
        if slot.proc is None:
            return
        self._read_acks(slot)
        code = slot.proc.poll()
        if code is None:
            if now - slot.progress_at > WORKER_TIMEOUT_S:
                slot.proc.kill()
                slot.proc.wait()
                self.report.worker_failures.append(f"worker {slot.index} hung")
            return
        if code != 0:
            tail = slot.log.read_text(errors="replace").strip().splitlines()[-3:]
            self.report.worker_failures.append(f"worker {slot.index} exited {code}: {tail}")
            slot.proc = None
            return
        self._start(slot)

    def _choose_victim(self, now: float) -> tuple[_Slot | None, float]:
        running = [s for s in self.slots if s.proc is not None and s.proc.poll() is None]
        starting = [s for s in running if s.ready_at is None]
        writing = [s for s in running if s.ready_at is not None]
        if self.next_kill_during_startup and starting:
            return self.rng.choice(starting), now + self.rng.uniform(0.0, 0.5)
        if not self.next_kill_during_startup and writing:
            return self.rng.choice(writing), now + self._delay()
        return None, 0.0

    def _finish(self, started: float) -> None:
        for slot in self.slots:
            if slot.proc is not None and slot.proc.poll() is None:
                slot.proc.kill()
                slot.proc.wait()
            self._read_acks(slot)
        final = check_database(self.db, set(self.acked))
        r = self.report
        r.checks += 1
        r.failed_checks += 0 if final.ok else 1
        r.writes_acknowledged = len(self.acked)
        r.decisions_present = final.present
        r.lost = len(final.lost)
        r.duplicates = final.duplicates
        r.unaudited_decisions = final.unaudited_decisions
        r.audit_without_decision = final.audit_without_decision
        r.integrity = final.integrity
        r.chain_ok = final.chain_ok
        r.audit_rows = final.audit_rows
        r.altered_decisions = check_contents(self.db)
        r.seconds = round(time.monotonic() - started, 1)


def run(
    kills: int,
    writes: int,
    *,
    procs: int = 2,
    seed: int = 0,
    workdir: Path | None = None,
    startup_share: float = STARTUP_KILL_SHARE,
) -> Report:
    if workdir is not None:
        workdir.mkdir(parents=True, exist_ok=True)
        return Harness(workdir, kills, writes, procs, seed, startup_share).run()
    with tempfile.TemporaryDirectory(prefix="concord-crash-") as tmp:
        return Harness(Path(tmp), kills, writes, procs, seed, startup_share).run()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=200, help="SIGKILLs to deliver")
    parser.add_argument("--writes", type=int, default=10_000, help="decisions to acknowledge")
    parser.add_argument("--procs", type=int, default=2, help="concurrent writer processes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, help="keep the database and logs here")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--worker", nargs=4, metavar=("DB", "ACK", "FIRST", "LAST"), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    if args.worker:
        db, ack, first, last = args.worker
        return worker(Path(db), Path(ack), int(first), int(last))
    report = run(args.kills, args.writes, procs=args.procs, seed=args.seed, workdir=args.workdir)
    if args.json:
        print(json.dumps({**asdict(report), "ok": report.ok}, indent=2))
    print(report.summary(), file=sys.stderr if args.json else sys.stdout)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
