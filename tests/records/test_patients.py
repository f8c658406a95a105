"""Folder import: one patient per bundle or per folder, a patient whole or skipped with the
reason, progress per patient, and the CLI summary."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from concord.bench.scan_pages import DISCHARGE_SUMMARY, PageSpec, image_only_pdf, render_page
from concord.cli import main
from concord.records.patients import load_patients, plan_patients

FHIR = Path(__file__).resolve().parent.parent / "fixtures" / "records" / "fhir"


@pytest.fixture
def inbox(tmp_path: Path) -> Path:
    """Two bundles, a patient folder (bundle + faxed discharge summary), a broken patient
    folder, and a stray file."""
    root = tmp_path / "inbox"
    (root / "ashcroft").mkdir(parents=True)
    (root / "broken").mkdir()
    shutil.copy(FHIR / "halloran.json", root / "halloran.json")
    shutil.copy(FHIR / "pell.json", root / "pell.json")
    shutil.copy(FHIR / "ashcroft.json", root / "ashcroft" / "bundle.json")
    fax = PageSpec("fax", DISCHARGE_SUMMARY, "serif", dpi=100, fax=True, noise=0.003, seed=4)
    (root / "ashcroft" / "discharge.pdf").write_bytes(image_only_pdf([render_page(fax)], 100))
    (root / "ashcroft" / ".DS_Store").write_bytes(b"\x00")
    bundle = json.loads((FHIR / "pell.json").read_text())
    bundle["type"] = "history"
    (root / "broken" / "bundle.json").write_text(json.dumps(bundle))
    (root / "notes.docx").write_bytes(b"PK\x03\x04")
    return root


def test_plan_one_patient_per_bundle_or_folder(inbox: Path) -> None:
    plan = plan_patients([inbox])
    assert [p.label.name for p in plan] == [
        "ashcroft",
        "broken",
        "halloran.json",
        "notes.docx",
        "pell.json",
    ]
    folder = plan[0]
    assert [f.name for f in folder.files] == ["bundle.json", "discharge.pdf"]


def test_patients_load_whole_or_are_skipped(inbox: Path) -> None:
    events = list(load_patients(plan_patients([inbox])))
    assert [(e.index, e.total) for e in events] == [(i, 5) for i in range(1, 6)]
    loaded = {e.source.label.name: e for e in events}
    ashcroft = loaded["ashcroft"].record
    assert ashcroft is not None
    assert ashcroft.name == "Doreen ASHCROFT (FHIR)"
    kinds = {d.source_id: d.kind for d in ashcroft.documents}
    assert kinds["discharge.pdf"] == "ocr" and kinds["Observation/lvef"] == "fhir"
    assert any(f.resource == "Observation/lvef" for f in ashcroft.coded)
    assert loaded["broken"].record is None and "history" in loaded["broken"].problem
    assert "broken" in loaded["broken"].problem and "bundle.json" in loaded["broken"].problem
    assert loaded["notes.docx"].record is None and "file type" in loaded["notes.docx"].problem


def test_cli_folder_import_summary(inbox: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", str(inbox), "--json"]) == 1  # something was skipped
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert sorted(Path(r["path"]).name for r in out["records"]) == [
        "ashcroft",
        "halloran.json",
        "pell.json",
    ]
    assert sorted(Path(s["path"]).name for s in out["skipped"]) == ["broken", "notes.docx"]
    assert "[5/5]" in captured.err
    # importing again: nothing new, the same ids
    assert main(["import", str(inbox), "--json"]) == 1
    again = json.loads(capsys.readouterr().out)
    assert [r["record_id"] for r in again["records"]] == [r["record_id"] for r in out["records"]]
    assert not any(r["created"] for r in again["records"])


def test_cli_screen_reads_a_bundle(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["screen", str(FHIR / "halloran.json"), "--json"]) == 0
    (result,) = json.loads(capsys.readouterr().out)["records"]
    gates = {g["gate_id"]: g for g in result["gates"]}
    assert gates["hyperkalaemia"]["status"] == "triggered"
    evidence = gates["hyperkalaemia"]["evidence"]
    assert any(e["source_id"] == "Observation/k-new" and "6.4" in e["text"] for e in evidence)
