"""A tiny llama.cpp server on loopback for tests without a model. It speaks like one of the
two real servers and answers with the scripted BriefWriter, or with an HTTP error, and can
be stopped like a killed server.

- kind "llama-server": GET /props (chat template, context size), POST /tokenize (one token
  per character: its code point) and POST /completion (a prompt of strings and token ids;
  `timings.cache_n` is the prefix shared with the previous prompt, as a slot's cache).
- kind "llama_cpp.server": POST /v1/completions (text and a GBNF grammar; enough of the
  schema behind the grammar is read back for the BriefWriter) and /v1/chat/completions;
  /props is 404.
Both answer GET /v1/models.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from concord import netguard
from concord.llm.runtime import GenerationRequest
from tests.fake_agents import BriefWriter

LLAMA_SERVER = "llama-server"
LLAMA_CPP_PYTHON = "llama_cpp.server"
TEMPLATE = "{{ bos_token }}{% for m in messages %}<u>{{ m['content'] }}</u>{% endfor %}<m>"
BOS = "<s>"


def llama_server_binary() -> str | None:
    """A real llama.cpp `llama-server` for the real-model tests: $LLAMA_SERVER, or on PATH."""
    return os.environ.get("LLAMA_SERVER") or shutil.which("llama-server")


def free_port() -> int:
    """A loopback port nothing listens on (yet)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def loopback_works() -> bool:
    """False inside a bare network namespace (`unshare -rn` leaves `lo` down)."""
    try:
        with socket.socket() as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen(1)
            netguard.allow([f"http://127.0.0.1:{listener.getsockname()[1]}"])
            socket.create_connection(listener.getsockname(), timeout=2).close()
    except OSError:
        return False
    return True


@contextlib.contextmanager
def started_servers() -> Iterator[list[FakeLlamaServer]]:
    """A list the test appends its servers to; every one is stopped afterwards."""
    started: list[FakeLlamaServer] = []
    try:
        yield started
    finally:
        for server in started:
            with contextlib.suppress(OSError):
                server.stop()


def schema_from_grammar(grammar: str) -> dict:
    """What the BriefWriter needs of the JSON schema a GBNF grammar was made from: the
    top-level properties, and the evidence-tag and consult enums."""
    rules = dict(line.split(" ::= ", 1) for line in grammar.splitlines() if " ::= " in line)

    def enum(rule: str) -> list[str]:
        return re.findall(r'"\\"([^"\\]*)\\""', rules.get(rule, ""))

    props: dict[str, dict] = {
        name[: -len("-kv")]: {} for name in rules if name.endswith("-kv") and name.count("-") == 1
    }
    if "evidence" in props:
        # one evidence object per word count of the record's lines (`anyOf`), or just one
        tag_rule = next(
            (name for name in rules if re.fullmatch(r"evidence-item(-\d+)?-tag", name)), ""
        )
        props["evidence"] = {"items": {"properties": {"tag": {"enum": enum(tag_rule)}}}}
    if "consult" in props:
        props["consult"] = {"items": {"enum": enum("consult-item")}}
    return {"properties": props}


def prompt_text(prompt: list) -> str:
    """The text a /completion prompt stands for (token ids are code points here)."""
    return "".join(p if isinstance(p, str) else chr(p) for p in prompt)


def common_prefix(a: list, b: list) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


class FakeLlamaServer:
    def __init__(
        self,
        kind: str = LLAMA_CPP_PYTHON,
        status: int = 200,
        delay: float = 0.0,
        n_ctx: int = 1_000_000,
    ) -> None:
        self.kind = kind
        self.status = status
        self.delay = delay
        self.n_ctx = n_ctx
        self.writer = BriefWriter(consult=["renal"])
        self.requests: list[dict] = []  # generation requests (chat or /completion)
        self.calls: list[tuple[str, dict]] = []  # every POST: (path, body)
        self.last_prompt: list = []
        self.stopped = False
        self.aborted = 0  # requests cut off by stop(), as a killed server would
        self.lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, status: int, payload: dict) -> None:
                body = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _abort(self) -> None:
                self.close_connection = True
                self.connection.shutdown(2)

            def do_GET(self) -> None:
                if self.path == "/v1/models":
                    self._send(200, {"data": [{"id": "fake-model.gguf"}]})
                elif self.path == "/props" and owner.kind == LLAMA_SERVER:
                    self._send(
                        200,
                        {
                            "chat_template": TEMPLATE,
                            "bos_token": BOS,
                            "eos_token": "</s>",
                            "default_generation_settings": {"n_ctx": owner.n_ctx},
                        },
                    )
                else:
                    self._send(404, {"detail": "Not Found"})

            def do_POST(self) -> None:
                data = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with owner.lock:
                    if owner.stopped:
                        return self._abort()
                    owner.calls.append((self.path, data))
                if self.path == "/tokenize" and owner.kind == LLAMA_SERVER:
                    return self._send(200, {"tokens": [ord(c) for c in data["content"]]})
                if self.path == "/completion" and owner.kind == LLAMA_SERVER:
                    text = prompt_text(data["prompt"])
                    schema = data.get("json_schema")
                elif self.path == "/v1/completions" and owner.kind == LLAMA_CPP_PYTHON:
                    text = data["prompt"]
                    schema = schema_from_grammar(data["grammar"]) if "grammar" in data else None
                elif self.path == "/v1/chat/completions":
                    text = data["messages"][-1]["content"]
                    schema = (data.get("response_format") or {}).get("schema")
                else:
                    return self._send(404, {"detail": "Not Found"})
                with owner.lock:  # checked again with the append: stop() counts what came
                    if owner.stopped:
                        return self._abort()
                    owner.requests.append(data)
                time.sleep(owner.delay)
                if owner.stopped:  # died while "generating": the client sees a reset
                    owner.aborted += 1
                    return self._abort()
                if owner.status != 200:
                    return self._send(owner.status, {"error": "scripted failure"})
                answer = owner.writer(GenerationRequest(prefix=text, prompt=text, schema=schema))
                if self.path == "/completion":
                    with owner.lock:
                        cached = common_prefix(owner.last_prompt, data["prompt"])
                        owner.last_prompt = data["prompt"]
                    return self._send(
                        200,
                        {
                            "content": answer,
                            "tokens_evaluated": len(text),
                            "tokens_predicted": 5,
                            "stop_type": "eos",
                            "timings": {"cache_n": cached, "prompt_ms": 12.0},
                        },
                    )
                if self.path == "/v1/completions":
                    return self._send(
                        200,
                        {
                            "choices": [{"text": answer, "finish_reason": "stop"}],
                            "usage": {"prompt_tokens": 10, "completion_tokens": 5},
                        },
                    )
                self._send(
                    200,
                    {
                        "choices": [{"message": {"content": answer}, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5},
                    },
                )

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        netguard.allow([self.url])  # as an administrator would configure it
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        """Stop like a killed server: no new request is answered, nor one in progress."""
        with self.lock:
            self.stopped = True
        self.httpd.shutdown()
        self.httpd.server_close()
