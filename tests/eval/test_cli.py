"""`concord eval` end to end with a scripted runtime and a fake embedder, --json output."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

import concord.cli.eval as eval_cli
from concord.errors import ConcordError
from concord.llm.scripted import ScriptedRuntime
from concord.services import Services
from concord.store import Repository
from tests.eval.helpers import FakeEmbedder, scripted_answers
from tests.identity import PASSWORD, enrol


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    parser = argparse.ArgumentParser(prog="concord")
    eval_cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["eval", *argv, "--json"])
    assert args.func(args) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def fake_models(monkeypatch: pytest.MonkeyPatch) -> None:
    def runtime(self: Services, name: str | None = None) -> ScriptedRuntime:
        entry = self.model_entry(name)
        return ScriptedRuntime(scripted_answers, model_name=entry.name, model_sha256=entry.sha256)

    def embedder(entry):
        fake = FakeEmbedder()
        fake.model_sha256 = entry.sha256
        return fake

    monkeypatch.setattr(Services, "runtime", runtime)
    monkeypatch.setattr(eval_cli, "GgufEmbedder", embedder)


def test_the_eval_loop_from_the_command_line(
    capsys: pytest.CaptureFixture[str],
    question_file: Path,
    fake_models: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    set_id = run(capsys, "import", str(question_file))["set_id"]
    for t in ("0.2", "1.8"):
        out = run(capsys, "generate", set_id, "--temperature", t, "--k", "3")
        assert out["generated"] == 6
    ranking = run(capsys, "similarity", set_id)["configurations"]
    assert [r["temperature"] for r in ranking] == [0.2, 1.8] and ranking[0]["rank"] == 1
    answers = run(capsys, "answers", set_id)["answers"]
    monkeypatch.setenv("CONCORD_PASSWORD", PASSWORD)
    with pytest.raises(ConcordError, match="ann"):  # graders must be registered users
        run(capsys, "grade", answers[0]["answer_id"], "--good", "--reason", "r", "--user", "ann")
    with Repository.open() as repo:
        enrol(repo, "ann", "annotator")
    for a in answers:
        flag = "--good" if a["temperature"] < 1 else "--bad"
        run(capsys, "grade", a["answer_id"], flag, "--reason", "read", "--user", "ann")
    assert run(capsys, "answers", set_id, "--ungraded")["answers"] == []
    monkeypatch.setenv("CONCORD_USER", "ann")  # users exist now: jobs run signed in
    trained = run(capsys, "train-reward", set_id, "--seed", "5")
    assert trained["version"].startswith("RM-") and trained["graded"] == 12
    table = run(capsys, "reject", set_id, "--k", "3")
    assert table["reward_model"] == trained["version"]
    assert set(table["columns"]) == {"overall", "positive", "mixed", "negative"}
    assert table["columns"]["overall"]["graded_answers"] == 12
    agreement = run(capsys, "agreement", "--kind", "eval_grade")
    assert agreement["judge_vs_human"] == []  # no prediction was shown when grading


def test_bad_input_is_one_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONCORD_PASSWORD", PASSWORD)
    parser = argparse.ArgumentParser(prog="concord")
    eval_cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["eval", "import", str(tmp_path / "missing.jsonl")])
    with pytest.raises(ConcordError, match="file not found"):
        args.func(args)
    args = parser.parse_args(
        ["eval", "grade", "EA-nope", "--good", "--reason", "r", "--user", "ann"]
    )
    with pytest.raises(ConcordError, match="no such answer"):
        args.func(args)
