import json
from pathlib import Path

import pytest

from concord.agents.profiles import AgentProfile, AgentRole, load_profiles, specialists
from concord.errors import InputError
from tests.spec import SPEC_GATES

REQUIRED_SPECIALISTS = {
    "cardiology",
    "respiratory",
    "renal",
    "haematology",
    "oncology",
    "endocrine",
    "airway",
}


def test_bundled_profiles_cover_the_panel(profiles: dict[str, AgentProfile]) -> None:
    assert profiles["surgeon"].role == AgentRole.SURGEON
    assert profiles["anaesthetist"].role == AgentRole.ANAESTHETIST
    assert {p.id for p in specialists(profiles)} >= REQUIRED_SPECIALISTS
    assert "CAD/ACS" in profiles["cardiology"].tags


def test_every_gate_has_one_specialist_owner(profiles: dict[str, AgentProfile]) -> None:
    owned = [g for p in specialists(profiles) for g in p.gate_ids]
    assert sorted(owned) == sorted(SPEC_GATES)
    assert set(profiles["anaesthetist"].gate_ids) == SPEC_GATES


def _copy_profiles(src: Path, dst: Path) -> None:
    for path in src.glob("*.json"):
        (dst / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")


def test_bad_profile_names_the_file(tmp_path: Path) -> None:
    from concord.paths import resources_dir

    _copy_profiles(resources_dir() / "agents", tmp_path)
    bad = tmp_path / "renal.json"
    data = json.loads(bad.read_text(encoding="utf-8"))
    data["max_items"]["top_risks"] = 0
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_profiles(tmp_path)
    assert "renal.json" in str(info.value) and "top_risks" in str(info.value)


def test_malformed_json_and_id_mismatch_are_input_errors(tmp_path: Path) -> None:
    from concord.paths import resources_dir

    _copy_profiles(resources_dir() / "agents", tmp_path)
    (tmp_path / "airway.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match="airway.json"):
        load_profiles(tmp_path)
    data = json.loads((tmp_path / "renal.json").read_text(encoding="utf-8"))
    (tmp_path / "airway.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError, match="differs from the file name"):
        load_profiles(tmp_path)
