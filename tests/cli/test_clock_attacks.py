"""Issue 28 item 1: order comes from the chain, not from anyone's clock. Each attack runs one
command of the real command line under `faketime` (a clock set back, set far ahead, a signer's
clock ahead); which decision is in force and whether a signed PDF is current must not move,
and the clock that ran backwards is reported by `audit verify` and on the case."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import concord
from concord.report.verify import attached_record
from concord.store import Repository
from concord.workbench.case_bundle import case_bundle
from tests.identity import PASSWORD, enrol
from tests.installation import CLINICIAN, decide_all

pytestmark = pytest.mark.skipif(
    shutil.which("faketime") is None, reason="faketime not installed (Debian package faketime)"
)
DESKTOP = Path(concord.__file__).resolve().parents[1]
OTHER = "Dr B"
GATE = "gate/hyperkalaemia"


def under_faketime(offset: str, *argv: str, user: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CONCORD_PASSWORD": PASSWORD, "PYTHONPATH": str(DESKTOP)}
    command = ["faketime", "-f", offset, sys.executable, "-m", "concord", *argv, "--user", user]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture
def two_clinicians(installation: Repository, run) -> Repository:
    enrol(installation, OTHER)
    decide_all(run)
    return installation


def export(run, out: Path, user: str = CLINICIAN) -> None:
    done = run("export-pdf", "C-1", "--user", user, "--out", str(out), password=PASSWORD)
    assert done.code == 0, done.err


def override(*offset: str, user: str = OTHER) -> None:
    argv = ("decide", "C-1", "--target", GATE, "--override", "negated", "--reason", "haemolysed")
    under_faketime(offset[0] if offset else "+0", *argv, user=user)


def test_a_decision_on_a_clock_set_back_still_makes_the_signed_pdf_not_current(
    two_clinicians: Repository, run, tmp_path: Path
) -> None:
    export(run, tmp_path / "a1.pdf")
    override("-2h")
    data = run("verify-pdf", str(tmp_path / "a1.pdf"), "--json").json()
    assert data["valid"] and data["currency"]["current"] is False
    assert data["currency"]["decisions_after_signing"] == 1
    report = run("audit", "verify", "--json").json()
    assert report["ok"]  # a wrong clock is not tampering: it is reported, not failed
    steps = [w for w in report["warnings"] if w["check"] == "clock"]
    assert steps and "clock ran backwards" in steps[0]["detail"] and steps[0]["subject"] == OTHER
    shown = run("show", "C-1", "--json").json()
    assert shown["clock_warnings"] and shown["clock_warnings"][0]["user"] == OTHER
    assert shown["clock_warnings"][0]["seconds_back"] > 3600
    note = case_bundle(two_clinicians, "C-1").note  # the banner under the app's case header
    assert note.startswith("Clock warning:") and OTHER in note


def test_a_decision_from_ten_years_ahead_is_not_in_force_over_later_ones(
    two_clinicians: Repository, run, tmp_path: Path
) -> None:
    export(run, tmp_path / "a1.pdf")
    override("+3650d")
    accepted = run(
        "decide",
        "C-1",
        "--target",
        GATE,
        "--accept",
        "--reason",
        "repeat K+ confirms",
        "--user",
        CLINICIAN,
        password=PASSWORD,
    )
    assert accepted.code == 0, accepted.err
    export(run, tmp_path / "a2.pdf")
    manifest = attached_record((tmp_path / "a2.pdf").read_bytes())
    assert manifest is not None
    in_force = manifest["decisions_in_force"][GATE]
    (decision,) = [d for d in manifest["decisions"] if d["decision_id"] == in_force]
    assert decision["user"] == CLINICIAN and decision["action"] == "accept"
    assert manifest["signature"]["meaning"] == "Reviewed — judgements accepted"
    assert GATE in manifest["supersedes"]["amended_targets"]
    warnings = run("show", "C-1", "--json").json()["clock_warnings"]
    assert any(w["user"] == CLINICIAN and w["seconds_back"] > 3600 * 24 * 3000 for w in warnings)


def test_a_signers_clock_running_ahead_does_not_keep_the_pdf_current(
    two_clinicians: Repository, run, tmp_path: Path
) -> None:
    out = tmp_path / "a1.pdf"
    under_faketime("+1d", "export-pdf", "C-1", "--out", str(out), user=CLINICIAN)
    override()
    data = run("verify-pdf", str(out), "--json").json()
    assert data["currency"]["current"] is False, data["currency"]
