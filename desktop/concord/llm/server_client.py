"""A runtime that talks to llama.cpp's own `llama-server` over HTTP (stdlib urllib only).

Several servers may be given; a request that fails on one (connection refused, timeout,
HTTP 5xx) is retried on the next. The chat template comes from the server (`/props`);
untrusted text (the record block and the prompt) is tokenized by the server with special
tokens OFF (`/tokenize`, `parse_special: false`) and sent as token ids, so patient text
cannot forge a chat turn. `cache_prompt` lets the server reuse the shared record prefix.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any

from concord.errors import ModelError
from concord.llm.chat_template import TemplateSplit, split_chat_template
from concord.llm.runtime import FinishReason, Generation, GenerationRequest

DEFAULT_TIMEOUT_S = 600.0
UNKNOWN_SHA256 = "0" * 64


class _ServerDown(Exception):
    pass


class LlamaServerRuntime:
    def __init__(
        self,
        base_urls: list[str],
        *,
        model_name: str = "llama-server",
        model_sha256: str = UNKNOWN_SHA256,
        timeout: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        if not base_urls:
            raise ModelError("no llama-server address given", subject=model_name)
        self.base_urls = [url.rstrip("/") for url in base_urls]
        self.model_name = model_name
        self.model_sha256 = model_sha256
        self._timeout = timeout
        self._templates: dict[str, TemplateSplit] = {}
        self._next = 0

    def _call(self, base: str, path: str, payload: dict[str, Any] | None = None) -> Any:
        data = json.dumps(payload).encode("utf-8") if payload is not None else None
        request = urllib.request.Request(
            base + path,
            data=data,
            headers={"Content-Type": "application/json"},
            method="POST" if data is not None else "GET",
        )
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                return json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            if exc.code >= 500:
                raise _ServerDown(f"{base}: HTTP {exc.code}") from exc
            detail = exc.read().decode("utf-8", "replace")[:200]
            raise ModelError(
                f"llama-server refused the request: HTTP {exc.code} {detail}", subject=base
            ) from exc
        except (urllib.error.URLError, TimeoutError, ConnectionError, ValueError) as exc:
            raise _ServerDown(f"{base}: {exc}") from exc

    def _template(self, base: str) -> TemplateSplit:
        if base not in self._templates:
            props = self._call(base, "/props")
            self._templates[base] = split_chat_template(
                props.get("chat_template"),
                bos_token=props.get("bos_token", ""),
                eos_token=props.get("eos_token", ""),
                subject=base,
            )
        return self._templates[base]

    def _tokens(self, base: str, text: str) -> list[int]:
        if not text:
            return []
        body = {"content": text, "add_special": False, "parse_special": False}
        return [int(t) for t in self._call(base, "/tokenize", body)["tokens"]]

    def _generate_on(self, base: str, request: GenerationRequest) -> Generation:
        started = time.perf_counter()
        template = self._template(base)
        prompt: list[Any] = [template.head] if template.head else []
        prompt += self._tokens(base, request.prefix) + self._tokens(base, request.prompt)
        if template.tail:
            prompt.append(template.tail)
        body: dict[str, Any] = {
            "prompt": prompt,
            "n_predict": request.max_tokens,
            "temperature": request.temperature,
            "seed": request.seed,
            "cache_prompt": True,
            "stream": False,
        }
        if request.schema is not None:
            body["json_schema"] = request.schema
        answer = self._call(base, "/completion", body)
        timings = answer.get("timings") or {}
        limited = answer.get("stopped_limit") or answer.get("stop_type") == "limit"
        return Generation(
            text=str(answer.get("content", "")),
            prompt_tokens=int(answer.get("tokens_evaluated", 0)),
            completion_tokens=int(answer.get("tokens_predicted", 0)),
            seconds=time.perf_counter() - started,
            prefix_reused=int(timings.get("cache_n", answer.get("tokens_cached", 0)) or 0) > 0,
            finish_reason=FinishReason.LENGTH if limited else FinishReason.STOP,
        )

    def generate(self, request: GenerationRequest) -> Generation:
        failures: list[str] = []
        count = len(self.base_urls)
        start, self._next = self._next, (self._next + 1) % count
        for offset in range(count):
            base = self.base_urls[(start + offset) % count]
            try:
                return self._generate_on(base, request)
            except _ServerDown as exc:
                failures.append(str(exc))
        raise ModelError(
            "every llama-server failed: " + "; ".join(failures), subject=self.model_name
        )

    def close(self) -> None:
        self._templates.clear()
