"""An installation written by Concord at commit 524ad61 (schema 4: decisions signed without a
payload version, audit rows of version 1, a review record of version 1 in its signed PDF),
opened by this code: it migrates, every old decision, statement and signature still verifies,
and new decisions and rows are written in the current versions beside the old ones."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from concord import paths
from concord.report.verify import attached_record
from concord.store import Repository
from tests.identity import PASSWORD
from tests.installation import CLINICIAN

LEGACY = Path(__file__).parents[1] / "fixtures" / "legacy_home"


@pytest.fixture
def legacy(concord_home: Path, tmp_path: Path) -> Path:
    """The old installation in CONCORD_HOME; returns the folder holding its signed PDF."""
    conn = sqlite3.connect(paths.database_path())
    conn.executescript((LEGACY / "concord-524ad61.sql").read_text(encoding="utf-8"))
    conn.close()
    shutil.copytree(LEGACY / "pki", concord_home / "pki")
    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    shutil.copyfile(LEGACY / "C-1.pdf", pdfs / "C-1.pdf")
    return pdfs


def test_everything_stored_before_versions_still_verifies(legacy: Path, run) -> None:
    done = run("audit", "verify", "--json", "--pdfs", str(legacy))
    report = done.json()
    assert report["ok"], report["problems"]
    assert report["checked"]["decisions"] >= 3 and report["checked"]["pdfs"] == 1
    with Repository.open() as repo:
        old = repo.decisions(case_id="C-1")
        assert {d.payload_version for d in old} == {1}
        assert [d.seq for d in old] == sorted(d.seq for d in old)  # chain order from the join
    manifest = attached_record((legacy / "C-1.pdf").read_bytes())
    assert manifest is not None and manifest["version"] == 1


def test_the_old_pdf_is_not_current_by_chain_order(legacy: Path, run) -> None:
    data = run("verify-pdf", str(legacy / "C-1.pdf"), "--json").json()
    assert data["valid"] and data["currency"]["known"]
    assert data["currency"]["current"] is False  # DEC-legacy-after came after its head
    assert data["currency"]["decisions_after_signing"] == 1


def test_new_decisions_beside_old_ones_verify(legacy: Path, run) -> None:
    with Repository.open() as repo:
        target = repo.decisions(case_id="C-1")[0].target_id
    done = run(
        "decide",
        "C-1",
        "--target",
        target,
        "--accept",
        "--reason",
        "fresh look",
        "--user",
        CLINICIAN,
        password=PASSWORD,
    )
    assert done.code == 0, done.err
    report = run("audit", "verify", "--json", "--pdfs", str(legacy)).json()
    assert report["ok"], report["problems"]
    with Repository.open() as repo:
        rows = repo.audit_rows()
        decided = [r for r in rows if r.action.startswith("decide")]
        assert decided[0].row_version == 1 and not decided[0].signature
        assert decided[-1].row_version == 2 and decided[-1].signature
