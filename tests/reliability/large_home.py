"""A large installation for timing `concord audit verify` (issue 28: it stays linear).

    PYTHONPATH=desktop:. python -m tests.reliability.large_home --records 10000 --home DIR
    CONCORD_HOME=DIR /usr/bin/time -v python -m concord audit verify --json

Writes an admin, two clinicians and an annotator, then per record: the import, a case (the
tests' small case: 3 gates, 2 scorecards, briefs with evidence), every required judgement
decided by a clinician (the case becomes reviewed), an annotator's label on one in ten, and a
clinician's second look on one in twenty; `--sign N` cases are also signed into PDFs. Writes
go through the application's own functions (`record_decision`, `save_case`...), batched in
outer transactions so that generating 10,000 records takes minutes, not hours; `--times`
then runs `audit verify` at several sizes of the same home to show the cost per record.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

BATCH = 250
"""Records per outer transaction (one commit, one anchor line)."""


def build(home: Path, records: int, sign: int, start: int = 0) -> None:
    os.environ["CONCORD_HOME"] = str(home)
    import concord.pki.credentials as credentials

    credentials.SCRYPT_N = 2**10  # a throw-away home: fast sign-in
    from concord.accounts.enrolment import enrol_user
    from concord.accounts.session import sign_in
    from concord.decisions import record_decision
    from concord.review import make_decision, required_targets
    from concord.signoff import sign_case
    from concord.store import Repository, write_transaction
    from tests import factories as f

    repo = Repository.open()
    password = "theatre-list-monday"
    if not any(u.enrolled for u in repo.list_users()):
        enrol_user(repo, "Dr Admin", "admin", "ward-round-at-seven", admin=None)
        admin = sign_in(repo, "Dr Admin", "ward-round-at-seven")
        for name, role in (("Dr A", "clinician"), ("Dr B", "clinician"), ("Ann", "annotator")):
            enrol_user(repo, name, role, password, admin=admin)
    dr_a, dr_b = sign_in(repo, "Dr A", password), sign_in(repo, "Dr B", password)
    ann = sign_in(repo, "Ann", password)
    began = time.perf_counter()
    for first in range(start, start + records, BATCH):
        with write_transaction(repo.db):
            for n in range(first, min(first + BATCH, start + records)):
                text = f"Pre-op clinic {n}.\nK+ 6.3 mmol/L\nABVD chemotherapy 2019.\n"
                rec = f.record(name=f"patient-{n}.txt", text=text)
                repo.save_record(rec, "Dr A")
                case = f.case(rec, case_id=f"C-{n}")
                repo.save_case(case, "Dr A")
                for target in required_targets(case):
                    decision = make_decision(case, target.id, user="Dr A", reason="checked")
                    record_decision(repo, dr_a, decision, case=case)
                if n % 10 == 0:
                    label = make_decision(case, "gate/hypoxaemia", user="Ann", reason="label")
                    record_decision(repo, ann, label, case=case)
                if n % 20 == 0:
                    again = make_decision(
                        case, "gate/hyperkalaemia", user="Dr B", reason="second look"
                    )
                    record_decision(repo, dr_b, again, case=case)
        done = min(first + BATCH, start + records) - start
        print(f"{done} records ({time.perf_counter() - began:.0f} s)", file=sys.stderr)
    for n in range(start, start + min(sign, records)):
        sign_case(repo, dr_a, f"C-{n}", out=home / "pdfs" / f"C-{n}.pdf")
    repo.close()


def time_verify(home: Path) -> float:
    from concord.integrity import verify_installation
    from concord.store import Repository

    with Repository.open(home / "concord.sqlite") as repo:
        began = time.perf_counter()
        report = verify_installation(repo, home=home)
        seconds = time.perf_counter() - began
    print(
        f"audit verify: {report.rows} rows, {report.checked}, ok={report.ok}, "
        f"{len(report.problems)} problems, {len(report.warnings)} warnings: {seconds:.1f} s",
        file=sys.stderr,
    )
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--sign", type=int, default=20)
    parser.add_argument(
        "--times", action="store_true", help="time audit verify at 1/4, 1/2 and all the records"
    )
    args = parser.parse_args()
    args.home.mkdir(parents=True, exist_ok=True)
    if not args.times:
        build(args.home, args.records, args.sign)
        time_verify(args.home)
        return
    done = 0
    for size in (args.records // 4, args.records // 2, args.records):
        build(args.home, size - done, args.sign if done == 0 else 0, start=done)
        done = size
        seconds = time_verify(args.home)
        print(f"{size} records: {seconds:.1f} s, {1000 * seconds / size:.2f} ms a record")


if __name__ == "__main__":
    main()
