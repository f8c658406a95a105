"""One Resources object: a content hash per part, candidate files read exactly as the
installed ones (the prompts reach every request), and a stored case read with its own
versions (its scoring config, not the file on disk)."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from concord import paths
from concord.agents.prompts import PREAMBLE_FILE, PromptSet
from concord.domain import RESOURCE_PARTS
from concord.pipeline import PanelSettings
from concord.records import load_record
from concord.resources import Resources, case_resources, files_sha256, part_files, versions_of
from concord.services import Services
from concord.site import SiteStore
from tests.fake_agents import scripted_runtime
from tests.validation.conftest import RECORD


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("res") / "resources"
    shutil.copytree(paths.resources_dir(), target)
    return target


def test_each_part_has_its_own_hash(copy: Path) -> None:
    installed = Resources.installed().versions
    assert versions_of(copy) == installed
    gate = copy / "gates" / "08_hypoxaemia.json"
    original = gate.read_text()
    try:
        gate.write_text(original.replace('"title"', '"title" ', 1))
        changed = versions_of(copy)
        assert changed.changed_parts(installed) == ("gates",)
        assert changed.lexicon == installed.lexicon
    finally:
        gate.write_text(original)
    files = part_files(copy, "scoring")
    assert files_sha256(files) == installed.scoring and list(files) == ["scoring.json"]
    assert set(installed.as_dict()) == set(RESOURCE_PARTS)


def test_a_candidate_prompt_set_reaches_every_request_and_the_case(copy: Path) -> None:
    preamble = copy / "prompts" / PREAMBLE_FILE
    preamble.write_text(
        "SITE PREAMBLE v2: read the record as a clinician.\n" + preamble.read_text()
    )
    installed = Resources.installed()
    candidate = dataclasses.replace(
        installed,
        prompts=PromptSet.load(copy / "prompts"),
        versions=installed.versions.model_copy(update={"prompts": versions_of(copy).prompts}),
    )
    runtime = scripted_runtime()
    svc = Services()
    try:
        record = load_record(RECORD)
        svc.repo.save_record(record, "tester")
        events = svc.run_panel(
            record, runtime, PanelSettings(judges=1, max_specialists=2), resources=candidate
        )
        case = next(e.case for e in events if e.case is not None)
    finally:
        svc.close()
    assert runtime.requests and all("SITE PREAMBLE v2" in r.prefix for r in runtime.requests)
    assert case.resources == candidate.versions != installed.versions
    assert case.resources is not None and case.resources.prompts != installed.versions.prompts
    default = installed.prompts.text(PREAMBLE_FILE)
    assert all(b.prompt_sha256 for b in case.briefs) and "SITE PREAMBLE" not in default


def test_a_stored_case_is_read_with_its_own_scoring_config(copy: Path) -> None:
    scoring = copy / "scoring.json"
    data = json.loads(scoring.read_text())
    data["overall_cap_on_major_miss"] = 59.0
    data["version"] = "site-2026-1"
    scoring.write_text(json.dumps(data))
    installed = Resources.installed()
    svc = Services()
    try:
        store = SiteStore(svc.repo)
        site_versions = versions_of(copy)
        store.save_snapshots(
            site_versions, {p: part_files(copy, p) for p in RESOURCE_PARTS}, "tester"
        )
        record = load_record(RECORD)
        svc.repo.save_record(record, "tester")
        events = svc.run_panel(record, scripted_runtime(), PanelSettings(judges=0))
        case = next(e.case for e in events if e.case is not None)
        stored = case.model_copy(update={"resources": site_versions})
        used = case_resources(svc.repo, stored)
        assert used.scoring.overall_cap_on_major_miss == 59.0
        assert installed.scoring.overall_cap_on_major_miss != 59.0
        assert case_resources(svc.repo, case) is installed  # its versions are the installed
    finally:
        svc.close()
