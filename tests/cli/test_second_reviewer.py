"""Signing a case you decided nothing on (issue 28, item 2): allowed, as a second review
with its own meaning, never as "Reviewed — judgements accepted" as if the signer had
decided them; the PDF, its stamp's meaning and verify-pdf say so."""

from __future__ import annotations

from pathlib import Path

from pypdf import PdfReader

from concord.report.pdf import MEANING_ACCEPTED, MEANING_SECOND_REVIEW
from concord.store import Repository
from tests.identity import PASSWORD, enrol
from tests.installation import CLINICIAN, decide_all

SECOND = "Dr Jones"


def _text(pdf: Path) -> str:
    return " ".join("".join(p.extract_text() for p in PdfReader(pdf).pages).split())


def test_a_clinician_who_decided_nothing_signs_as_a_second_reviewer(
    installation: Repository, run, tmp_path: Path
) -> None:
    enrol(installation, SECOND, "clinician")
    decide_all(run)  # every judgement decided by Dr Smith
    out = tmp_path / "second.pdf"
    signed = run("export-pdf", "C-1", "--user", SECOND, "--out", str(out), "--json",
                 password=PASSWORD)  # fmt: skip
    assert signed.code == 0, signed.err
    assert signed.json()["meaning"] == MEANING_SECOND_REVIEW
    text = _text(out)
    assert "Second review" in text and f"decided by {CLINICIAN}" in text
    assert MEANING_ACCEPTED not in text
    checked = run("verify-pdf", str(out), "--json").json()
    assert checked["valid"] and checked["meaning"] == MEANING_SECOND_REVIEW


def test_the_clinician_who_decided_signs_with_the_ordinary_meaning(
    installation: Repository, run, tmp_path: Path
) -> None:
    decide_all(run)
    out = tmp_path / "first.pdf"
    signed = run("export-pdf", "C-1", "--user", CLINICIAN, "--out", str(out), "--json",
                 password=PASSWORD)  # fmt: skip
    assert signed.code == 0 and signed.json()["meaning"] == MEANING_ACCEPTED
    assert "Second review" not in _text(out)
