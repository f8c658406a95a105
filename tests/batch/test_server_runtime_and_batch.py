"""The llama.cpp server runtime (fail-over) and `concord batch`, against loopback servers
that answer like llama.cpp's OpenAI-compatible server (scripted: no model needed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from concord import netguard
from concord.batch import run_batch
from concord.errors import ModelError
from concord.llm.runtime import GenerationRequest
from concord.llm.server_runtime import LlamaServerRuntime
from concord.pipeline import PanelSettings
from concord.services import Services

from .conftest import free_port
from .fake_server import FakeLlamaServer

REQUEST = GenerationRequest(prefix="L1: potassium 6.3\n", prompt="TASK FOR THE RENAL\n",
                            schema={"properties": {"operation": {}}})


def write_records(directory: Path, n: int) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (directory / f"r{i}.json").write_text(json.dumps({
            "name": f"batch patient {i}", "operation": "Right knee arthroscopy",
            "documents": [{"source_id": "clinic", "text":
                           f"Clinic note {i}.\nPotassium 6.{i} mmol/L, eGFR 22.\n"
                           "Takes ramipril 10 mg.\n"}]}))
    return directory


def test_a_failed_request_is_retried_on_the_next_server(fake_servers):
    broken, good = FakeLlamaServer(status=500), FakeLlamaServer()
    fake_servers += [broken, good]
    refused = f"http://127.0.0.1:{free_port()}"
    netguard.allow([refused])  # nothing listens there: refused by the OS, not the guard
    runtime = LlamaServerRuntime([refused, broken.url, good.url])
    runtime.label = "renal"
    generation = runtime.generate(REQUEST)
    assert json.loads(generation.text)["operation"]
    first = runtime.log[-1]
    assert first.server == good.url and first.label == "renal"
    assert first.failed_over_from == (refused, broken.url)
    runtime.generate(REQUEST)  # the failed servers are now skipped while down
    assert runtime.log[-1].failed_over_from == () and len(broken.requests) == 1
    assert good.requests[0]["response_format"]["type"] == "json_object"


def test_a_refused_request_is_not_retried(fake_servers):
    bad_request, good = FakeLlamaServer(status=400), FakeLlamaServer()
    fake_servers += [bad_request, good]
    runtime = LlamaServerRuntime([bad_request.url, good.url])
    with pytest.raises(ModelError, match="HTTP 400"):
        runtime.generate(REQUEST)
    assert good.requests == []


def test_no_server_answering_is_a_clear_error():
    urls = [f"http://127.0.0.1:{free_port()}" for _ in range(2)]
    netguard.allow(urls)
    with pytest.raises(ModelError, match="no llama.cpp server could answer"):
        LlamaServerRuntime(urls, timeout=5).generate(REQUEST)


def test_a_proxy_in_the_environment_is_not_used(fake_servers, monkeypatch):
    good = FakeLlamaServer()
    fake_servers.append(good)
    monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{free_port()}")
    monkeypatch.setenv("no_proxy", "")
    LlamaServerRuntime([good.url]).generate(REQUEST)
    assert len(good.requests) == 1


def test_batch_survives_a_server_stopping_midway(fake_servers, tmp_path):
    first, second = FakeLlamaServer(delay=0.05), FakeLlamaServer(delay=0.05)
    fake_servers += [first, second]
    folder = write_records(tmp_path / "records", 5)
    svc = Services()
    events = []
    for event in run_batch(folder, [first.url, second.url], svc=svc, user="tester",
                           settings=PanelSettings(judges=0, max_specialists=1), queue_size=2):
        events.append(event)
        if event.kind == "saved" and sum(e.kind == "saved" for e in events) == 1:
            first.stop()
            stopped_at = len(first.requests)
    report = events[-1].report
    assert report is not None and report.ok, report.failed
    assert len(report.saved) == 5
    assert len(first.requests) == stopped_at  # nothing reached the stopped server after
    assert report.requests_by_server[second.url] > 0
    cases = [svc.repo.get_case(case_id) for _, case_id in report.saved]
    for case in cases:
        batch = case.meta["batch"]
        assert batch["requests"] and batch["model_verified"] is False
        assert {r["server"] for r in batch["requests"]} <= {first.url, second.url}
        assert batch["brief_servers"]["anaesthetist"] in (first.url, second.url)
        assert {b.agent for b in case.briefs} <= set(batch["brief_servers"])
    retried = [r for c in cases for r in c.meta["batch"]["requests"]
               if first.url in r["failed_over_from"]]
    assert len(retried) >= first.aborted  # a request cut off midway was retried elsewhere
    assert all(r["server"] == second.url for r in retried)
    late = cases[-1].meta["batch"]["requests"]
    assert all(r["server"] == second.url for r in late)
    svc.close()


def test_bad_files_in_the_folder_fail_alone(fake_servers, tmp_path):
    server = FakeLlamaServer()
    fake_servers.append(server)
    folder = write_records(tmp_path / "records", 1)
    (folder / "broken.json").write_text("{not json")
    svc = Services()
    report = list(run_batch(folder, [server.url], svc=svc, user="tester",
                            settings=PanelSettings(judges=0, max_specialists=1)))[-1].report
    assert report is not None
    assert [p.name for p, _ in report.failed] == ["broken.json"] and len(report.saved) == 1
    svc.close()


def concord(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "concord", *args], capture_output=True,
                          text=True, timeout=300, env={**os.environ, **env})


def test_cli_batch_needs_an_administrator_configured_server(fake_servers, tmp_path):
    server = FakeLlamaServer()
    fake_servers.append(server)
    folder = write_records(tmp_path / "records", 2)
    refused = concord("batch", str(folder), "--servers", server.url,
                      env={"CONCORD_LLAMA_SERVERS": ""})
    assert refused.returncode == 1
    assert refused.stderr.strip().splitlines()[-1].startswith("concord: error: ")
    assert "administrator-configured" in refused.stderr

    done = concord("batch", str(folder), "--servers", server.url, "--judges", "0",
                   "--max-specialists", "1", "--json", env={"CONCORD_LLAMA_SERVERS": server.url})
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert len(result["saved"]) == 2 and result["failed"] == []
    assert result["requests_by_server"][server.url] >= 2
