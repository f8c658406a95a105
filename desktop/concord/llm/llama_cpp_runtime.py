"""The llama.cpp runtime (llama-cpp-python), with the record prefix evaluated once.

Tokens are built piecewise so the shared prefix is the same token sequence for every
request on a record: `tok(template_head, special) + tok(prefix) + tok(prompt) +
tok(template_tail, special)`. Patient text and prompts are tokenized with special-token
parsing OFF, so a record that contains `<end_of_turn>` cannot forge a chat turn.

Prefix reuse: after evaluating a new prefix, the KV state of sequence 0 is copied out
(`llama_state_seq_get_data`); a later request with the same prefix restores it instead of
re-evaluating. (llama-cpp-python's own prefix matching truncates the KV cache, which the
sliding-window cache of Gemma 3 does not support, so it silently re-evaluates everything.)
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from concord.errors import ModelError
from concord.llm.chat_template import TemplateSplit, split_chat_template
from concord.llm.runtime import FinishReason, Generation, GenerationRequest
from concord.llm.sampling import GrammarConstraint, TokenChooser

DEFAULT_N_BATCH = 512
MAX_DEFAULT_THREADS = 16
RESERVED_CORES = 1
THREADS_ENV = "CONCORD_LLM_THREADS"
PREFIX_CACHE_SIZE = 2  # distinct record prefixes whose KV state is kept
SEQ_ID = 0
_LOOSE_CHAR = r'char ::= [^"\\] |'
_STRICT_CHAR = r'char ::= [^"\\\x7F\x00-\x1F] |'


def strict_json_chars(grammar: str) -> str:
    """The Python schema converter lets a JSON string contain raw control characters
    (invalid JSON); forbid them as llama.cpp's own converter does."""
    return grammar.replace(_LOOSE_CHAR, _STRICT_CHAR)


def gpu_offload_supported() -> bool | None:
    """Whether the installed llama-cpp-python was built with GPU support (None: unknown)."""
    try:
        import llama_cpp
    except ImportError:
        return None
    probe = getattr(llama_cpp, "llama_supports_gpu_offload", None)
    return bool(probe()) if probe is not None else None


def default_threads() -> int:
    """$CONCORD_LLM_THREADS, else the cores this process may use minus one (left for the UI
    and the OS), capped. llama.cpp's worker threads busy-wait: with more threads than free
    cores a decode step can be 10x slower (measured on a loaded 2-core machine)."""
    env = os.environ.get(THREADS_ENV)
    if env and env.isdigit() and int(env) > 0:
        return int(env)
    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        available = os.cpu_count() or 1
    return max(1, min(available - RESERVED_CORES, MAX_DEFAULT_THREADS))


@dataclass(frozen=True)
class _PrefixState:
    tokens: tuple[int, ...]
    data: Any  # ctypes uint8 array with the sequence's KV state


class LlamaCppRuntime:
    """One GGUF model loaded once; `generate` is serialised by a lock."""

    def __init__(
        self,
        model_path: str | Path,
        model_sha256: str,
        n_ctx: int,
        n_threads: int | None = None,
        n_batch: int | None = None,
        n_gpu_layers: int = 0,
        *,
        model_name: str | None = None,
        prefix_cache: bool = True,
    ) -> None:
        try:
            import llama_cpp
        except ImportError as exc:
            raise ModelError("llama-cpp-python is not installed", subject=model_path) from exc
        self._lib = llama_cpp
        path = Path(model_path)
        self.model_name = model_name or path.stem
        self.model_sha256 = model_sha256
        self.prefix_cache = prefix_cache
        threads = n_threads or default_threads()
        batch = n_batch or DEFAULT_N_BATCH
        try:
            self._llm = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_batch=batch,
                n_ubatch=batch,
                n_threads=threads,
                n_threads_batch=threads,
                n_gpu_layers=n_gpu_layers,
                seed=0,
                logits_all=False,
                verbose=False,
            )
        except (ValueError, RuntimeError) as exc:
            raise ModelError(f"llama.cpp could not load the model: {exc}", subject=path) from exc
        self.n_ctx = self._llm.n_ctx()
        self._n_vocab = self._llm.n_vocab()
        self._vocab = self._llm._model.vocab
        self._ctx = self._llm._ctx.ctx
        self._memory = llama_cpp.llama_get_memory(self._ctx)
        self.template = self._template_split()
        self._states: OrderedDict[str, _PrefixState] = OrderedDict()
        self._grammars: dict[str, str] = {}
        self._lock = threading.Lock()

    # -- prompt construction -------------------------------------------------------------

    def _template_split(self) -> TemplateSplit:
        meta = self._llm.metadata
        bos = self._llm.detokenize([self._llm.token_bos()], special=True).decode("utf-8", "replace")
        eos = self._llm.detokenize([self._llm.token_eos()], special=True).decode("utf-8", "replace")
        return split_chat_template(
            meta.get("tokenizer.chat_template"),
            bos_token=bos,
            eos_token=eos,
            subject=self.model_name,
        )

    def _tokens(self, text: str, *, special: bool, bos: bool = False) -> list[int]:
        if not text and not bos:
            return []
        return self._llm.tokenize(text.encode("utf-8"), add_bos=bos, special=special)

    def prompt_tokens(self, request: GenerationRequest) -> tuple[list[int], list[int]]:
        """(shared prefix tokens, request-specific tokens)."""
        prefix = self._tokens(self.template.head, special=True, bos=True)
        prefix += self._tokens(request.prefix, special=False)
        rest = self._tokens(request.prompt, special=False)
        rest += self._tokens(self.template.tail, special=True)
        return prefix, rest

    def _grammar_text(self, schema: dict[str, Any]) -> str:
        key = json.dumps(schema, sort_keys=True)
        if key not in self._grammars:
            from llama_cpp.llama_grammar import json_schema_to_gbnf

            try:
                grammar = json_schema_to_gbnf(json.dumps(schema))
            except Exception as exc:  # the converter raises bare Exceptions
                raise ModelError(
                    f"cannot turn the JSON schema into a grammar: {exc}", subject=self.model_name
                ) from exc
            self._grammars[key] = strict_json_chars(grammar)
        return self._grammars[key]

    # -- KV state ------------------------------------------------------------------------

    def _clear(self) -> None:
        self._lib.llama_memory_clear(self._memory, True)
        self._llm.n_tokens = 0

    def _eval(self, tokens: list[int]) -> None:
        try:
            self._llm.eval(tokens)
        except RuntimeError as exc:
            raise ModelError(f"llama.cpp failed to decode: {exc}", subject=self.model_name) from exc

    def _save(self, tokens: list[int]) -> _PrefixState:
        size = self._lib.llama_state_seq_get_size(self._ctx, SEQ_ID)
        buffer = (ctypes.c_uint8 * size)()
        written = self._lib.llama_state_seq_get_data(self._ctx, buffer, size, SEQ_ID)
        if written != size:
            raise ModelError("could not copy the prefix KV state", subject=self.model_name)
        return _PrefixState(tokens=tuple(tokens), data=buffer)

    def _restore(self, state: _PrefixState) -> None:
        self._clear()
        size = len(state.data)
        if self._lib.llama_state_seq_set_data(self._ctx, state.data, size, SEQ_ID) != size:
            raise ModelError("could not restore the prefix KV state", subject=self.model_name)
        n = len(state.tokens)
        self._llm.input_ids[:n] = state.tokens
        self._llm.n_tokens = n

    def _load_prefix(self, tokens: list[int]) -> bool:
        """Make the context hold exactly `tokens`; True if a saved state was reused."""
        key = hashlib.sha256(np.asarray(tokens, dtype=np.int32).tobytes()).hexdigest()
        state = self._states.get(key) if self.prefix_cache else None
        if state is not None:
            self._states.move_to_end(key)
            self._restore(state)
            return True
        self._clear()
        self._eval(tokens)
        if self.prefix_cache:
            self._states[key] = self._save(tokens)
            while len(self._states) > PREFIX_CACHE_SIZE:
                self._states.popitem(last=False)
        return False

    # -- generation ----------------------------------------------------------------------

    def _logits(self) -> np.ndarray:
        pointer = self._lib.llama_get_logits_ith(self._ctx, -1)
        return np.ctypeslib.as_array(pointer, shape=(self._n_vocab,))

    def generate(self, request: GenerationRequest) -> Generation:
        with self._lock:
            return self._generate(request)

    def _generate(self, request: GenerationRequest) -> Generation:
        started = time.perf_counter()
        prefix, rest = self.prompt_tokens(request)
        n_prompt = len(prefix) + len(rest)
        if n_prompt + request.max_tokens > self.n_ctx:
            raise ModelError(
                f"the record is too long for the model's context: {n_prompt} prompt tokens "
                f"+ {request.max_tokens} output tokens > n_ctx {self.n_ctx}; register the "
                "model with a larger context or shorten the record",
                subject=self.model_name,
            )
        grammar = None
        if request.schema is not None:
            grammar = GrammarConstraint(
                self._lib, self._vocab, self._grammar_text(request.schema), self._n_vocab
            )
        try:
            reused = self._load_prefix(prefix)
            self._eval(rest)
            prompt_seconds = time.perf_counter() - started
            chooser = TokenChooser(request.temperature, request.seed, grammar)
            out, finish = self._decode(chooser, request)
        finally:
            if grammar is not None:
                grammar.close()
        text = self._llm.detokenize(out, special=False).decode("utf-8", errors="replace")
        return Generation(
            text=text,
            prompt_tokens=n_prompt,
            completion_tokens=len(out),
            seconds=time.perf_counter() - started,
            prefix_reused=reused,
            finish_reason=finish,
            prompt_seconds=prompt_seconds,
        )

    def _decode(self, chooser: TokenChooser, request: GenerationRequest) -> tuple[list[int], str]:
        out: list[int] = []
        for _ in range(request.max_tokens):
            try:
                token = chooser.choose(self._logits())
            except ValueError as exc:
                raise ModelError(str(exc), subject=self.model_name) from exc
            if self._lib.llama_vocab_is_eog(self._vocab, token):
                return out, FinishReason.STOP
            chooser.accept(token)
            out.append(token)
            if request.schema is not None and self._closes_json(out, token):
                return out, FinishReason.STOP
            self._eval([token])
        return out, FinishReason.LENGTH

    def _closes_json(self, out: list[int], token: int) -> bool:
        """Under a schema, stop as soon as the output is one complete JSON value."""
        if b"}" not in self._llm.detokenize([token]):
            return False
        try:
            json.loads(self._llm.detokenize(out).decode("utf-8", errors="strict"))
        except ValueError:
            return False
        return True

    def close(self) -> None:
        with self._lock:
            self._states.clear()
            self._llm.close()
