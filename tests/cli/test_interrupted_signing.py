"""Issue 28 item 10: a crash never hides a signed PDF. The export is killed (os._exit, as a
power cut or kill -9: no handler runs) at the two points that matter, and the next start of
the command line completes or rolls back the signing and says where the PDF is."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import concord
from concord.store import Repository
from tests.identity import PASSWORD
from tests.installation import CLINICIAN, decide_all

DESKTOP = Path(concord.__file__).resolve().parents[1]

KILL_AT_RENAME = """
import os, sys
real = os.replace
def replace(src, dst, *args, **kwargs):
    if str(dst) == sys.argv[-1]:
        os._exit(137)  # killed after the signature row committed, before the PDF is in place
    return real(src, dst, *args, **kwargs)
os.replace = replace
"""

KILL_BEFORE_COMMIT = """
import os
from concord.store import repository
def record_signature(*args, **kwargs):
    os._exit(137)  # killed after the signed PDF was written, before the row committed
repository.Repository.record_signature = record_signature
"""


def export_killed(injection: str, out: Path) -> int:
    call = f"main(['export-pdf', 'C-1', '--user', {CLINICIAN!r}, '--out', sys.argv[-1]])"
    code = f"{injection}\nimport sys\nfrom concord.cli import main\nsys.exit({call})\n"
    env = {**os.environ, "CONCORD_PASSWORD": PASSWORD, "PYTHONPATH": str(DESKTOP)}
    done = subprocess.run(
        [sys.executable, "-c", code, str(out)], env=env, capture_output=True, timeout=300
    )
    return done.returncode


def hidden_temporaries(folder: Path) -> list[Path]:
    return sorted(folder.glob(".*.tmp"))


def test_killed_between_the_committed_signature_and_the_rename(
    installation: Repository, run, tmp_path: Path
) -> None:
    decide_all(run)
    out = tmp_path / "pdfs" / "C-1.pdf"
    assert export_killed(KILL_AT_RENAME, out) == 137
    assert installation.case_status("C-1") == "signed" and not out.exists()
    assert hidden_temporaries(out.parent)  # where the crash left the signed bytes

    shown = run("show", "C-1", "--json")  # the next start, whatever the command
    assert shown.code == 0, shown.err
    assert f"its signed PDF is now in place at {out}" in shown.err
    assert out.exists() and not hidden_temporaries(out.parent)
    checked = run("verify-pdf", str(out), "--json").json()
    assert checked["valid"] and checked["currency"]["current"], checked
    assert run("audit", "verify", "--json", "--pdfs", str(out.parent)).json()["ok"]
    again = run("show", "C-1", "--json")
    assert "signing" not in again.err  # done once


def test_killed_before_the_signature_committed_is_rolled_back(
    installation: Repository, run, tmp_path: Path
) -> None:
    decide_all(run)
    out = tmp_path / "pdfs" / "C-1.pdf"
    assert export_killed(KILL_BEFORE_COMMIT, out) == 137
    assert installation.case_status("C-1") == "reviewed" and not out.exists()

    listed = run("cases", "--json")
    assert "nothing was signed" in listed.err and "temporary file was removed" in listed.err
    assert not hidden_temporaries(out.parent)
    signed = run("export-pdf", "C-1", "--user", CLINICIAN, "--out", str(out), password=PASSWORD)
    assert signed.code == 0, signed.err
