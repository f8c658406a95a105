"""Real llama.cpp servers on loopback for the real-model tests: llama.cpp's own
`llama-server` (from $LLAMA_SERVER or PATH) or llama-cpp-python's `python -m
llama_cpp.server`, started with the default GGUF, waited for, and stopped."""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from concord import netguard
from tests.llm.fake_llama_server import LLAMA_SERVER, free_port, llama_server_binary

READY_SECONDS = 240


def server_command(kind: str, model: Path, port: int, n_ctx: int = 2048) -> list[str]:
    """The command line of a one-thread server of `kind`; skips when llama-server is absent."""
    if kind == LLAMA_SERVER:
        binary = llama_server_binary()
        if binary is None:
            pytest.skip("no llama-server binary (set LLAMA_SERVER or put it on PATH)")
        return [
            binary,
            "-m",
            str(model),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "-c",
            str(n_ctx),
            "-t",
            "1",
            "-np",
            "1",
            "--swa-full",
            "--no-repack",  # as Concord's runtime loads them (see llama_cpp_server_unpacked)
        ]
    return [
        sys.executable,
        "-m",
        "tests.llm.llama_cpp_server_unpacked",
        "--model",
        str(model),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(n_ctx),
        "--n_threads",
        "1",
    ]


def start_server(
    kind: str, model: Path, log: Path, n_ctx: int = 2048
) -> tuple[subprocess.Popen, str]:
    """Start a server on a free loopback port the network guard allows; (process, url)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    netguard.allow([url])
    proc = subprocess.Popen(
        server_command(kind, model, port, n_ctx), stdout=log.open("wb"), stderr=subprocess.STDOUT
    )
    return proc, url


def wait_ready(proc: subprocess.Popen, url: str, log: Path, path: str = "/v1/models") -> None:
    """Poll `url + path` until the model is loaded; fail with the server's log if it exits."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"server exited: {log.read_text()[-1500:]}")
        try:
            with opener.open(url + path, timeout=5):
                return
        except OSError:  # refused, or HTTP 503 while the model loads
            time.sleep(1)
    pytest.fail(f"server at {url} not ready in {READY_SECONDS} s")


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
