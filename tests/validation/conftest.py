"""Two registered stand-in models answering through the scripted runtime (no weights): `good`
writes full, valid briefs; `weak` never writes a valid one. Runs without --model use the
scripted stand-in itself, which is accepted for demonstration only, as the embedded model is."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from concord.llm.registry import ModelStore
from concord.llm.runtime import GenerationRequest
from concord.llm.scripted import SCRIPTED_SHA256, ScriptedRuntime
from concord.resources import Resources
from concord.services import Services
from concord.store import Repository
from tests.fake_agents import full_writer
from tests.identity import PASSWORD, enrol
from tests.installation import CLINICIAN, Ran, make_run
from tests.ui.helpers import make_window  # noqa: F401 - the window fixture, for test_page

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo"
RECORD = DEMO / "03_ckd_hyperkalaemia.json"


def weak_writer(request: GenerationRequest) -> str:
    """A model that names an operation and never fits the brief schema."""
    if "operation" in (request.schema or {}).get("properties", {}):
        return json.dumps({"operation": "Knee arthroscopy", "rationale": "record"})
    return json.dumps({"risks": "none"})


@pytest.fixture
def models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModelStore:
    folder = tmp_path / "models"
    folder.mkdir()
    monkeypatch.setenv("CONCORD_MODELS", str(folder))
    store = ModelStore.open(folder)
    for name in ("good", "weak"):
        file = folder / f"{name}.gguf"
        file.write_bytes(f"GGUF stand-in for {name}".encode())
        store.add(file, role=["agent", "judge"], name=name, n_ctx=8192)

    def runtime(self: Services, name: str | None = None) -> ScriptedRuntime:
        if name is None or name == "scripted":
            return ScriptedRuntime(full_writer(), model_sha256=SCRIPTED_SHA256)
        entry = self.model_entry(name)
        writer = weak_writer if entry.name == "weak" else full_writer()
        return ScriptedRuntime(writer, model_name=entry.name, model_sha256=entry.sha256)

    monkeypatch.setattr(Services, "runtime", runtime)
    return store


@pytest.fixture
def run(capsys, monkeypatch) -> Callable[..., Ran]:
    """`concord ...` with the clinician's password in the environment unless told."""
    call = make_run(capsys, monkeypatch)

    def signed_in(*argv: str, password: str | None = PASSWORD, **kw: str | None) -> Ran:
        return call(*argv, password=password, **kw)

    return signed_in


def write_policy(home: Path, **values: object) -> None:
    (home / "policy.json").write_text(json.dumps({"version": 1, **values}), encoding="utf-8")


LENIENT = {
    "min_reference_cases": 1,
    "min_judge_n": 1,
    "min_judge_kappa_lower": None,
    "max_drop_vs_accepted": None,
    "min_gates_addressed": None,  # the stand-in's briefs address 2 of 5 under claim support
}
"""A site that accepts on one patient (the tests' reference set is one record)."""


@pytest.fixture
def site(repo: Repository, models: ModelStore, monkeypatch: pytest.MonkeyPatch) -> Repository:
    enrol(repo, CLINICIAN, "clinician")
    monkeypatch.setenv("CONCORD_USER", CLINICIAN)  # runs and validations are signed in
    return repo


def decide(run, case_id: str, target: str, *extra: str) -> None:
    """Accept the judgement (a red flag: a disposition, 'proceed'), or decide it as `extra`."""
    if not extra:
        red_flag = target.endswith("/disposition")
        extra = ("--disposition", "proceed") if red_flag else ("--accept",)
    done = run(
        "decide", case_id, "--target", target, *extra,
        "--reason", "checked against the record", "--user", CLINICIAN, password=PASSWORD,
    )  # fmt: skip
    assert done.code == 0, done.err


def reviewed_case(run) -> tuple[str, str]:
    """A demonstration case of RECORD, every required judgement decided; one triggered gate
    other than hyperkalaemia overridden as a false fire. Returns (case id, that gate)."""
    made = run("run", str(RECORD), "--json", password=PASSWORD)
    assert made.code == 0, made.err
    data = made.json()
    assert data["mode"] == "demonstration" and not data["silent"]
    assert "DEMONSTRATION ONLY" in data["site"]
    assert set(data["resources"]) == {"gates", "lexicon", "prompts", "agents", "scoring"}
    case_id = data["case_id"]
    fired = [t["id"] for t in data["targets"] if t["kind"] == "gate" and t["value"] == "triggered"]
    assert "gate/hyperkalaemia" in fired
    false_fire = next(t for t in fired if t != "gate/hyperkalaemia")
    for target in data["outstanding"]:
        if target == f"{false_fire}/disposition":  # a false fire: not relevant, and negated
            decide(run, case_id, target, "--disposition", "not-relevant")
            decide(run, case_id, false_fire, "--override", "negated")
        else:
            decide(run, case_id, target)
    for target in (t["id"] for t in data["targets"] if t["kind"] == "overall"):
        decide(run, case_id, target)  # not required (an AI score): decided for the judge's n
    reported = {t["id"] for t in data["targets"] if t["kind"] == "gate"}
    missed = next(g for g in sorted(Resources.installed().gate_ids) if f"gate/{g}" not in reported)
    decide(run, case_id, f"gate/{missed}", "--override", "triggered")  # the screen missed it
    return case_id, false_fire
