"""`concord demo --busy N`: the demo patients beside N processes that keep a core busy each,
so the time per patient on a workstation that is not idle is one command; none of them is
left running after it."""

from __future__ import annotations

import os
from pathlib import Path

from concord.bench.load import SPIN
from concord.llm.runtime import GenerationRequest
from concord.services import Services
from tests.fake_agents import scripted_runtime


def _my_spinners() -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if SPIN.encode() in cmdline and str(os.getpid()).encode() in cmdline:
            found.append(int(entry.name))
    return found


def test_the_demo_runs_beside_busy_processes_and_leaves_none(run, monkeypatch) -> None:
    seen: list[int] = []
    writer = scripted_runtime()

    class Watching:
        model_name, model_sha256 = writer.model_name, writer.model_sha256

        def generate(self, request: GenerationRequest):
            seen.append(len(_my_spinners()))
            return writer.generate(request)

        def close(self) -> None:
            pass

    monkeypatch.setattr(Services, "runtime", lambda self, name=None: Watching())
    ran = run("demo", "--patients", "1", "--model", "scripted", "--busy", "2", "--json")
    assert ran.code == 0, ran.err
    assert ran.json()["busy_processes"] == 2 and len(ran.json()["cases"]) == 1
    assert seen and set(seen) == {2}  # every model call ran beside both
    assert "beside 2 busy process(es)" in ran.err
    assert _my_spinners() == []
