"""Another patient's data never enters a record (issue 28, item 6): a folder import follows no
symbolic link and says what it skipped; a contained resource about another patient is
refused like a top-level one; a coded value no measurement can have is refused with one line
naming the file."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from concord.errors import InputError
from concord.records import load_record
from concord.records.patients import load_patients, plan_patients

LOINC = "http://loinc.org"
UCUM = "http://unitsofmeasure.org"


def _obs(oid: str, value: Any, subject: str = "Patient/p1", name: str = "Potassium") -> dict:
    return {
        "resourceType": "Observation",
        "id": oid,
        "status": "final",
        "code": {"coding": [{"system": LOINC, "code": "2823-3", "display": name}], "text": name},
        "subject": {"reference": subject},
        "effectiveDateTime": "2025-01-10",
        "valueQuantity": {"value": value, "unit": "mmol/L", "system": UCUM, "code": "mmol/L"},
    }


PATIENT = {"resourceType": "Patient", "id": "p1", "name": [{"family": "One", "given": ["Pat"]}]}


def _bundle(*resources: dict) -> dict:
    return {
        "resourceType": "Bundle",
        "type": "collection",
        "entry": [{"fullUrl": f"{r['resourceType']}/{r['id']}", "resource": r} for r in resources],
    }


def _write(tmp_path: Path, data: dict | str, name: str = "bundle.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


# -- folders and symbolic links ---------------------------------------------------------------


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "clinic"
    (root / "patient1").mkdir(parents=True)
    (root / "patient2").mkdir()
    (root / "patient1" / "letter.txt").write_text("Patient one. K+ 4.1 mmol/L\n")
    (root / "patient2" / "letter.txt").write_text("Patient TWO, private. HIV positive.\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("not part of the import\n")
    os.symlink("../patient2/letter.txt", root / "patient1" / "other.txt")  # another patient
    os.symlink("../patient2", root / "patient1" / "more")  # a folder of another patient
    os.symlink(outside, root / "hostname.txt")  # a file outside the import
    os.symlink(".", root / "loop")  # back to the folder: every patient's files
    return root


def test_a_folder_import_follows_no_symbolic_link_and_says_what_it_skipped(folder: Path) -> None:
    loaded = list(load_patients(plan_patients([folder])))
    records = {e.source.label.name: e.record for e in loaded if e.record is not None}
    assert set(records) == {"patient1", "patient2"}
    one = records["patient1"]
    assert "TWO" not in "".join(d.text for d in one.documents)
    assert [d.source_id for d in one.documents] == ["letter.txt"]
    skipped = {e.source.label.name: e.problem for e in loaded if e.record is None}
    assert set(skipped) == {"hostname.txt", "loop"}
    assert all("symbolic link, not followed" in why for why in skipped.values())
    patient1 = next(e for e in loaded if e.source.label.name == "patient1")
    assert {(p.name, why) for p, why in patient1.source.skipped} == {
        ("other.txt", "symbolic link, not followed"),
        ("more", "symbolic link, not followed"),
    }


def test_the_cli_import_reports_the_links_it_skipped(folder: Path, capsys) -> None:
    from concord.cli import main

    code = main(["import", str(folder), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1  # something was skipped
    assert len(data["records"]) == 2
    problems = [s["problem"] for s in data["skipped"]]
    assert sum("symbolic link, not followed" in p for p in problems) == 4


# -- FHIR: another patient's resource, top level or contained ---------------------------------


def test_a_contained_observation_about_another_patient_is_refused(tmp_path: Path) -> None:
    report = {
        "resourceType": "DiagnosticReport",
        "id": "r1",
        "status": "final",
        "code": {"text": "Renal profile"},
        "subject": {"reference": "Patient/p1"},
        "contained": [_obs("k", 6.8, subject="Patient/p2")],
        "result": [{"reference": "#k"}],
    }
    path = _write(tmp_path, _bundle(PATIENT, report))
    with pytest.raises(InputError, match=r"contained #k: subject 'Patient/p2' is not the bundle"):
        load_record(path)
    top = _write(tmp_path, _bundle(PATIENT, _obs("k", 6.8, subject="Patient/p2")), "top.json")
    with pytest.raises(InputError, match="is not the bundle's patient"):
        load_record(top)
    same = dict(report, contained=[_obs("k", 6.8)])  # the same report about this patient
    record = load_record(_write(tmp_path, _bundle(PATIENT, same), "ok.json"))
    assert "Potassium 6.8 mmol/L" in "".join(d.text for d in record.documents)


def test_without_a_patient_resource_two_subjects_are_two_patients(tmp_path: Path) -> None:
    bundle = _bundle(_obs("a", 4.1, subject="Patient/p1"), _obs("b", 6.8, subject="Patient/p2"))
    with pytest.raises(InputError, match="another patient"):
        load_record(_write(tmp_path, bundle))


# -- coded values no measurement can have -----------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("1e308", "not a plausible measurement"),
        ("-6.8", "below zero"),
        ("9" * 4001, "not a plausible measurement"),
    ],
)
def test_an_implausible_coded_value_is_refused_naming_the_file(
    tmp_path: Path, raw: str, expected: str
) -> None:
    text = json.dumps(_bundle(PATIENT, _obs("k", 1))).replace('"value": 1,', f'"value": {raw},')
    path = _write(tmp_path, text)
    with pytest.raises(InputError) as caught:
        load_record(path)
    line = caught.value.one_line()
    assert str(path) in line and "Observation/k" in line and expected in line
    assert "\n" not in line and len(line) < 300


@pytest.mark.parametrize(("name", "unit"), [("Base excess", "mmol/L"), ("Temperature", "Cel")])
def test_a_signed_quantity_may_be_below_zero(tmp_path: Path, name: str, unit: str) -> None:
    obs = _obs("x", -3.5, name=name)
    obs["valueQuantity"].update({"unit": unit, "code": unit})
    record = load_record(_write(tmp_path, _bundle(PATIENT, obs)))
    assert record.coded[0].quantity is not None and record.coded[0].quantity.value == -3.5
