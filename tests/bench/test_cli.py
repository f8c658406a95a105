"""`concord bench` on the command line, with a scripted runtime in place of the model."""

from __future__ import annotations

import json

import pytest

from concord.cli import build_parser, main
from concord.llm.registry import ModelEntry
from tests.bench.fakes import SwitchableRuntime

ENTRY = ModelEntry(
    name="scripted-bench",
    file="scripted.gguf",
    sha256="0" * 64,
    size=250_000_000,
    roles=("agent",),
    n_ctx=8192,
)


@pytest.fixture
def scripted_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("concord.cli.bench.install_default", lambda store: ENTRY)
    monkeypatch.setattr("concord.cli.bench.load_in_process", lambda entry: SwitchableRuntime())


def test_bench_is_registered() -> None:
    parser = build_parser()
    args = parser.parse_args(["bench", "--json", "--quick"])
    assert args.json and args.quick and args.func.__module__ == "concord.cli.bench"


def test_bench_json(scripted_model, capsys) -> None:
    assert main(["bench", "--json", "--quick", "--no-ui-probe"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["model"]["name"] == "scripted-bench"
    assert data["model"]["n_threads"] >= 1 and data["model"]["n_batch"] > 0
    assert data["figures"]["peak_rss_mb"]["target"]["value"] == 250 + 1024
    stall = data["figures"]["ui_max_stall_ms"]
    assert stall["met"] is None and "--no-ui-probe" in stall["note"]
    assert "ui_max_stall_ms" in data["not_measured"]
    assert data["all_met"] is False  # a figure that was not measured is not met


def test_bench_table(scripted_model, capsys) -> None:
    assert main(["bench", "--quick", "--no-ui-probe"]) == 0
    out = capsys.readouterr().out
    assert "prefix_reuse_speedup" in out and "compared with" in out
    assert "NOT MEASURED" in out
    for line in out.splitlines():
        if line.startswith("MISSED: "):
            for name in line.removeprefix("MISSED: ").split(", "):
                assert any(row.startswith(name) and "MISSED" in row for row in out.splitlines()), (
                    name
                )


def test_unknown_model_is_one_clear_error(capsys) -> None:
    assert main(["bench", "--json", "--model", "no-such-model"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no-such-model" in err[0]
