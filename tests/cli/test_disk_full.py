"""A completely full disk (a real one: a small tmpfs in a private mount namespace): export-pdf
says "the disk is full", leaves no PDF, no temporary file, no signature row and no audit
entry; read-only commands still work."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]  # the subprocess imports tests.*

_SCRIPT = r"""
import contextlib, io, json, os, sqlite3, sys
from pathlib import Path
root, where = Path(sys.argv[1]), sys.argv[2]
sys.path[:0] = [sys.argv[3]]
os.environ["CONCORD_HOME"] = str(root / "home")
import concord.pki.credentials as credentials
credentials.SCRYPT_N = 2**10
from tests import factories as f
from tests.identity import PASSWORD, enrol
from concord.cli import main
from concord.store import Repository

with Repository.open() as repo:
    enrol(repo, "Dr Smith", "clinician")
    rec = f.record(); repo.save_record(rec, "Dr Smith"); repo.save_case(f.case(rec), "Dr Smith")
os.environ["CONCORD_PASSWORD"] = PASSWORD

def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return {"code": code, "out": out.getvalue(), "err": err.getvalue()}

for target in json.loads(cli("show", "C-1", "--json")["out"])["outstanding"]:
    how = ["--disposition", "proceed"] if target.endswith("/disposition") else ["--accept"]
    assert cli("decide", "C-1", "--target", target, *how, "--reason", "ok",
               "--user", "Dr Smith")["code"] == 0
outdir = root / "out" if where == "pdf" else Path(sys.argv[4])
outdir.mkdir(exist_ok=True)
db = sqlite3.connect(root / "home" / "concord.sqlite")
audit_before = db.execute("SELECT count(*) FROM audit").fetchone()[0]
filler = root / "filler"
fd = os.open(filler, os.O_WRONLY | os.O_CREAT)  # fill the disk to the last byte
for size in (1 << 20, 65536, 4096, 512, 1):
    with contextlib.suppress(OSError):
        while os.write(fd, b"\0" * size):
            pass
os.close(fd)
result = {
    "export": cli("export-pdf", "C-1", "--user", "Dr Smith", "--out", str(outdir / "C-1.pdf")),
    "left": sorted(p.name for p in outdir.iterdir()),
    "cases": cli("cases", "--json"),
    "show": cli("show", "C-1", "--json")["code"],
    "verify": cli("audit", "verify", "--json")["code"],
    "signatures": db.execute("SELECT count(*) FROM signatures").fetchone()[0],
    "audit_added": db.execute("SELECT count(*) FROM audit").fetchone()[0] - audit_before,
}
print(json.dumps(result))
"""


def _run_on_full_disk(tmp_path: Path, where: str) -> dict:
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        pytest.skip("needs unshare and mount to make a small private file system")
    probe = subprocess.run(
        ["unshare", "-rm", "sh", "-c", f"mount -t tmpfs -o size=1m tmpfs {tmp_path}"],
        capture_output=True,
    )
    if probe.returncode != 0:
        pytest.skip(f"cannot mount a private tmpfs here: {probe.stderr.decode()[-200:]}")
    disk = tmp_path / "disk"
    disk.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    command = (
        f"mount -t tmpfs -o size=24m tmpfs {disk} && exec {sys.executable} -c "
        f'"$SCRIPT" {disk} {where} {REPO} {outside}'
    )
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", command],
        env={**_env(), "SCRIPT": _SCRIPT},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "CONCORD_PASSWORD"}


@pytest.mark.parametrize("where", ["pdf", "database"])
def test_export_pdf_on_a_full_disk(tmp_path: Path, where: str) -> None:
    """`pdf`: the PDF's folder is on the full disk; `database`: the database is, the PDF's
    folder is not (the signed PDF is ready but the signature cannot be recorded)."""
    result = _run_on_full_disk(tmp_path, where)
    export = result["export"]
    assert export["code"] == 1
    assert export["err"].startswith("concord: error: ") and export["err"].count("\n") == 1
    assert "the disk is full" in export["err"], export["err"]
    assert "I/O error" not in export["err"]
    assert result["left"] == []  # no PDF and no temporary file
    assert result["signatures"] == 0 and result["audit_added"] == 0
    assert result["cases"]["code"] == 0 and '"needs review"' not in result["cases"]["out"]
    assert '"reviewed"' in result["cases"]["out"]
    assert result["show"] == 0 and result["verify"] == 0
