"""A runtime that asks llama.cpp's OpenAI-compatible HTTP server (llama-server, or
`python -m llama_cpp.server`) instead of loading a model in this process.

The request is `/v1/chat/completions` with one user message, `prefix + prompt` (the same
text the in-process runtime wraps in the model's chat template; the server applies the
template it read from the GGUF). A JSON schema goes as `response_format: {"type":
"json_object", "schema": ...}`, which both servers turn into a grammar. Prefix reuse is
the server's own prompt cache.

`max_tokens_cap` bounds every request (quick smoke runs; a capped brief may come back
FAILED as cut off).

Several URLs: requests go to the first server that is up; a connection error, a timeout or
an HTTP 5xx/429 marks that server down for a while and the same request is sent to the
next. Every answered request is logged with the URL that produced it (`log`), because
`Generation` has no field for it.

The model the servers run is declared, not verified: Concord cannot hash a file on
another machine. The administrator starts the servers on the registered GGUF; the runtime
records the model id each server reports.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from concord.errors import ModelError
from concord.llm.runtime import FinishReason, Generation, GenerationRequest
from concord.netguard import parse_server

DEFAULT_TIMEOUT = 600.0  # seconds for one completion on a busy CPU server
DOWN_SECONDS = 30.0  # a failed server is skipped this long (unless all are down)
RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})
MAX_ERROR_TEXT = 200


@dataclass(frozen=True)
class ServedRequest:
    """Which server answered one request."""

    server: str
    label: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    failed_over_from: tuple[str, ...] = ()


class ServerUnavailable(ModelError):
    """A server could not answer (connection refused or reset, timeout, 5xx)."""


def normalise_url(url: str) -> str:
    host, port = parse_server(url)
    scheme = "https" if url.strip().lower().startswith("https://") else "http"
    host_text = f"[{host}]" if ":" in host else host
    return f"{scheme}://{host_text}:{port}"


class LlamaServerRuntime:
    """Runtime protocol over one or more llama.cpp servers, with fail-over."""

    def __init__(
        self,
        urls: Sequence[str],
        *,
        model_name: str = "llama-server",
        model_sha256: str = "0" * 64,
        timeout: float = DEFAULT_TIMEOUT,
        down_seconds: float = DOWN_SECONDS,
        max_tokens_cap: int | None = None,
    ) -> None:
        if not urls:
            raise ModelError("no llama.cpp server URL given")
        self.urls = [normalise_url(u) for u in urls]
        self.model_name = model_name
        self.model_sha256 = model_sha256
        self.timeout = timeout
        self.down_seconds = down_seconds
        self.label = ""  # set by the caller (e.g. the agent being run) for the log
        self.log: list[ServedRequest] = []
        self.max_tokens_cap = max_tokens_cap
        self._down_until: dict[str, float] = {}
        self._lock = threading.Lock()
        # Straight to the server: an http_proxy in the environment must not reroute
        # patient text through a proxy.
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    # -- servers -------------------------------------------------------------------------

    def _order(self) -> list[str]:
        now = time.monotonic()
        up = [u for u in self.urls if self._down_until.get(u, 0.0) <= now]
        down = [u for u in self.urls if u not in up]
        return up + down  # down servers last: if every server is down, try them anyway

    def mark_down(self, url: str) -> None:
        self._down_until[url] = time.monotonic() + self.down_seconds

    def _post(self, url: str, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            url + path, data=json.dumps(payload).encode("utf-8"), method="POST",
            headers={"Content-Type": "application/json"},
        )
        return self._open(url, request)

    def _open(self, url: str, request: urllib.request.Request) -> dict[str, Any]:
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                body = response.read()
        except urllib.error.HTTPError as exc:
            text = exc.read().decode("utf-8", "replace")[:MAX_ERROR_TEXT]
            if exc.code in RETRYABLE_STATUS:
                raise ServerUnavailable(f"HTTP {exc.code}: {text}", subject=url) from exc
            raise ModelError(f"server refused the request (HTTP {exc.code}): {text}",
                             subject=url) from exc
        except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
            # OSError covers refused and reset connections and timeouts.
            reason = getattr(exc, "reason", None) or exc
            raise ServerUnavailable(f"server unavailable: {reason}", subject=url) from exc
        try:
            data = json.loads(body)
        except ValueError as exc:
            raise ServerUnavailable("server sent a reply that is not JSON", subject=url) from exc
        if not isinstance(data, dict):
            raise ServerUnavailable("server sent an unexpected reply", subject=url)
        return data

    def server_models(self) -> dict[str, str]:
        """The model id each reachable server reports (`/v1/models`)."""
        found: dict[str, str] = {}
        for url in self.urls:
            try:
                data = self._open(url, urllib.request.Request(url + "/v1/models"))
                found[url] = str(data["data"][0]["id"])
            except (ModelError, KeyError, IndexError, TypeError):
                continue
        return found

    # -- generation ----------------------------------------------------------------------

    def _payload(self, request: GenerationRequest) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "messages": [{"role": "user", "content": request.prefix + request.prompt}],
            "max_tokens": min(request.max_tokens, self.max_tokens_cap or request.max_tokens),
            "temperature": request.temperature,
            "seed": request.seed,
            "stream": False,
        }
        if request.temperature == 0.0:
            payload["top_k"] = 1  # greedy on both servers
        if request.schema is not None:
            payload["response_format"] = {"type": "json_object", "schema": request.schema}
        return payload

    def generate(self, request: GenerationRequest) -> Generation:
        payload = self._payload(request)
        failed: list[str] = []
        errors: list[str] = []
        with self._lock:
            order = self._order()
        for url in order:
            started = time.perf_counter()
            try:
                data = self._post(url, "/v1/chat/completions", payload)
                generation = self._generation(url, data, time.perf_counter() - started)
            except ServerUnavailable as exc:
                with self._lock:
                    self.mark_down(url)
                failed.append(url)
                errors.append(exc.one_line())
                continue
            with self._lock:
                self.log.append(ServedRequest(
                    server=url, label=self.label, prompt_tokens=generation.prompt_tokens,
                    completion_tokens=generation.completion_tokens,
                    seconds=round(generation.seconds, 3), failed_over_from=tuple(failed),
                ))
            return generation
        raise ModelError("no llama.cpp server could answer: " + "; ".join(errors),
                         subject=self.model_name)

    def _generation(self, url: str, data: dict[str, Any], seconds: float) -> Generation:
        try:
            choice = data["choices"][0]
            text = choice["message"]["content"] or ""
        except (KeyError, IndexError, TypeError) as exc:
            raise ServerUnavailable("reply has no choices[0].message.content",
                                    subject=url) from exc
        usage = data.get("usage") or {}
        finish = choice.get("finish_reason") or FinishReason.STOP
        return Generation(
            text=text,
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            seconds=seconds,
            prefix_reused=False,  # the server's prompt cache is not reported
            finish_reason=FinishReason.LENGTH if finish == "length" else FinishReason.STOP,
        )

    def close(self) -> None:
        """Nothing to release: each request is its own HTTP connection."""
