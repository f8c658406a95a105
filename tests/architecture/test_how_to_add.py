"""The README's "How to add ..." pages, followed step by step from the fixtures in
tests/fixtures/extension/: a gate, an input format, a specialty. Each test does what its
page says and nothing more, so a page that stops being true fails here."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from concord.adjudication.consults import choose_specialists
from concord.agents.prompts import brief_prompt
from concord.domain import Brief, DocumentKind, GateStatus, Record, SourceDocument
from concord.errors import InputError
from concord.paths import resources_dir
from concord.records.files import read_text
from concord.records.formats import input_format, unregister_format
from concord.records.load import file_filter, format_for, load_record
from concord.records.patients import plan_patients
from concord.resources import Resources
from concord.store import Repository
from concord.workbench.imports import import_paths

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "tests" / "fixtures" / "extension"
PARTS = ("agents", "gates", "lexicon", "prompts")


def readme_section(title: str) -> str:
    """The text of one `## title` section of the README (the page the test follows)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    head = f"## {title}\n"
    assert head in text, f"README has no section {title!r}"
    return text.split(head, 1)[1].split("\n## ", 1)[0]


def resources_copy(tmp_path: Path) -> Path:
    """A resources folder like the installed one, to add files to."""
    root = tmp_path / "resources"
    for part in PARTS:
        shutil.copytree(resources_dir() / part, root / part)
    shutil.copy(resources_dir() / "scoring.json", root / "scoring.json")
    return root


def record_of(text: str) -> Record:
    document = SourceDocument(source_id="clinic.txt", kind=DocumentKind.TXT, text=text)
    return Record(name="clinic.txt", documents=(document,))


def statuses(resources: Resources, text: str, gate_id: str) -> set[GateStatus]:
    return {h.status for h in resources.screen.screen(record_of(text)) if h.gate_id == gate_id}


# How to add a gate -------------------------------------------------------------------------


def test_a_gate_file_added_to_the_gates_folder_fires_on_a_record(tmp_path: Path) -> None:
    page = readme_section("How to add a gate")
    assert "resources/gates/" in page and "concord validate resources" in page
    root = resources_copy(tmp_path)
    before = Resources.load(root)
    text = "Pre-op bloods 01/03: Na 139, K+ 2.7 mmol/L, creatinine 80.\n"
    assert statuses(before, text, "hypokalaemia") == set()

    shutil.copy(EXTENSION / "gates" / "hypokalaemia.json", root / "gates")
    after = Resources.load(root)

    assert statuses(after, text, "hypokalaemia") == {GateStatus.TRIGGERED}
    assert statuses(after, text.replace("2.7", "4.1"), "hypokalaemia") == set()
    assert "hypokalaemia" in after.profiles["renal"].gate_ids  # its owner, from the file
    assert after.versions.gates != before.versions.gates  # a new version to validate


# How to add an input format ----------------------------------------------------------------


@pytest.fixture
def dictation_format() -> Iterator[None]:
    """The page's example: a dictation export (.dict) whose first line is a header."""

    @input_format("dictation", label="Dictation exports", suffixes=(".dict",))
    def load_dictation(path: Path) -> Record:
        header, _, body = read_text(path).partition("\n")
        document = SourceDocument(
            source_id=path.name, title=header.strip(), kind=DocumentKind.TXT, text=body
        )
        return Record(name=path.name, documents=(document,))

    yield
    unregister_format("dictation")


def test_a_registered_format_is_offered_by_the_file_filter_and_imports(
    dictation_format: None, repo: Repository, tmp_path: Path
) -> None:
    page = readme_section("How to add an input format")
    assert "@input_format" in page and "BUILTIN_FORMATS" in page
    assert "Dictation exports (*.dict)" in file_filter()
    assert "*.dict" in file_filter().split(";;")[0]  # in "Patient records (...)" too
    folder = tmp_path / "patient"
    folder.mkdir()
    path = folder / "clinic.dict"
    path.write_text("Dictated 01/03 by Dr Reed\nPatient: Ann Early\nK+ 6.4 mmol/L\n", "utf-8")

    fmt = format_for(path.with_suffix(".DICT"))
    assert fmt is not None and fmt.name == "dictation"
    record = load_record(path)
    assert record.documents[0].title == "Dictated 01/03 by Dr Reed"
    assert [p.files for p in plan_patients([folder])] == [(path,)]  # a folder import finds it
    result = import_paths(repo, [folder], "dr.clerk")  # the route of `concord import`
    (imported,) = result.imported
    assert imported.created and not result.skipped
    stored = repo.get_record(imported.record_id)
    assert stored.documents[0].text == "Patient: Ann Early\nK+ 6.4 mmol/L\n"


def test_without_the_registration_the_format_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "clinic.dict"
    path.write_text("header\nK+ 6.4\n", encoding="utf-8")
    assert "*.dict" not in file_filter()
    with pytest.raises(InputError, match=r"unsupported file type \.dict"):
        load_record(path)


# How to add a specialty --------------------------------------------------------------------


def test_a_specialty_profile_file_is_consulted_for_the_gates_it_owns(tmp_path: Path) -> None:
    page = readme_section("How to add a specialty")
    assert "resources/agents/" in page and '"specialty"' in page
    root = resources_copy(tmp_path)
    shutil.copy(EXTENSION / "agents" / "geriatrics.json", root / "agents")
    shutil.copy(EXTENSION / "gates" / "severe_frailty.json", root / "gates")
    shutil.copy(EXTENSION / "lexicon" / "frailty.json", root / "lexicon")
    resources = Resources.load(root)

    assert "geriatrics" in resources.specialist_ids
    profile = resources.profiles["geriatrics"]
    assert profile.gate_ids == ("severe_frailty",)
    prompt = brief_prompt(profile, resources.specialist_ids)
    assert "frailty scores" in prompt and "severe_frailty" in prompt
    anaesthetist = Brief(agent="anaesthetist", consult=("cardiology",))
    anaesthetist_prompt = brief_prompt(resources.profiles["anaesthetist"], resources.specialist_ids)
    assert "geriatrics" in anaesthetist_prompt  # it can be asked for

    frail = "Lives alone. Severely frail (CFS 7), two falls this year.\n"
    hits = resources.screen.screen(record_of(frail))
    assert {h.status for h in hits if h.gate_id == "severe_frailty"} == {GateStatus.TRIGGERED}
    chosen = choose_specialists(anaesthetist, hits, resources.specialist_ids, limit=1)
    assert chosen == ["cardiology", "geriatrics"]  # the owner of a major gate, beyond the cap
    robust = resources.screen.screen(record_of("Not frail; walks 5 miles daily.\n"))
    assert "geriatrics" not in choose_specialists(anaesthetist, robust, resources.specialist_ids, 1)
