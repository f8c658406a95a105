"""LlamaServerRuntime against a tiny fake llama-server on loopback (no model needed)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from concord.errors import ModelError
from concord.llm.runtime import FinishReason, GenerationRequest
from concord.llm.server_client import LlamaServerRuntime

TEMPLATE = "{% for m in messages %}<u>{{ m['content'] }}</u>{% endfor %}<m>"


class _Fake(BaseHTTPRequestHandler):
    seen: list[dict] = []

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._send({"chat_template": TEMPLATE})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Fake.seen.append({"path": self.path, **body})
        if self.path == "/tokenize":
            self._send({"tokens": [ord(c) for c in body["content"]]})
        else:
            self._send(
                {
                    "content": '{"ok": true}',
                    "tokens_evaluated": 9,
                    "tokens_predicted": 4,
                    "stop_type": "eos",
                    "timings": {"cache_n": 5},
                }
            )


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Fake)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    _Fake.seen = []
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_generates_on_a_working_server_after_a_dead_one(server: str) -> None:
    runtime = LlamaServerRuntime(["http://127.0.0.1:9", server], timeout=5)
    schema = {"type": "object"}
    g = runtime.generate(GenerationRequest(prefix="ab", prompt="c", schema=schema, max_tokens=7))
    assert g.text == '{"ok": true}' and g.prefix_reused and g.finish_reason == FinishReason.STOP
    completion = [s for s in _Fake.seen if s["path"] == "/completion"][0]
    assert completion["prompt"] == ["<u>", ord("a"), ord("b"), ord("c"), "</u><m>"]
    assert completion["json_schema"] == schema and completion["n_predict"] == 7
    tokenize = [s for s in _Fake.seen if s["path"] == "/tokenize"][0]
    assert tokenize["parse_special"] is False


def test_all_servers_down_is_a_model_error() -> None:
    runtime = LlamaServerRuntime(["http://127.0.0.1:9"], timeout=2)
    with pytest.raises(ModelError, match="every llama-server failed"):
        runtime.generate(GenerationRequest(prefix="", prompt="x"))
