"""Scale-out results say who wrote them, and a server cannot hold or flood the batch (issue 28,
item 8): a wall-clock deadline per request with fail-over (a server dribbling one byte at a
time is cut off), an answer size cap, one clear error for malformed numbers, and the model a
server reports shown and printed as unverified, never as the local model's hash."""

from __future__ import annotations

import datetime as dt
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from concord import netguard
from concord.batch import run_batch
from concord.domain import UNVERIFIED_MODEL_SHA256
from concord.errors import ModelError
from concord.llm import server_runtime
from concord.llm.runtime import GenerationRequest
from concord.llm.server_runtime import LlamaServerRuntime
from concord.pipeline import PanelSettings
from concord.services import Services
from tests.batch.test_batch import write_records
from tests.llm.fake_llama_server import FakeLlamaServer


@contextmanager
def raw_server(behave: Callable[[socket.socket], None]) -> Iterator[str]:
    """A loopback server that answers every connection with `behave(connection)`."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    netguard.allow([url])
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=_handle, args=(connection,), daemon=True).start()

    def _handle(connection: socket.socket) -> None:
        try:
            connection.recv(65536)  # the request (small in these tests)
            behave(connection)
        except OSError:
            pass
        finally:
            connection.close()

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield url
    finally:
        stop.set()
        listener.close()


def dribble(connection: socket.socket) -> None:
    """Headers for a large body, then one byte every 0.3 s, for a minute."""
    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
    connection.sendall(b"Content-Length: 100000\r\n\r\n{")
    for _ in range(200):
        time.sleep(0.3)
        connection.sendall(b" ")


def flood(connection: socket.socket) -> None:
    """A body with no length, far over the cap, as fast as it can be read."""
    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n")
    block = b"a" * 65536
    for _ in range(64):  # 4 MiB
        connection.sendall(block)


def claims_huge(connection: socket.socket) -> None:
    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1500000000\r\n\r\n{}")


def _reply(payload: dict, status: str = "200 OK") -> Callable[[socket.socket], None]:
    def behave(connection: socket.socket) -> None:
        body = json.dumps(payload).encode()
        connection.sendall(
            f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
            + body
        )

    return behave


ANSWER = {
    "choices": [{"message": {"content": "{}"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 12, "completion_tokens": 5},
}


def malformed(connection: socket.socket) -> None:
    _reply(
        {
            "choices": [{"message": {"content": "{}"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": "12abc", "completion_tokens": 5},
        }
    )(connection)


def _request() -> GenerationRequest:
    return GenerationRequest(prefix="Record.\n", prompt="Say {}", max_tokens=16, seed=1)


def test_a_server_dribbling_bytes_is_cut_off_at_the_deadline_and_failed_over() -> None:
    with raw_server(dribble) as slow, raw_server(_reply(ANSWER)) as good:
        runtime = LlamaServerRuntime([slow, good], timeout=2.0)
        started = time.monotonic()
        runtime.generate(_request())
        took = time.monotonic() - started
    assert took < 10, took  # not kept alive by each byte (it would dribble for a minute)
    served = runtime.log[-1]
    assert served.server == good and served.failed_over_from == (slow,)


def test_the_deadline_holds_when_every_server_dribbles() -> None:
    with raw_server(dribble) as slow:
        runtime = LlamaServerRuntime([slow], timeout=1.5)
        started = time.monotonic()
        with pytest.raises(ModelError) as caught:
            runtime.generate(_request())
        assert time.monotonic() - started < 8
    assert "within the 1.5 s deadline" in caught.value.one_line()


@pytest.mark.parametrize("behave", [flood, claims_huge])
def test_an_answer_over_the_size_cap_is_refused_while_read(
    behave, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server_runtime, "MAX_ANSWER_BYTES", 1024 * 1024)
    with raw_server(behave) as big, raw_server(_reply(ANSWER)) as good:
        runtime = LlamaServerRuntime([big], timeout=20.0)
        with pytest.raises(ModelError, match="over the 1,048,576-byte limit"):
            runtime.generate(_request())
        runtime = LlamaServerRuntime([big, good], timeout=20.0)
        runtime.generate(_request())
    assert runtime.log[-1].server == good


def test_malformed_numbers_in_a_reply_are_one_clear_error() -> None:
    with raw_server(malformed) as bad:
        runtime = LlamaServerRuntime([bad], timeout=10.0)
        with pytest.raises(ModelError) as caught:
            runtime.generate(_request())
    line = caught.value.one_line()
    assert "malformed reply" in line and "usage.prompt_tokens" in line and bad in line
    assert "Traceback" not in line and "\n" not in line


def test_a_batch_case_says_the_model_is_the_servers_claim_unverified(
    fake_servers, tmp_path: Path
) -> None:
    """The fake server reports 'fake-model.gguf'. Before, the case carried the local
    model's name and SHA-256, and the PDF printed them."""
    from pypdf import PdfReader

    from concord.report.pdf import render_review_pdf

    server = FakeLlamaServer()
    fake_servers.append(server)
    folder = write_records(tmp_path / "records", 1)
    svc = Services()
    try:
        local = {e.sha256 for e in svc.models.entries()}
        report = list(
            run_batch(
                folder,
                [server.url],
                svc=svc,
                user="tester",
                settings=PanelSettings(judges=0, max_specialists=1),
            )
        )[-1].report
        assert report is not None and report.ok, report.failed
        case = svc.repo.get_case(report.saved[0][1])
        record = svc.repo.get_record(case.record_id)
    finally:
        svc.close()
    assert "fake-model.gguf" in case.model_name and "unverified" in case.model_name
    assert case.model_sha256 == UNVERIFIED_MODEL_SHA256
    assert {b.model_sha256 for b in case.briefs} == {UNVERIFIED_MODEL_SHA256}
    assert case.batch is not None and case.batch.model_verified is False
    assert case.batch.server_models == {server.url: "fake-model.gguf"}
    assert not any(sha in case.model_dump_json() for sha in local)
    pdf = tmp_path / "case.pdf"
    render_review_pdf(
        case,
        record,
        [],
        signer_name="Dr Smith",
        meaning="Reviewed — judgements accepted",
        signed_at=dt.datetime.now(dt.UTC),
        audit_head=(1, "ab" * 32),
        out=pdf,
    )
    text = " ".join("".join(p.extract_text() for p in PdfReader(pdf).pages).split())
    assert "fake-model.gguf" in text and "NOT VERIFIED" in text
    assert not any(sha[:12] in text for sha in local)
