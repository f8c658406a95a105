"""One meaning of a folder of records (`concord.records.patients`): importing the folder and
running a batch over it find the same patients, the same files that are not patients and the
same files that are not records."""

from __future__ import annotations

import json
import os
from pathlib import Path

from concord.batch import run_batch
from concord.pipeline import PanelSettings
from concord.services import Services
from concord.store import Repository
from concord.workbench.imports import import_paths
from tests.llm.fake_llama_server import FakeLlamaServer


def clinic_folder(root: Path, outside: Path) -> Path:
    """A bundle per patient, a patient's folder of letters, loose letters that name their
    patient, a README that names no one, an unsupported file, a hidden file, a link."""
    (root / "ashcroft").mkdir(parents=True)
    (root / "ashcroft" / "clinic.txt").write_text(
        "Patient: Doreen Ashcroft   DOB 04/05/1948\nK+ 6.3 mmol/L, eGFR 22.\n"
    )
    (root / "ashcroft" / "bloods.md").write_text("Haemoglobin 98 g/L.\n")
    (root / "ashcroft" / "scan.docx").write_bytes(b"PK\x03\x04")  # stray in a patient folder
    (root / "pell.json").write_text(
        json.dumps(
            {
                "name": "Martin Pell",
                "operation": "Right knee arthroscopy",
                "documents": [{"source_id": "clinic", "text": "Takes ramipril 10 mg.\n"}],
            }
        )
    )
    (root / "jane.txt").write_text("Patient: Jane Doe   DOB 02/03/1950\nLVEF 30%.\n")
    (root / "README.md").write_text("# Clinic list\n\nSynthetic records for the demo.\n")
    (root / "notes.docx").write_bytes(b"PK\x03\x04")
    (root / ".DS_Store").write_bytes(b"\x00")
    outside.write_text("Patient: Someone Else   DOB 01/01/1970\n")
    os.symlink(outside, root / "elsewhere.txt")
    return root


def test_import_and_batch_read_a_folder_alike(fake_servers, repo: Repository, tmp_path: Path):
    folder = clinic_folder(tmp_path / "clinic", tmp_path / "outside.txt")
    imported = import_paths(repo, [folder], "dr.clerk")

    server = FakeLlamaServer()
    fake_servers.append(server)
    svc = Services()
    try:
        report = list(
            run_batch(
                folder,
                [server.url],
                svc=svc,
                user="dr.clerk",
                settings=PanelSettings(judges=0, max_specialists=1),
            )
        )[-1].report
    finally:
        svc.close()
    assert report is not None

    def names(paths) -> list[str]:
        return sorted(Path(p).name for p in paths)

    patients = names(r.path for r in imported.imported)
    assert patients == ["ashcroft", "jane.txt", "pell.json"]
    assert names(p for p, _ in report.saved) == patients
    not_records = names(s.path for s in imported.skipped if s.patient)
    assert not_records == ["elsewhere.txt", "notes.docx"]
    assert names(p for p, _ in report.failed) == not_records
    stray = names(s.path for s in imported.skipped if not s.patient)
    assert stray == ["README.md", "scan.docx"]
    assert names(p for p, _ in report.skipped) == stray
    assert report.ok is False  # two files given as patients could not be read
