"""Batch evaluation over llama.cpp servers (`concord batch`, `concord run --batch`), against
loopback servers that answer like llama.cpp's (scripted: no model needed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from concord.batch import run_batch
from concord.cli import main
from concord.pipeline import PanelSettings
from concord.services import Services
from tests.llm.fake_llama_server import LLAMA_SERVER, FakeLlamaServer


def write_records(directory: Path, n: int) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (directory / f"r{i}.json").write_text(
            json.dumps(
                {
                    "name": f"batch patient {i}",
                    "operation": "Right knee arthroscopy",
                    "documents": [
                        {
                            "source_id": "clinic",
                            "text": f"Clinic note {i}.\nPotassium 6.{i} mmol/L, eGFR 22.\n"
                            "Takes ramipril 10 mg.\n",
                        }
                    ],
                }
            )
        )
    return directory


def test_batch_survives_a_server_stopping_midway(fake_servers, tmp_path):
    first, second = FakeLlamaServer(delay=0.05), FakeLlamaServer(delay=0.05)
    fake_servers += [first, second]
    folder = write_records(tmp_path / "records", 5)
    svc = Services()
    events = []
    for event in run_batch(
        folder,
        [first.url, second.url],
        svc=svc,
        user="tester",
        settings=PanelSettings(judges=0, max_specialists=1),
        queue_size=2,
    ):
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
        batch = case.batch
        assert batch is not None and batch.requests and batch.model_verified is False
        assert {r.server for r in batch.requests} <= {first.url, second.url}
        assert batch.brief_servers["anaesthetist"] in (first.url, second.url)
        assert {b.agent for b in case.briefs} <= set(batch.brief_servers)
    retried = [
        r
        for c in cases
        if c.batch is not None
        for r in c.batch.requests
        if first.url in r.failed_over_from
    ]
    assert len(retried) >= first.aborted  # a request cut off midway was retried elsewhere
    assert all(r.server == second.url for r in retried)
    last = cases[-1].batch
    assert last is not None and all(r.server == second.url for r in last.requests)
    svc.close()


def test_batch_over_llama_server_reuses_the_record_prefix(fake_servers, tmp_path):
    server = FakeLlamaServer(kind=LLAMA_SERVER)
    fake_servers.append(server)
    folder = write_records(tmp_path / "records", 2)
    svc = Services()
    report = list(
        run_batch(
            folder,
            [server.url],
            svc=svc,
            user="tester",
            settings=PanelSettings(judges=0, max_specialists=1),
        )
    )[-1].report
    assert report is not None and report.ok and len(report.saved) == 2, report.failed
    case = svc.repo.get_case(report.saved[0][1])
    assert {b.agent for b in case.briefs} >= {"anaesthetist", "renal"}
    assert case.batch is not None
    requests = case.batch.requests
    assert all(r.server == server.url for r in requests)
    assert [r.prefix_reused for r in requests] == [False] + [True] * (len(requests) - 1)
    assert {path for path, _ in server.calls} == {"/tokenize", "/completion"}
    svc.close()


def test_bad_files_in_the_folder_fail_alone(fake_servers, tmp_path):
    server = FakeLlamaServer()
    fake_servers.append(server)
    folder = write_records(tmp_path / "records", 1)
    (folder / "broken.json").write_text("{not json")
    svc = Services()
    report = list(
        run_batch(
            folder,
            [server.url],
            svc=svc,
            user="tester",
            settings=PanelSettings(judges=0, max_specialists=1),
        )
    )[-1].report
    assert report is not None
    assert [p.name for p, _ in report.failed] == ["broken.json"] and len(report.saved) == 1
    svc.close()


def concord(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "concord", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
    )


def sign_server_list(urls: list[str]) -> None:
    """What an administrator does: `concord settings set llama_servers URL,URL --admin`.
    From then on someone is enrolled, so a batch runs as a signed-in user (the admin)."""
    from concord.accounts.settings import LLAMA_SERVERS, set_setting
    from concord.store import Repository
    from tests.identity import ADMIN, ADMIN_PASSWORD, admin_session

    with Repository.open() as repo:
        set_setting(repo, admin_session(repo), LLAMA_SERVERS, urls)
    os.environ["CONCORD_USER"], os.environ["CONCORD_PASSWORD"] = ADMIN, ADMIN_PASSWORD


def test_cli_batch_needs_an_administrator_configured_server(fake_servers, tmp_path):
    server = FakeLlamaServer()
    fake_servers.append(server)
    folder = write_records(tmp_path / "records", 2)
    for env in ({"CONCORD_LLAMA_SERVERS": ""}, {"CONCORD_LLAMA_SERVERS": server.url}):
        refused = concord("batch", str(folder), "--servers", server.url, env=env)
        assert refused.returncode == 1  # any user can set a variable: it allows nothing
        assert refused.stderr.strip().splitlines()[-1].startswith("concord: error: ")
        assert "admin-signed" in refused.stderr
    sign_server_list([server.url])

    done = concord(
        "batch",
        str(folder),
        "--servers",
        server.url,
        "--judges",
        "0",
        "--max-specialists",
        "1",
        "--json",
        env={"CONCORD_LLAMA_SERVERS": server.url},
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert len(result["saved"]) == 2 and result["failed"] == []
    assert result["requests_by_server"][server.url] >= 2


def test_run_batch_spreads_a_folder_over_the_servers(fake_servers, tmp_path, concord_home, capsys):
    servers = [FakeLlamaServer(), FakeLlamaServer(kind=LLAMA_SERVER)]
    fake_servers += servers
    sign_server_list([s.url for s in servers])
    # servers.json in the data folder may narrow the signed list, never extend it
    (concord_home / "servers.json").write_text(json.dumps({"servers": [s.url for s in servers]}))
    folder = write_records(tmp_path / "records", 4)
    code = main(
        [
            "run",
            "--batch",
            str(folder),
            "--servers",
            ",".join(s.url for s in servers),
            "--judges",
            "0",
            "--max-specialists",
            "1",
            "--queue-size",
            "1",
            "--json",
        ]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    result = json.loads(captured.out)
    assert sorted(Path(s["path"]).name for s in result["saved"]) == [f"r{i}.json" for i in range(4)]
    # the operation is in each record: no surgeon; the anaesthetist and one specialist
    assert sum(result["requests_by_server"].values()) >= 4 * 2
    listed = json.loads((main(["cases", "--json"]), capsys.readouterr().out)[1])["cases"]
    assert len(listed) == 4


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["run"], "give a PATH|RECORD_ID, or --batch DIR --servers URL,URL"),
        (["run", "--batch", "{folder}"], "give the llama.cpp servers with --servers URL,URL"),
        (
            ["run", "x.txt", "--batch", "{folder}", "--servers", "http://127.0.0.1:1"],
            "x.txt: give either PATH|RECORD_ID or --batch DIR, not both",
        ),
        (
            ["run", "x.txt", "--servers", "http://127.0.0.1:1", "--max-tokens", "8"],
            "--servers, --max-tokens: only for a folder of records; add --batch DIR",
        ),
        (
            ["run", "--batch", "{folder}/missing", "--servers", "http://127.0.0.1:1"],
            "not on the admin-signed llama.cpp server list",
        ),
    ],
)
def test_run_batch_bad_input_is_one_clear_line(args, problem, tmp_path, capsys):
    folder = write_records(tmp_path / "records", 1)
    code = main([a.replace("{folder}", str(folder)) for a in args])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and err[-1].startswith("concord: error: ") and problem in err[-1], err


def test_run_batch_names_a_folder_that_is_not_there(fake_servers, tmp_path, capsys, monkeypatch):
    server = FakeLlamaServer()
    fake_servers.append(server)
    sign_server_list([server.url])
    monkeypatch.setenv("CONCORD_LLAMA_SERVERS", server.url)
    code = main(["run", "--batch", str(tmp_path / "missing"), "--servers", server.url])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and err[-1] == f"concord: error: {tmp_path / 'missing'}: not a folder"
