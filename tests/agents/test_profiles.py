import json
from pathlib import Path

import pytest

from concord.agents.profiles import AgentProfile, AgentRole, load_profiles, specialists
from concord.errors import InputError
from tests.spec import SPEC_GATE_TABLE

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


def test_every_gate_has_its_owner_from_the_gate_files(profiles: dict[str, AgentProfile]) -> None:
    # a specialist owns exactly the gates of its specialty; the anaesthetist those owned
    # by anaesthesia (they need no specialist); a shared gate also reaches its co-owner
    for gate_id, (owner, _) in SPEC_GATE_TABLE.items():
        holder = "anaesthetist" if owner == "anaesthesia" else owner
        assert gate_id in profiles[holder].gate_ids, (gate_id, holder)
    anaesthesia = {g for g, (owner, _) in SPEC_GATE_TABLE.items() if owner == "anaesthesia"}
    assert set(profiles["anaesthetist"].gate_ids) == anaesthesia
    assert "bleomycin_exposure" in profiles["respiratory"].gate_ids  # also_specialties
    assert {"neurology", "hepatology", "obstetrics"} <= {p.id for p in specialists(profiles)}


def test_a_profile_file_may_not_state_gate_ownership(tmp_path: Path) -> None:
    from concord.paths import resources_dir

    _copy_profiles(resources_dir() / "agents", tmp_path)
    path = tmp_path / "renal.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["gate_ids"] = ["hyperkalaemia"]
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError, match="stated in the gate file"):
        load_profiles(tmp_path)


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
