"""A runtime over llama.cpp's HTTP servers on the hospital network, instead of a model
loaded in this process: `llama-server` (llama.cpp's own server) or `python -m
llama_cpp.server` (llama-cpp-python's server extra). Standard library HTTP only.

The prompt is the in-process runtime's: `template head + prefix + prompt + template
tail`, with the model's chat template split around one user turn, and the patient record
kept as data. The template comes from the registered GGUF when its file is on this
workstation (`registered_template`), so a server run and an in-process run of the same
model see the same prompt; otherwise from the server, where it can tell.

Each server is asked once which kind it is (`GET /props`: llama-server answers, the
Python server says 404):

- **llama-server** (preferred): the record block and the agent prompt are tokenized by the
  server with special-token parsing OFF (`/tokenize`, `parse_special: false`) and sent to
  `/completion` as token ids between the template's head and tail text, so a record that
  contains `<end_of_turn>` cannot forge a chat turn. `cache_prompt` reuses the shared
  record prefix and the answer says whether it did (`timings.cache_n`). A prompt longer
  than the server's context is refused here, with the token counts.
- **llama_cpp.server** takes text only and parses special tokens in it. So every `<` or
  `[` that opens a word in the record and the prompt is followed by an invisible WORD
  JOINER (U+2060) first: no control token can match any more (all of them start with `<`
  or `[`; a test checks each of the default model's 6,250). With the template known, the
  text goes to `/v1/completions` with the JSON schema as a GBNF grammar; without it, to
  `/v1/chat/completions` as one user message (the server applies the template it has).
  Its prompt cache is not reported: `prefix_reused` is False.

Sampling matches the in-process runtime: greedy at temperature 0, else top-k
(`SAMPLING_TOP_K`) with the request's seed, and no top-p, min-p or repeat penalty.
`max_tokens_cap` bounds every request (quick smoke runs; a capped brief may come back
FAILED as cut off).

Requests decoded together (`generate_many`, the panel's specialists) are sent as `parallel`
concurrent HTTP requests: a llama-server started with that many slots (`-np N`) decodes
them in one batch. A cancel takes effect between answers (a request under way finishes).

Several URLs: requests go to the first server that is up; a connection error, a timeout, an
HTTP 5xx/429 or a reply Concord cannot use marks that server down for a while and the same
request is sent to the next. Every answered request is logged with the URL that produced it
(`log`), because `Generation` has no field for it.

A server is not trusted to behave: the timeout is a wall-clock deadline for the whole
request (connecting, the headers and the body; a server sending one byte every two seconds
is cut off at the deadline, not kept alive by each byte), an answer larger than
`MAX_ANSWER_BYTES` is refused while it is being read (never held whole), and a reply whose
numbers are malformed (a string, NaN, 1e999 where a token count belongs) is one clear error
naming the server. Each of these fails over to the next server.

The model the servers run is declared, not verified: Concord cannot hash a file on
another machine. The administrator starts the servers on the registered GGUF; the runtime
records the model id each server reports, and a case written from a server's answers says
so (`domain.case.UNVERIFIED_MODEL_SHA256`, "reported by the server, unverified").
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import json
import math
import re
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

from concord.errors import Cancelled, ModelError, RecordTooLong
from concord.llm.chat_template import TemplateSplit, split_chat_template
from concord.llm.gguf_meta import read_gguf_metadata
from concord.llm.json_grammar import schema_grammar
from concord.llm.registry import ModelEntry, verify_file
from concord.llm.runtime import FinishReason, Generation, GenerationRequest, StopCheck
from concord.llm.sampling import SAMPLING_TOP_K
from concord.netguard import parse_server

DEFAULT_TIMEOUT = 600.0  # seconds for one completion on a busy CPU server
PROBE_TIMEOUT = 30.0  # seconds for /props and /v1/models
DOWN_SECONDS = 30.0  # a failed server is skipped this long (unless all are down)
RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})
HTTP_NOT_FOUND = 404
MAX_ERROR_TEXT = 200
MAX_ANSWER_BYTES = 32 * 1024 * 1024
"""Largest reply read from a server (a brief is tens of kB; a long record's token list a
few MB); a larger one is refused while it is read."""
READ_CHUNK = 64 * 1024
TOKENIZED_PREFIXES = 4  # record prefixes whose server-side tokens are kept, per server
WORD_JOINER = "\u2060"
_TAG_START = re.compile(r"([<\[])(?=[^\s\d<\[])")
_TEMPLATE_KEYS = (
    "tokenizer.chat_template",
    "tokenizer.ggml.tokens",
    "tokenizer.ggml.bos_token_id",
    "tokenizer.ggml.eos_token_id",
)


class ServerKind(StrEnum):
    """Which of llama.cpp's two servers answers at a URL (see the module doc)."""

    LLAMA_SERVER = "llama-server"
    LLAMA_CPP_PYTHON = "llama_cpp.server"


@dataclass(frozen=True)
class ServedRequest:
    """Which server answered one request."""

    server: str
    label: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    failed_over_from: tuple[str, ...] = ()
    prefix_reused: bool = False


@dataclass(frozen=True)
class _Server:
    """What a server told us once."""

    kind: ServerKind
    template: TemplateSplit | None  # None: not known (llama_cpp.server, model not here)
    n_ctx: int | None


class ServerUnavailable(ModelError):
    """A server could not answer (connection refused or reset, timeout, 5xx)."""


class RequestRefused(ModelError):
    """A server answered with an HTTP error that another server would repeat (4xx)."""

    def __init__(self, problem: str, *, subject: str, status: int) -> None:
        super().__init__(problem, subject=subject)
        self.status = status


def normalise_url(url: str) -> str:
    host, port = parse_server(url)
    scheme = "https" if url.strip().lower().startswith("https://") else "http"
    host_text = f"[{host}]" if ":" in host else host
    return f"{scheme}://{host_text}:{port}"


def break_special_tokens(text: str) -> str:
    """`text` with a WORD JOINER after every `<` or `[` that opens a word, so a server that
    parses special tokens in text cannot read a control token (`<end_of_turn>`,
    `<|im_start|>`, `[INST]`) out of it. `<3.5` and `[ 1 ]` are left alone."""
    return _TAG_START.sub(r"\1" + WORD_JOINER, text)


def registered_template(entry: ModelEntry) -> TemplateSplit | None:
    """The chat-template split of a registered GGUF, exactly as the in-process runtime
    makes it, when the file is on this workstation (its hash is checked first); None when
    it is not (a model kept on the GPU server only)."""
    path = entry.resolved_path()
    if not path.is_file():
        return None
    verify_file(path, size=entry.size, sha256=entry.sha256)
    meta = read_gguf_metadata(path, keys=_TEMPLATE_KEYS)
    tokens = meta.get("tokenizer.ggml.tokens") or []

    def token_text(key: str) -> str:
        index = meta.get(key)
        return str(tokens[index]) if isinstance(index, int) and 0 <= index < len(tokens) else ""

    return split_chat_template(
        meta.get("tokenizer.chat_template"),
        bos_token=token_text("tokenizer.ggml.bos_token_id"),
        eos_token=token_text("tokenizer.ggml.eos_token_id"),
        subject=entry.name,
    )


def error_text(exc: BaseException) -> str:
    """An exception as one short line without Python object representations."""
    reason = getattr(exc, "reason", None) or exc
    text = re.sub(r"<[^<>]*? at 0x[0-9a-fA-F]+>", "", str(reason))
    return " ".join(text.split())[:MAX_ERROR_TEXT] or type(exc).__name__


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _read_capped(response: http.client.HTTPResponse, url: str) -> bytes:
    """The reply body, refused as soon as it is longer than MAX_ANSWER_BYTES."""
    declared = response.getheader("Content-Length")
    if declared is not None and declared.strip().isdigit() and int(declared) > MAX_ANSWER_BYTES:
        raise ServerUnavailable(
            f"the answer is {int(declared):,} bytes, over the {MAX_ANSWER_BYTES:,}-byte limit",
            subject=url,
        )
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = response.read(READ_CHUNK)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_ANSWER_BYTES:
            raise ServerUnavailable(
                f"the answer is over the {MAX_ANSWER_BYTES:,}-byte limit", subject=url
            )
        chunks.append(chunk)


def _count(value: Any, what: str) -> int:
    """A token count from a server's reply: a whole number >= 0, or ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{what} is {str(value)[:40]!r}, not a number")
    if not math.isfinite(value) or value < 0 or value != int(value) or value > 2**31:
        raise ValueError(f"{what} is {value!r}, not a token count")
    return int(value)


def _seconds(value: Any, what: str) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{what} is {str(value)[:40]!r}, not a number")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{what} is {value!r}, not a duration")
    return float(value)


class LlamaServerRuntime:
    """Runtime protocol over one or more llama.cpp servers, with fail-over."""

    def __init__(
        self,
        urls: Sequence[str],
        *,
        model_name: str = "llama-server",
        model_sha256: str = "0" * 64,
        template: TemplateSplit | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        down_seconds: float = DOWN_SECONDS,
        max_tokens_cap: int | None = None,
        parallel: int = 1,
    ) -> None:
        if not urls:
            raise ModelError("no llama.cpp server URL given")
        self.urls = [normalise_url(u) for u in urls]
        self.model_name = model_name
        self.model_sha256 = model_sha256
        self.template = template  # None: ask each server (llama-server only can tell)
        self.timeout = timeout
        self.down_seconds = down_seconds
        self.label = ""  # set by the caller (e.g. the agent being run) for the log
        self.log: list[ServedRequest] = []
        self.max_tokens_cap = max_tokens_cap
        self.parallel = max(1, parallel)
        self._down_until: dict[str, float] = {}
        self._servers: dict[str, _Server] = {}
        self._prefix_tokens: dict[str, OrderedDict[str, list[int]]] = {}
        self._grammars: dict[str, str] = {}
        self._lock = threading.Lock()

    # -- HTTP ----------------------------------------------------------------------------

    def _order(self) -> list[str]:
        now = time.monotonic()
        up = [u for u in self.urls if self._down_until.get(u, 0.0) <= now]
        down = [u for u in self.urls if u not in up]
        return up + down  # down servers last: if every server is down, try them anyway

    def mark_down(self, url: str) -> None:
        self._down_until[url] = time.monotonic() + self.down_seconds

    def _post(self, url: str, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        body = json.dumps(payload).encode("utf-8")
        return self._exchange(url, "POST", path, body, self.timeout)

    def _get(self, url: str, path: str) -> dict[str, Any]:
        return self._exchange(url, "GET", path, None, min(self.timeout, PROBE_TIMEOUT))

    def _exchange(
        self, url: str, method: str, path: str, body: bytes | None, timeout: float
    ) -> dict[str, Any]:
        """One HTTP request, straight to the server (an http_proxy in the environment must
        not reroute patient text), within a wall-clock deadline of `timeout` seconds for
        all of it: at the deadline a watchdog shuts the socket, whatever is being read."""
        parts = urlsplit(url)
        kind = (
            http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        )
        connection = kind(parts.hostname or "", parts.port, timeout=timeout)
        expired = threading.Event()

        def cut_off() -> None:
            expired.set()
            sock = connection.sock
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

        watchdog = threading.Timer(timeout, cut_off)
        watchdog.daemon = True
        watchdog.start()
        try:
            headers = {"Content-Type": "application/json"} if body is not None else {}
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            data = _read_capped(response, url)
            status = response.status
        except (http.client.HTTPException, OSError) as exc:
            # OSError covers refused and reset connections, timeouts, and the network
            # guard refusing an address the administrator did not configure.
            if expired.is_set():
                raise ServerUnavailable(
                    f"no complete answer within the {timeout:g} s deadline", subject=url
                ) from exc
            raise ServerUnavailable(f"server unavailable: {error_text(exc)}", subject=url) from exc
        finally:
            watchdog.cancel()
            connection.close()
        if expired.is_set():
            raise ServerUnavailable(
                f"no complete answer within the {timeout:g} s deadline", subject=url
            )
        if status >= 400:
            text = data.decode("utf-8", "replace")[:MAX_ERROR_TEXT]
            if status in RETRYABLE_STATUS:
                raise ServerUnavailable(f"HTTP {status}: {text}", subject=url)
            raise RequestRefused(
                f"server refused the request (HTTP {status}): {text}", subject=url, status=status
            )
        try:
            reply = json.loads(data, parse_constant=_no_constant)
        except (ValueError, RecursionError) as exc:
            raise ServerUnavailable("server sent a reply that is not JSON", subject=url) from exc
        if not isinstance(reply, dict):
            raise ServerUnavailable("server sent an unexpected reply", subject=url)
        return reply

    def server_models(self) -> dict[str, str]:
        """The model id each reachable server reports (`/v1/models`)."""
        found: dict[str, str] = {}
        for url in self.urls:
            try:
                found[url] = str(self._get(url, "/v1/models")["data"][0]["id"])
            except (ModelError, KeyError, IndexError, TypeError):
                continue
        return found

    # -- what kind of server -------------------------------------------------------------

    def _server(self, url: str) -> _Server:
        """What `url` is (asked once per server, again after it failed)."""
        known = self._servers.get(url)
        if known is not None:
            return known
        try:
            props = self._get(url, "/props")
        except RequestRefused as exc:
            if exc.status != HTTP_NOT_FOUND:
                raise
            props = {}
        if "chat_template" in props or "default_generation_settings" in props:
            settings = props.get("default_generation_settings")
            n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
            template = (
                self.template
                if self.template is not None
                else split_chat_template(
                    props.get("chat_template") or None,
                    bos_token=str(props.get("bos_token") or ""),
                    eos_token=str(props.get("eos_token") or ""),
                    subject=url,
                )
            )
            server = _Server(
                ServerKind.LLAMA_SERVER,
                template,
                n_ctx if isinstance(n_ctx, int) and n_ctx > 0 else None,
            )
        else:
            server = _Server(ServerKind.LLAMA_CPP_PYTHON, self.template, None)
        self._servers[url] = server
        return server

    def server_kind(self, url: str) -> str:
        return self._server(normalise_url(url)).kind

    # -- requests ------------------------------------------------------------------------

    def _sampling(self, request: GenerationRequest) -> dict[str, Any]:
        """The in-process runtime's sampling, in both servers' parameter names."""
        return {
            "temperature": request.temperature,
            "seed": request.seed,
            "top_k": 1 if request.temperature <= 0.0 else SAMPLING_TOP_K,
            "top_p": 1.0,
            "min_p": 0.0,
            "repeat_penalty": 1.0,
            "stream": False,
        }

    def _max_tokens(self, request: GenerationRequest) -> int:
        return min(request.max_tokens, self.max_tokens_cap or request.max_tokens)

    def _tokens(self, url: str, text: str) -> list[int]:
        """`text` tokenized by the server as data: no special tokens, no BOS."""
        if not text:
            return []
        data = self._post(
            url, "/tokenize", {"content": text, "add_special": False, "parse_special": False}
        )
        try:
            return [_count(t, "a token id") for t in data["tokens"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise ServerUnavailable("/tokenize reply has no token list", subject=url) from exc

    def _prefix(self, url: str, prefix: str) -> list[int]:
        """The tokens of shared text (the record block, the agents' preface), each tokenized
        once per server."""
        if not prefix:
            return []
        key = hashlib.sha256(prefix.encode("utf-8")).hexdigest()
        cache = self._prefix_tokens.setdefault(url, OrderedDict())
        if key in cache:
            cache.move_to_end(key)
            return cache[key]
        tokens = self._tokens(url, prefix)
        cache[key] = tokens
        while len(cache) > TOKENIZED_PREFIXES:
            cache.popitem(last=False)
        return tokens

    def _grammar(self, schema: dict[str, Any]) -> str:
        """The JSON schema as GBNF, converted as the in-process runtime converts it."""
        key = json.dumps(schema, sort_keys=True)
        if key not in self._grammars:
            self._grammars[key] = schema_grammar(schema, self.model_name)
        return self._grammars[key]

    def _on_llama_server(self, url: str, server: _Server, request: GenerationRequest) -> Generation:
        assert server.template is not None
        started = time.perf_counter()
        # piece by piece, as the in-process runtime tokenizes them (the record and the
        # agents' preface each tokenized once per server)
        data_tokens = (
            self._prefix(url, request.prefix)
            + self._prefix(url, request.preface)
            + self._tokens(url, request.prompt)
        )
        n_predict = self._max_tokens(request)
        if server.n_ctx is not None and len(data_tokens) + n_predict > server.n_ctx:
            raise RecordTooLong(
                f"the record is too long for the server's context: {len(data_tokens)} prompt "
                f"tokens and {n_predict} for the answer exceed the {server.n_ctx} it reads at "
                "once; start the server with a longer context (-c) or split the record",
                subject=url,
            )
        # A string first: the server adds BOS before it, as the in-process runtime does.
        prompt: list[Any] = [server.template.head, *data_tokens]
        if server.template.tail:
            prompt.append(server.template.tail)
        payload = {
            "prompt": prompt,
            "n_predict": n_predict,
            "cache_prompt": True,
            **self._sampling(request),
        }
        if request.schema is not None:
            payload["json_schema"] = request.schema
        answer = self._post(url, "/completion", payload)
        if not isinstance(answer.get("content"), str):
            raise ServerUnavailable("reply has no completion text", subject=url)
        timings = answer.get("timings") or {}
        if not isinstance(timings, dict):
            raise ValueError("timings is not an object")
        cached = _count(timings.get("cache_n", answer.get("tokens_cached", 0)) or 0, "cache_n")
        limited = answer.get("stopped_limit") or answer.get("stop_type") == "limit"
        prompt_ms = _seconds(timings.get("prompt_ms"), "timings.prompt_ms")
        evaluated = answer.get("tokens_evaluated")
        return Generation(
            text=answer["content"],
            prompt_tokens=_count(evaluated, "tokens_evaluated") if evaluated else len(data_tokens),
            completion_tokens=_count(answer.get("tokens_predicted", 0), "tokens_predicted"),
            seconds=time.perf_counter() - started,
            prefix_reused=cached > 0,
            finish_reason=FinishReason.LENGTH if limited else FinishReason.STOP,
            prompt_seconds=prompt_ms / 1000.0,
        )

    def _on_llama_cpp_python(
        self, url: str, server: _Server, request: GenerationRequest
    ) -> Generation:
        started = time.perf_counter()
        text = break_special_tokens(request.prefix) + break_special_tokens(request.own_text)
        payload = {"max_tokens": self._max_tokens(request), **self._sampling(request)}
        if server.template is not None:
            payload["prompt"] = server.template.wrap(text, "")
            if request.schema is not None:
                payload["grammar"] = self._grammar(request.schema)
            path = "/v1/completions"
        else:
            payload["messages"] = [{"role": "user", "content": text}]
            if request.schema is not None:
                payload["response_format"] = {"type": "json_object", "schema": request.schema}
            path = "/v1/chat/completions"
        data = self._post(url, path, payload)
        try:
            choice = data["choices"][0]
            content = choice["text"] if server.template else choice["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise ServerUnavailable(f"reply to {path} has no text", subject=url) from exc
        usage = data.get("usage") or {}
        if not isinstance(usage, dict) or not isinstance(content or "", str):
            raise ValueError("usage or text has the wrong type")
        return Generation(
            text=content or "",
            prompt_tokens=_count(usage.get("prompt_tokens", 0), "usage.prompt_tokens"),
            completion_tokens=_count(usage.get("completion_tokens", 0), "usage.completion_tokens"),
            seconds=time.perf_counter() - started,
            prefix_reused=False,  # the server's prompt cache is not reported
            finish_reason=(
                FinishReason.LENGTH
                if choice.get("finish_reason") == "length"
                else FinishReason.STOP
            ),
        )

    def _generate_on(self, url: str, request: GenerationRequest) -> Generation:
        server = self._server(url)
        try:
            if server.kind == ServerKind.LLAMA_SERVER:
                return self._on_llama_server(url, server, request)
            return self._on_llama_cpp_python(url, server, request)
        except (ValueError, TypeError, OverflowError, KeyError) as exc:
            raise ServerUnavailable(
                f"server sent a malformed reply ({error_text(exc)})", subject=url
            ) from exc

    def generate(self, request: GenerationRequest) -> Generation:
        failed: list[str] = []
        errors: list[str] = []
        with self._lock:
            order = self._order()
        for url in order:
            try:
                generation = self._generate_on(url, request)
            except ServerUnavailable as exc:
                with self._lock:
                    self.mark_down(url)
                    self._servers.pop(url, None)  # it may come back as another server
                failed.append(url)
                errors.append(exc.one_line())
                continue
            with self._lock:
                self.log.append(
                    ServedRequest(
                        server=url,
                        label=request.agent or self.label,
                        prompt_tokens=generation.prompt_tokens,
                        completion_tokens=generation.completion_tokens,
                        seconds=round(generation.seconds, 3),
                        failed_over_from=tuple(failed),
                        prefix_reused=generation.prefix_reused,
                    )
                )
            return generation
        raise ModelError(
            "no llama.cpp server could answer: " + "; ".join(errors), subject=self.model_name
        )

    takes_added_requests = True

    def generate_many(
        self, requests: Sequence[GenerationRequest], should_stop: StopCheck | None = None
    ) -> Iterator[tuple[int, Generation]]:
        """At most `parallel` requests in flight at once; answers as they come back.
        Requests appended while an answer is handled are sent at once (`ParallelRuntime`)."""
        pool = ThreadPoolExecutor(max_workers=self.parallel, thread_name_prefix="concord-http")
        futures: dict[Future[Generation], int] = {}
        pending: set[Future[Generation]] = set()

        def submit_new() -> None:
            for index in range(len(futures), len(requests)):
                future = pool.submit(self.generate, requests[index])
                futures[future] = index
                pending.add(future)

        try:
            submit_new()
            while pending:
                done, _ = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                for future in done:
                    pending.discard(future)
                    yield futures[future], future.result()
                    submit_new()
                if pending and should_stop is not None and should_stop():
                    raise Cancelled("generation cancelled", subject=self.model_name)
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Nothing to release: each request is its own HTTP connection."""
        self._servers.clear()
        self._prefix_tokens.clear()
