"""`concord run --batch` over two real llama.cpp servers with the default GGUF on loopback:
server A (`python -m llama_cpp.server`, or llama.cpp's `llama-server` when $LLAMA_SERVER or
PATH has one) is killed midway, and the batch completes on server B (llama_cpp.server).
Kept small for a CPU: 3 short records, no judges, one specialist, 48-token cap."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from concord.llm.registry import ModelEntry
from tests.batch.test_batch import sign_server_list
from tests.llm.fake_llama_server import LLAMA_CPP_PYTHON, LLAMA_SERVER
from tests.llm.real_servers import start_server, stop_server, wait_ready

pytestmark = [pytest.mark.real_model, pytest.mark.slow]
SERVER_EXTRA = ("fastapi", "uvicorn", "sse_starlette", "starlette_context", "pydantic_settings")
MAX_TOKENS = "48"


@pytest.fixture(scope="module")
def model_path(default_entry: ModelEntry) -> Path:
    missing = [m for m in SERVER_EXTRA if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"llama-cpp-python[server] is not installed (missing {', '.join(missing)})")
    return default_entry.resolved_path()


@pytest.fixture(params=[LLAMA_CPP_PYTHON, LLAMA_SERVER])
def two_servers(
    request: pytest.FixtureRequest, model_path: Path, tmp_path: Path
) -> Iterator[list[tuple[subprocess.Popen, str]]]:
    """Server A (of the kind under test; stopped midway) and server B (llama_cpp.server)."""
    kinds = [request.param, LLAMA_CPP_PYTHON]
    servers = []
    try:
        for i, kind in enumerate(kinds):
            servers.append(start_server(kind, model_path, tmp_path / f"server{i}.log"))
        for i, (proc, url) in enumerate(servers):
            wait_ready(proc, url, tmp_path / f"server{i}.log")
        yield servers
    finally:
        for proc, _ in servers:
            stop_server(proc)


def test_batch_over_two_real_servers_survives_one_stopping(two_servers, tmp_path, model_path):
    (proc_a, url_a), (_, url_b) = two_servers
    folder = tmp_path / "records"
    folder.mkdir()
    for i in range(3):
        (folder / f"r{i}.json").write_text(
            json.dumps(
                {
                    "name": f"batch {i}",
                    "operation": "Right knee arthroscopy",
                    "documents": [
                        {
                            "source_id": "clinic",
                            "text": (
                                f"Clinic note {i}. Healthy 40 year old.\nNo regular medicines.\n"
                            ),
                        }
                    ],
                }
            )
        )
    sign_server_list([url_a, url_b])  # an administrator lists the two servers
    env = {
        **os.environ,
        "CONCORD_LLAMA_SERVERS": f"{url_a},{url_b}",
        "CONCORD_MODELS": str(model_path.parent),
    }
    batch = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "concord",
            "run",
            "--batch",
            str(folder),
            "--servers",
            f"{url_a},{url_b}",
            "--judges",
            "0",
            "--max-specialists",
            "1",
            "--max-tokens",
            MAX_TOKENS,
            "--json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert batch.stderr is not None
    progress = []
    for line in batch.stderr:
        progress.append(line.rstrip())
        if line.strip().startswith("saved") and proc_a.poll() is None:
            proc_a.send_signal(signal.SIGKILL)  # server A dies midway
            proc_a.wait()
    out = batch.stdout.read() if batch.stdout else ""
    assert batch.wait(timeout=60) == 0, "\n".join(progress)
    result = json.loads(out)
    assert len(result["saved"]) == 3 and result["failed"] == [], progress
    assert result["requests_by_server"].get(url_b, 0) > 0
    saved_lines = [line for line in progress if line.strip().startswith("saved")]
    assert f"via {url_b}" in saved_lines[-1], progress  # the last case came from the survivor
