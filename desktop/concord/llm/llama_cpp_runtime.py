"""The llama.cpp runtime (llama-cpp-python's low-level API): the record prefix evaluated
once, and several requests on it decoded together in one batch.

Tokens are built piecewise so the shared prefix is the same token sequence for every
request on a record: `tok(template_head, special) + tok(prefix) + tok(preface) +
tok(prompt) + tok(template_tail, special)`. Patient text and prompts are tokenized with
special-token parsing OFF, so a record that contains `<end_of_turn>` cannot forge a chat
turn.

The context has `parallel` KV sequences, each in its own stream of `n_ctx` cells (a
sliding-window layer keeps its window only: `params.swa_full` off, `concord.llm.kv_memory`). The
record prefix is evaluated once, in the first sequence that needs it, and its KV state is
copied out (`llama_state_seq_get_data`); a request's preface (the instructions every agent
of the panel shares) is evaluated once on a restored copy of the record's state and saved
the same way, so the anaesthetist and each specialist start after both. Every request, the
first included, in any sequence, starts from a restored copy (`llama_state_seq_set_data`
into an emptied sequence), so its cells are always where a restore puts them: a saved state
keeps only the cells of the sliding-window layers that lie inside the window, so a
just-evaluated prefix holds its cells elsewhere than a restored one, and a greedy answer
differed by whether the record happened to be cached; and keeping the prefix in a sequence,
removing only the last request's tail, also changed the next request's greedy answer. The
tokens of all active sequences go to llama.cpp in one `llama_batch` per step, each sequence
with its own token chooser (greedy or seeded sampling, its own grammar); when a sequence
finishes, a waiting request takes its place in the next step, and a request the caller adds
while it handles an answer (the specialists the anaesthetist chose) joins at the next step.
A single `generate` is a batch of one; up to `parallel` sequences are decoded at once
(`together`). llama.cpp decodes each run of consecutive sequence ids in a step as its own
micro-batch, so when a sequence finishes below others and no request waits to take its
place, the highest one moves down into the gap (`_close_gaps`).

Jump-forward: under a schema, after each chosen token the text the grammar leaves no choice
about (`"},{"text":"` between two bullets, the rest of an enum value, the closing brackets;
the grammar allows no optional spaces, `json_grammar.compact_json`) is tokenized as the
model's tokenizer writes it and evaluated in the same call as the chosen token, with logits
for the last token only, instead of one decoding step per token. Measured on four
specialists' briefs on demo 03 (1 thread, the same compact grammar): 30.5 s with it, 38.2 s
without (84 vs 70 tokens a second, 2,232 vs 2,410 tokens). A sequence with forced text is
evaluated in its own llama_decode call, as it would be alone, so decoding together still
writes what each request writes alone (tested).

Separate streams, not one unified cache shared by all sequences, keep each sequence's cells
laid out exactly as in a run of that request alone (prefix, then its own tail), so its
attention sums round as they would alone; in a unified cache the sequences' cells
interleave and round differently. The weights are not repacked (`repack=False`, llama.cpp's
`use_extra_bufts`): repacked Q4_K weights are multiplied by a group of 4 token rows with
another kernel than a single row, so a near-tie could flip and a greedy answer decoded
together differ from the same request alone (measured: 4 of 4 specialists' briefs differed).
Without repacking every row is multiplied alone, the answers decoded together are those of
each request alone, token for token (measured 0 of 4 on 1 and on 2 threads; tested), and
decoding was as fast (the 4 specialists alone 64.4 s vs 66.4 s repacked, together 42.6 s vs
41.8 s, on 1 thread). The price of separate streams is memory: one per sequence
(`concord.llm.kv_memory`).

llama-cpp-python (0.3.36) reuses a shared prompt prefix by itself in its high-level API
(only the differing tail is evaluated when the next prompt starts with the same tokens), so
keeping the prefix is not what makes one request fast; what the saved prefix state adds is
that several sequences start from it at once, and that runs alternating between records
(the last `PREFIX_CACHE_SIZE` states) skip the re-evaluation. A saved state is a copy of the
sequence's cells, as large as its prefix (the 1.5B model's 4,226-token bench record: 121 MB,
502 MB for two records with their preface), so the states also share a byte limit: what the
memory share of the KV cache (`concord.llm.kv_memory.prefix_state_budget`) leaves after the
streams; the least recently used go first, never those the request being started restores.

Threads: at most `n_threads`, and as many as the machine has cores free, looked at when a
batch starts (afresh after an idle spell) and every second while it decodes or evaluates a
prompt, between calls (`concord.llm.cpu_share.ThreadGovernor`,
`llama_set_n_threads`), unless $CONCORD_LLM_THREADS fixes the count; a prompt call of much
work (a chunk of a record) on all of them whatever the load (`ThreadGovernor.threads_for_call`).
Sequences are decoded together on any thread count (`together`); the answers are the same on
any thread count.

Progress: `on_progress`, when set (the child process sets it), gets the call's counts at
most once a second (`concord.llm.watchdog.ProgressMeter`): prompt tokens evaluated after
each chunk, every output token, and during a prompt evaluation each node of llama.cpp's
compute graph (its abort callback, switched on for prompt evaluations only, where one call
can take minutes on a slow machine), so the watchdog sees a slow model progressing.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from concord.errors import Cancelled, ModelError, RecordTooLong
from concord.llm.chat_template import TemplateSplit, split_chat_template
from concord.llm.cpu_share import ThreadGovernor, short_barrier_spin, wide_call_tokens
from concord.llm.json_grammar import schema_grammar
from concord.llm.kv_memory import KvShape, prefix_state_budget, safe_parallel
from concord.llm.runtime import FinishReason, Generation, GenerationRequest, StopCheck
from concord.llm.sampling import PROBE_ORDER, GrammarConstraint, Probes, TokenChooser
from concord.llm.watchdog import ProgressMeter, ProgressSink

DEFAULT_N_BATCH = 512
MAX_DEFAULT_THREADS = 16
RESERVED_CORES = 1
THREADS_ENV = "CONCORD_LLM_THREADS"
PARALLEL_ENV = "CONCORD_LLM_PARALLEL"
DEFAULT_PARALLEL = 4
"""Sequences decoded together (measured: see README, "What to expect per patient")."""
MAX_PARALLEL = 16
PREFIX_CACHE_SIZE = 4  # shared-token states kept: two records, each with the agents' preface
MIN_ANSWER_ROOM = 256  # tokens the context must leave for an answer (fewer: refused)

RequestFeed = Callable[[bool], bool]
"""Appends requests received from elsewhere to the list being decoded; `block`: wait for
some (every request is answered). False when no more will come."""


def gpu_offload_supported() -> bool | None:
    """Whether the installed llama-cpp-python was built with GPU support (None: unknown)."""
    try:
        import llama_cpp
    except ImportError:
        return None
    probe = getattr(llama_cpp, "llama_supports_gpu_offload", None)
    return bool(probe()) if probe is not None else None


def _positive_env(name: str) -> int | None:
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else None


def default_threads(*, keep_a_core: bool = True) -> int:
    """$CONCORD_LLM_THREADS, else the cores this process may use, capped; with `keep_a_core`
    (the desktop app) one fewer, left for the UI and the OS. llama.cpp's worker threads
    busy-wait: with more threads than free cores a decode step can be 10x slower (measured
    on a loaded 2-core machine). Without a UI (the command line) every core decodes:
    measured on an idle 2-core machine, one anaesthetist brief took 13.0 s on 1 thread and
    8.3 s on 2, the same text."""
    env = _positive_env(THREADS_ENV)
    if env is not None:
        return env
    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        available = os.cpu_count() or 1
    reserved = RESERVED_CORES if keep_a_core else 0
    return max(1, min(available - reserved, MAX_DEFAULT_THREADS))


def default_parallel() -> int:
    """$CONCORD_LLM_PARALLEL, else DEFAULT_PARALLEL: sequences decoded together."""
    return min(_positive_env(PARALLEL_ENV) or DEFAULT_PARALLEL, MAX_PARALLEL)


@dataclass
class RuntimeStats:
    """Where the runtime's time went since it was loaded (seconds, counts); the bench
    reads the difference over a run."""

    prefill_seconds: float = 0.0  # record prefixes evaluated
    prefill_tokens: int = 0
    preface_seconds: float = 0.0  # prefaces evaluated on a record's state
    preface_tokens: int = 0
    prompt_seconds: float = 0.0  # requests' own prompt tokens evaluated
    prompt_tokens: int = 0
    restore_seconds: float = 0.0  # prefix states saved and restored
    restores: int = 0
    decode_steps: int = 0
    steps_by_threads: dict[int, int] = field(default_factory=dict)  # decode steps per count
    # prompt tokens (record, preface, requests' own) evaluated on each thread count
    prompt_tokens_by_threads: dict[int, int] = field(default_factory=dict)
    # llama_decode of the decoding steps, by how many sequences' tokens the step held
    steps_by_sequences: dict[int, int] = field(default_factory=dict)
    step_seconds_by_sequences: dict[int, float] = field(default_factory=dict)
    # steps whose sequences' ids were not consecutive: llama.cpp decodes each run of
    # consecutive ids as its own micro-batch, so those sequences did not share one pass
    split_steps: int = 0
    moves: int = 0  # sequences moved down into a gap (`_close_gaps`)
    forced_calls: int = 0  # a chosen token and the text its grammar forces, in their own call
    forced_tokens: int = 0
    forced_seconds: float = 0.0
    choose_seconds: float = 0.0  # Python choosing tokens: sampling, grammar, jump-forward


@dataclass(frozen=True)
class _PrefixState:
    tokens: tuple[int, ...]
    data: npt.NDArray[np.uint8]  # the sequence's KV state, as llama.cpp wrote it


def keep_within(
    states: OrderedDict[str, _PrefixState], newest: int, limit: int | None, adding: int = 0
) -> None:
    """Forget the least recently used saved states (first in `states`) until at most
    PREFIX_CACHE_SIZE are kept and they take at most `limit` bytes (None: no limit), with
    room for one more of `adding` bytes when that is not 0 (made before it is copied, so
    the states never take more at once); never the `newest` ones (the request being
    started restores them, or its record's next request does)."""
    more = 1 if adding else 0
    while len(states) > newest and (
        len(states) + more > PREFIX_CACHE_SIZE
        or (limit is not None and state_bytes(states) + adding > limit)
    ):
        states.popitem(last=False)


def state_bytes(states: OrderedDict[str, _PrefixState]) -> int:
    """The bytes the saved `states` take."""
    return sum(state.data.nbytes for state in states.values())


@dataclass
class _Sequence:
    """One request being answered in its own KV sequence."""

    index: int  # position in the caller's list of requests
    request: GenerationRequest
    tail: list[int]  # request-specific prompt tokens, after the shared prefix
    n_prompt: int
    max_tokens: int  # the request's cap, or the room its context has left if less
    seq_id: int = -1
    chooser: TokenChooser | None = None
    grammar: GrammarConstraint | None = None
    prefix_reused: bool = False
    pos: int = 0  # position of the next token to evaluate
    fed: int = 0  # tail tokens evaluated so far
    pending: list[int] = field(default_factory=list)  # chosen (+ forced) tokens, next step
    out: list[int] = field(default_factory=list)
    admitted_at: float = 0.0  # when it took a sequence (perf_counter)
    first_logits_at: float | None = None  # when its prompt was evaluated (perf_counter)
    finish: FinishReason | None = None


class LlamaCppRuntime:
    """One GGUF model loaded once; generation is serialised by a lock (one batch at a time,
    any number of requests in it, more added while it decodes)."""

    takes_added_requests = True

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
        parallel: int | None = None,
        repack: bool = False,
        jump_forward: bool = True,
        adapt_threads: bool | None = None,
    ) -> None:
        """`n_threads`: the most threads (default `default_threads()`); `adapt_threads`:
        fewer while other processes use the cores (default: unless $CONCORD_LLM_THREADS
        is set)."""
        try:
            with short_barrier_spin():  # read by llama.cpp's OpenMP when it is loaded
                import llama_cpp
                from llama_cpp import _internals
                from llama_cpp._logger import set_verbose
        except ImportError as exc:
            raise ModelError("llama-cpp-python is not installed", subject=model_path) from exc
        set_verbose(False)  # llama.cpp's own log: errors only (as Llama(verbose=False) does)
        self._lib = llama_cpp
        path = Path(model_path)
        self.model_name = model_name or path.stem
        self.model_sha256 = model_sha256
        self.prefix_cache = prefix_cache
        self.n_threads = n_threads or default_threads()
        self.n_batch = n_batch or DEFAULT_N_BATCH
        self.n_ctx = n_ctx  # cells of one sequence's stream: prefix + its tail + answer
        self.repack = repack
        model_params = llama_cpp.llama_model_default_params()
        model_params.n_gpu_layers = n_gpu_layers
        model_params.use_extra_bufts = repack
        try:
            self._model = _internals.LlamaModel(
                path_model=str(path), params=model_params, verbose=False
            )
        except (ValueError, RuntimeError) as exc:
            raise ModelError(f"llama.cpp could not load the model: {exc}", subject=path) from exc
        self.kv_shape = KvShape.from_metadata(self._model.metadata())
        stream = self.kv_shape.bytes_per_stream(n_ctx, self.n_batch) if self.kv_shape else 0
        chosen = parallel is not None
        if parallel is None:  # the default, bounded by this machine's memory
            parallel = safe_parallel(stream, default_parallel())
        self.parallel = max(1, min(parallel, MAX_PARALLEL))
        # sequences decoded at once: all of them unless chosen (`together`)
        self._together: int | None = self.parallel if chosen else None
        if adapt_threads is None:
            adapt_threads = _positive_env(THREADS_ENV) is None
        # a prompt call of much work runs on every thread whatever the load (cpu_share)
        self.governor = ThreadGovernor(
            self.n_threads,
            fixed=not adapt_threads,
            wide_from=wide_call_tokens(self._model.n_embd()),
        )
        self._threads_set = self.n_threads  # what llama.cpp was last told (both counts)
        self.stats = RuntimeStats()
        self.on_progress: ProgressSink | None = None
        self._meter = ProgressMeter(None)
        self.kv_bytes = stream * self.parallel
        # the saved prefix states share what the streams leave of the memory share
        self.prefix_state_limit = prefix_state_budget(self.kv_bytes)
        self.prefix_states_peak = 0  # the most bytes the saved states took at once
        params = llama_cpp.llama_context_default_params()
        params.n_ctx = n_ctx * self.parallel
        params.n_batch = params.n_ubatch = self.n_batch
        params.n_threads = params.n_threads_batch = self.n_threads
        params.n_seq_max = self.parallel
        params.kv_unified = False  # a stream per sequence (see the module doc)
        # sliding-window layers keep only their window (llama.cpp's default keeps every
        # cell): measured on the bench's 4,353-token record, the record was read in 13.6-17.4
        # s against 16.3-22.0 s, and a stream of the default model takes 41 MB, not 151
        params.swa_full = False
        params.flash_attn_type = llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED
        params.no_perf = True
        try:
            self._context = _internals.LlamaContext(model=self._model, params=params, verbose=False)
        except (ValueError, RuntimeError) as exc:
            self._model.close()
            raise ModelError(f"llama.cpp could not create a context: {exc}", subject=path) from exc
        self._ctx = self._context.ctx
        self._batch = llama_cpp.llama_batch_init(self.n_batch, 0, 1)
        self._n_vocab = self._model.n_vocab()
        self._vocab = self._model.vocab
        self._memory = llama_cpp.llama_get_memory(self._ctx)
        self.template = self._template_split()
        self._probes = self._grammar_probes() if jump_forward else None
        self._states: OrderedDict[str, _PrefixState] = OrderedDict()
        self._copying: set[int] = set()  # the streams of a copy llama.cpp has yet to make
        self._grammars: dict[str, str] = {}
        self._lock = threading.Lock()
        # called by llama.cpp after each graph node while a prompt is evaluated
        self._node_done = llama_cpp.ggml_abort_callback(self._count_node)
        self._no_callback = llama_cpp.ggml_abort_callback()

    # -- threads -------------------------------------------------------------------------

    @property
    def threads(self) -> int:
        """Threads decoding now (`n_threads` at most)."""
        return self.governor.threads

    @property
    def together(self) -> int:
        """Sequences decoded at once: as chosen, else all `parallel` of them, on any number
        of threads. Measured on this 2-core machine (1 December 2026, quiet, the bench's
        4,353-token record), one llama_decode step of the default model: one sequence 47.3
        ms on 1 thread and 25.3 ms on 2; four sequences 90.5 ms and 56.1 ms (2.1x and 1.8x
        faster per token); four specialists' briefs on 1 thread took 40.5 s one at a time
        and 30.5 s four at a time, the same texts. (On 27 November a step of four on 1
        thread had measured slower than four of one; that no longer holds, so a single
        thread, as in the desktop app on 2 cores or under load, decodes together too.)"""
        return self._together if self._together is not None else self.parallel

    @together.setter
    def together(self, value: int | None) -> None:
        self._together = None if value is None else max(1, min(value, self.parallel))

    @property
    def together_choice(self) -> int | None:
        """The chosen number of sequences decoded at once (None: all of them)."""
        return self._together

    def _check_threads(self, *, now: bool = False) -> None:
        self.governor.check(now=now)

    def _use_threads(self, threads: int) -> None:
        """Threads for the next llama_decode call. Both of llama.cpp's counts are set: it
        takes `n_threads_batch` for any call of more than one token, a decoding step of
        several sequences and a forced-text call included."""
        if threads != self._threads_set:
            self._lib.llama_set_n_threads(self._ctx, threads, threads)
            self._threads_set = threads

    def _decode(self, *, prompt: bool = False) -> None:
        """llama_decode of the batch on the threads the governor chooses for it."""
        tokens = int(self._batch.n_tokens)
        threads = self.governor.threads_for_call(tokens, prompt=prompt)
        self._use_threads(threads)
        if prompt:
            by_threads = self.stats.prompt_tokens_by_threads
            by_threads[threads] = by_threads.get(threads, 0) + tokens
        self._decode_batch()

    # -- progress ------------------------------------------------------------------------

    def _count_node(self, _data: object) -> bool:
        self._meter.step()
        return False  # never abort

    def _evaluate_prompt(self) -> float:
        """llama_decode of a batch of prompt tokens, counting its graph nodes as progress;
        its seconds. The threads are looked at again first: a prompt of many chunks takes
        long enough for the machine's load to change (and for a wrong start to cost)."""
        self._check_threads()
        started = time.perf_counter()
        if self.on_progress is None:
            self._decode(prompt=True)
        else:
            self._lib.llama_set_abort_callback(self._ctx, self._node_done, None)
            try:
                self._decode(prompt=True)
            finally:
                self._lib.llama_set_abort_callback(self._ctx, self._no_callback, None)
        return time.perf_counter() - started

    # -- prompt construction -------------------------------------------------------------

    def _template_split(self) -> TemplateSplit:
        meta = self._model.metadata()
        bos = self._model.detokenize([self._model.token_bos()], special=True)
        eos = self._model.detokenize([self._model.token_eos()], special=True)
        return split_chat_template(
            meta.get("tokenizer.chat_template"),
            bos_token=bos.decode("utf-8", "replace"),
            eos_token=eos.decode("utf-8", "replace"),
            subject=self.model_name,
        )

    def _grammar_probes(self) -> Probes | None:
        """A single token for each printable ASCII character, and the end-of-generation and
        a non-ASCII token as blockers; None (no jump-forward) if some character has no
        single token of its own."""
        chars = []
        for char in PROBE_ORDER:
            tokens = self.tokenize(char, special=False)
            if len(tokens) != 1 or self._model.detokenize(tokens) != char.encode():
                return None
            chars.append((char, tokens[0]))
        blockers = {self._model.token_eos()}
        eot = self._lib.llama_vocab_eot(self._vocab)
        if eot >= 0:
            blockers.add(eot)
        blockers.update(self.tokenize("\u00e9", special=False)[:1])
        return Probes(tuple(chars), tuple(sorted(blockers)))

    def tokenize(self, text: str, *, special: bool, bos: bool = False) -> list[int]:
        """The model's tokens for `text`; with `special`, control-token text becomes control
        tokens (only ever for Concord's own template text, never for patient text)."""
        if not text and not bos:
            return []
        return list(self._model.tokenize(text.encode("utf-8"), add_bos=bos, special=special))

    def prompt_tokens(self, request: GenerationRequest) -> tuple[list[int], list[int]]:
        """(shared prefix tokens, request-specific tokens): the prefix and preface, then
        the request's own prompt."""
        segments, rest = self._prompt_segments(request)
        return [token for segment in segments for token in segment], rest

    def _prompt_segments(self, request: GenerationRequest) -> tuple[list[list[int]], list[int]]:
        """The shared tokens as segments, each evaluated once and saved (the template head
        and record; the preface when there is one), and the request's own tokens."""
        record = self.tokenize(self.template.head, special=True, bos=True)
        record += self.tokenize(request.prefix, special=False)
        segments = [record]
        if request.preface:
            segments.append(self.tokenize(request.preface, special=False))
        rest = self.tokenize(request.prompt, special=False)
        rest += self.tokenize(self.template.tail, special=True)
        return segments, rest

    def _grammar_text(self, schema: dict[str, Any]) -> str:
        key = json.dumps(schema, sort_keys=True)
        if key not in self._grammars:
            self._grammars[key] = schema_grammar(schema, self.model_name)
        return self._grammars[key]

    # -- KV state ------------------------------------------------------------------------

    def _clear(self, seq_id: int) -> None:
        self._lib.llama_memory_seq_rm(self._memory, seq_id, -1, -1)

    def _decode_batch(self) -> None:
        code = self._lib.llama_decode(self._ctx, self._batch)
        if code != 0:
            raise ModelError(
                f"llama.cpp failed to decode (code {code}): the KV cache is full or the "
                "batch is invalid",
                subject=self.model_name,
            )
        self._copying.clear()  # a decode makes the pending copies (`_close_gaps`)

    def _add(self, token: int, pos: int, seq_id: int, logits: bool) -> int:
        """Append one token to the batch; its index there (to read its logits)."""
        batch = self._batch
        i = int(batch.n_tokens)
        batch.token[i] = token
        batch.pos[i] = pos
        batch.n_seq_id[i] = 1
        batch.seq_id[i][0] = seq_id
        batch.logits[i] = 1 if logits else 0
        batch.n_tokens = i + 1
        return i

    def _eval_prefix(self, tokens: Sequence[int], seq_id: int, pos: int = 0) -> None:
        """Evaluate shared tokens at positions from `pos`, in chunks of n_batch from there
        (a record from 0, counted as prefill; a preface after it)."""
        for start in range(0, len(tokens), self.n_batch):
            self._batch.n_tokens = 0
            chunk = tokens[start : start + self.n_batch]
            for offset, token in enumerate(chunk):
                self._add(token, pos + start + offset, seq_id, False)
            seconds = self._evaluate_prompt()
            if pos:
                self.stats.preface_seconds += seconds
                self.stats.preface_tokens += len(chunk)
            else:
                self.stats.prefill_seconds += seconds
                self.stats.prefill_tokens += len(chunk)
            self._meter.prompt(len(chunk), seconds)

    def _prefix_key(self, tokens: Sequence[int]) -> str:
        return hashlib.sha256(np.asarray(tokens, dtype=np.int32).tobytes()).hexdigest()

    def _save(self, tokens: Sequence[int], seq_id: int, size: int | None = None) -> _PrefixState:
        """A copy of the sequence's KV state, made by llama.cpp into a buffer Python only
        allocates: a ctypes array is zero-filled under the interpreter lock, and for the
        1.5B model's 4k-token record (a state of a few hundred MB) that froze every other
        Python thread, the window's included, for 0.3-0.5 s (`ui_max_stall_ms` 295 ms in
        `concord bench --model qwen2.5-coder-1.5b-instruct`); llama.cpp writes the memory
        with the lock released."""
        if size is None:  # `size`: llama_state_seq_get_size's, when the caller has it
            size = self._lib.llama_state_seq_get_size(self._ctx, seq_id)
        buffer = np.empty(size, dtype=np.uint8)  # allocated, not written
        written = self._lib.llama_state_seq_get_data(self._ctx, _bytes(buffer), size, seq_id)
        if written != size:
            raise ModelError("could not copy the prefix KV state", subject=self.model_name)
        return _PrefixState(tokens=tuple(tokens), data=buffer)

    def _restore(self, state: _PrefixState, seq_id: int) -> None:
        size = state.data.nbytes
        if self._lib.llama_state_seq_set_data(self._ctx, _bytes(state.data), size, seq_id) != size:
            raise ModelError("could not restore the prefix KV state", subject=self.model_name)

    def _load_prefix(self, segments: Sequence[Sequence[int]], seq_id: int, *, alone: bool) -> bool:
        """Make sequence `seq_id` hold exactly the shared tokens (`segments` one after the
        other), always from a restored copy of their KV state; True if a saved state was
        reused, False if some were evaluated first.

        A segment is evaluated on a restored copy of the state before it (none for the
        first), then saved, and the sequence emptied and restored before it goes on: the
        saved state of a sliding-window (SWA) layer holds only the cells inside the window,
        so a restored sequence lays out its cells differently from one just evaluated, and
        a greedy answer could differ by whether the record happened to be cached (measured:
        1 of 5 bench requests). Restoring every time makes the answer independent of what
        was cached: the record and the agents' preface are the same state whether both,
        one or neither was saved before. `alone`: no other sequence is in use, and the whole
        cache is emptied and zeroed before each restore (stale cells of earlier requests
        otherwise change how a later answer rounds)."""
        tokens = [token for segment in segments for token in segment]
        key = self._prefix_key(tokens)
        state = self._states.get(key) if self.prefix_cache else None
        reused = state is not None
        if state is not None:
            self._states.move_to_end(key)
        else:
            state = self._evaluate_segments(segments, seq_id, alone)
        started = time.perf_counter()
        self._empty(seq_id, alone)
        self._restore(state, seq_id)
        self.stats.restore_seconds += time.perf_counter() - started
        self.stats.restores += 1
        return reused

    def _evaluate_segments(
        self, segments: Sequence[Sequence[int]], seq_id: int, alone: bool
    ) -> _PrefixState:
        """The state of all `segments`, from the longest run of them already saved: each
        later one evaluated on a restored copy of the state before it, then saved."""
        done, state = 0, None
        if self.prefix_cache:
            for count in range(len(segments) - 1, 0, -1):
                saved = self._states.get(self._prefix_key(_joined(segments[:count])))
                if saved is not None:
                    done, state = count, saved
                    self._states.move_to_end(self._prefix_key(saved.tokens))
                    break
        for count in range(done, len(segments)):
            started = time.perf_counter()
            self._empty(seq_id, alone)
            if state is not None:
                self._restore(state, seq_id)
                self.stats.restores += 1
            self.stats.restore_seconds += time.perf_counter() - started
            position = len(state.tokens) if state is not None else 0
            self._eval_prefix(segments[count], seq_id, position)
            started = time.perf_counter()
            size = self._lib.llama_state_seq_get_size(self._ctx, seq_id)
            if self.prefix_cache:  # room first, keeping this record's states saved so far
                chain = count - done + (1 if done else 0)
                keep_within(self._states, chain, self.prefix_state_limit, adding=size)
            state = self._save(_joined(segments[: count + 1]), seq_id, size)
            self.stats.restore_seconds += time.perf_counter() - started
            if self.prefix_cache:
                self._states[self._prefix_key(state.tokens)] = state
                self.prefix_states_peak = max(self.prefix_states_peak, state_bytes(self._states))
        assert state is not None, "a prefix has at least one segment"
        return state

    def _empty(self, seq_id: int, alone: bool) -> None:
        if alone:
            self._lib.llama_memory_clear(self._memory, True)
        else:
            self._clear(seq_id)

    # -- generation ----------------------------------------------------------------------

    def generate(self, request: GenerationRequest) -> Generation:
        ((_, generation),) = list(self.generate_many([request]))
        return generation

    def generate_many(
        self,
        requests: Sequence[GenerationRequest],
        should_stop: StopCheck | None = None,
        feed: RequestFeed | None = None,
    ) -> Iterator[tuple[int, Generation]]:
        """Decode `requests` (all on the same prefix) together, at most `parallel` at a
        time; yields (index, Generation) as each finishes. Cancelled if `should_stop()`.

        Requests appended to `requests` while an answer is handled start at the next step
        (`ParallelRuntime`). `feed`, for a caller in another process, appends the requests
        it has received meanwhile: called between steps with `block=False`, and with
        `block=True` once every request is answered, to wait for more (False: no more)."""
        if not requests:
            return
        with self._lock:
            yield from self._generate_many(requests, should_stop, feed)

    def _shared_segments(self, request: GenerationRequest) -> list[list[int]]:
        """The shared tokens every request of `request`'s group starts from, as segments
        (the last one short of its last token when a request has no tokens of its own: it
        needs at least one)."""
        segments, tail = self._prompt_segments(request)
        if not tail:
            segments[-1] = segments[-1][:-1]
        return [segment for segment in segments if segment]

    def _sequence(
        self, index: int, request: GenerationRequest, prefix: list[int], first: GenerationRequest
    ) -> _Sequence:
        """The request as a sequence after the shared `prefix` (that of `first`)."""
        if (request.prefix, request.preface) != (first.prefix, first.preface):
            raise ModelError(
                "requests decoded together must share one prefix", subject=self.model_name
            )
        head, rest = self.prompt_tokens(request)
        tokens = head + rest
        n_prompt = len(tokens)
        room = self.n_ctx - n_prompt
        needed = min(request.max_tokens, MIN_ANSWER_ROOM)
        if room < needed:
            raise RecordTooLong(
                f"the record is too long for the model's context: the prompt takes "
                f"{n_prompt} of the {self.n_ctx} tokens it reads at once, leaving "
                f"{max(room, 0)} for the answer (it needs {needed}); register the model "
                "with a longer context or split the record",
                subject=self.model_name,
            )
        # an answer whose cap the context cannot hold gets the room there is (a cut-off is
        # then retried at half budget by the agents)
        max_tokens = min(request.max_tokens, room)
        return _Sequence(index, request, tokens[len(prefix) :], n_prompt, max_tokens)

    def time_steps(
        self,
        prefix: str,
        sequences: int,
        steps: int,
        *,
        logits: bool = True,
        threads: int | None = None,
    ) -> list[tuple[float, float]]:
        """For profiling (`concord.bench.decode_profile`): `steps` llama_decode calls of one
        token in each of `sequences` sequences restored from the record `prefix`, as a
        decoding step of that many sequences does; the (wall, this process's CPU) seconds of
        each. `logits`: with the output layer, as decoding, or without it; `threads`: that
        many threads for these calls. The sequences are emptied afterwards."""
        with self._lock:
            (tokens,), _ = self._prompt_segments(GenerationRequest(prefix=prefix, prompt=""))
            count = max(1, min(sequences, self.parallel))
            steps = max(0, min(steps, self.n_ctx - len(tokens)))
            self._flush_copies()
            for seq_id in range(count):
                self._load_prefix([tokens], seq_id, alone=seq_id == 0)
            self._use_threads(self.governor.threads if threads is None else threads)
            times: list[tuple[float, float]] = []
            try:
                for step in range(steps):
                    self._batch.n_tokens = 0
                    for seq_id in range(count):
                        self._add(tokens[-1], len(tokens) + step, seq_id, logits)
                    wall, cpu = time.perf_counter(), time.process_time()
                    self._decode_batch()
                    times.append((time.perf_counter() - wall, time.process_time() - cpu))
            finally:
                for seq_id in range(count):
                    self._clear(seq_id)
            return times

    def forget_prefixes(self) -> None:
        """Drop the saved record states: the next request on a record evaluates it again."""
        with self._lock:
            self._states.clear()

    def _generate_many(
        self,
        requests: Sequence[GenerationRequest],
        should_stop: StopCheck | None,
        feed: RequestFeed | None,
    ) -> Iterator[tuple[int, Generation]]:
        started = time.perf_counter()
        self._flush_copies()
        first = requests[0]
        segments = self._shared_segments(first)
        prefix = _joined(segments)
        waiting = [self._sequence(i, r, prefix, first) for i, r in enumerate(requests)]
        known = len(requests)
        cached = self.prefix_cache and self._prefix_key(prefix) in self._states
        prompt_total = (0 if cached else len(prefix)) + sum(len(s.tail) for s in waiting)
        self._check_threads(now=True)
        active: list[_Sequence] = []
        with ProgressMeter(self.on_progress, prompt_total) as self._meter:
            try:
                while True:
                    if feed is not None:
                        feed(False)
                    if len(requests) > known:  # added while an answer was handled
                        added = [
                            self._sequence(i, requests[i], prefix, first)
                            for i in range(known, len(requests))
                        ]
                        known = len(requests)
                        self._meter.prompt_total += sum(len(s.tail) for s in added)
                        waiting.extend(added)
                    if not waiting and not active:
                        if feed is not None and feed(True):
                            continue
                        break
                    if should_stop is not None and should_stop():
                        raise Cancelled("generation cancelled", subject=self.model_name)
                    self._check_threads()
                    self._admit(waiting, active, segments)
                    self._close_gaps(active)
                    for sequence in self._step(active):
                        active.remove(sequence)
                        self._release(sequence)
                        yield sequence.index, self._result(sequence, started)
            finally:
                for sequence in active:
                    self._release(sequence)

    def _admit(
        self, waiting: list[_Sequence], active: list[_Sequence], segments: list[list[int]]
    ) -> None:
        """Start waiting requests in free sequences (lowest id first: llama.cpp splits a
        batch by consecutive sequence ids), each from the record prefix, at most `together`
        at once."""
        busy = {s.seq_id for s in active} | self._copying
        free = [i for i in range(self.parallel) if i not in busy]
        while waiting and free and len(active) < self.together:
            sequence = waiting.pop(0)
            sequence.seq_id = free.pop(0)
            sequence.admitted_at = time.perf_counter()
            sequence.prefix_reused = self._load_prefix(segments, sequence.seq_id, alone=not active)
            sequence.pos = sum(len(segment) for segment in segments)
            request = sequence.request
            if request.schema is not None:
                sequence.grammar = GrammarConstraint(
                    self._lib,
                    self._vocab,
                    self._grammar_text(request.schema),
                    self._n_vocab,
                    self._probes,
                )
            sequence.chooser = TokenChooser(request.temperature, request.seed, sequence.grammar)
            active.append(sequence)
        active.sort(key=lambda s: s.seq_id)

    def _flush_copies(self) -> None:
        """Make the copies `_close_gaps` asked for before anything is restored: a batch
        that failed before its next decode leaves one pending, and llama.cpp would make it
        at the next decode, over whatever was restored in the meantime. One token evaluated
        in a stream outside them, then removed."""
        if not self._copying:
            return
        spare = min(i for i in range(self.parallel) if i not in self._copying)
        self._batch.n_tokens = 0
        self._add(max(0, self._model.token_bos()), 0, spare, False)
        self._decode()
        self._clear(spare)

    def _close_gaps(self, active: list[_Sequence]) -> None:
        """Make the active sequences' ids consecutive: llama.cpp decodes each run of
        consecutive ids in a batch as its own micro-batch, so the sequences on either side
        of a gap would not share a pass (a step of two sequences split so took 122 ms on 1
        thread, against 76 ms in one pass). The highest sequence moves into the lowest free
        id below it: its KV stream is copied whole (`llama_memory_seq_cp` across streams:
        the same cells in the same places, so its answer does not change) when llama.cpp
        next decodes; until then neither stream takes a request (`_flush_copies`)."""
        while active:
            ids = {s.seq_id for s in active}
            if max(ids) - min(ids) + 1 == len(ids):
                return
            top = max(active, key=lambda s: s.seq_id)
            gaps = [i for i in range(top.seq_id) if i not in ids and i not in self._copying]
            if not gaps:
                return
            gap = gaps[0]
            self._lib.llama_memory_seq_cp(self._memory, top.seq_id, gap, -1, -1)
            self._clear(top.seq_id)
            self._copying.update((top.seq_id, gap))
            self.stats.moves += 1
            top.seq_id = gap
            active.sort(key=lambda s: s.seq_id)

    def _release(self, sequence: _Sequence) -> None:
        """Empty the request's sequence (the next request restores the prefix)."""
        self._clear(sequence.seq_id)
        if sequence.grammar is not None:
            sequence.grammar.close()
            sequence.grammar = None

    def _step(self, active: list[_Sequence]) -> list[_Sequence]:
        """Evaluate the prompt of every newly started sequence, and each chosen token that
        has forced text after it in its own call; then one llama_decode of the token each
        other decoding sequence chose last. Returns the sequences that finished.

        A prompt is evaluated in its own llama_decode calls, in chunks of n_batch from its
        start, exactly as for a request alone: llama.cpp splits a batch that mixes
        sequences into equal parts per sequence, and a prompt cut at other places rounds
        differently, so a greedy answer could change."""
        finished = []
        for sequence in active:
            if sequence.fed < len(sequence.tail):
                done = self._prompt(sequence)
            else:  # a chosen token with forced text after it: in its own call
                done = len(sequence.pending) > 1 and self._forced(sequence)
            if done:
                finished.append(sequence)
        self._batch.n_tokens = 0
        outputs: list[tuple[int, _Sequence]] = []
        for sequence in active:
            if len(sequence.pending) == 1 and sequence not in finished:
                (token,) = sequence.pending
                outputs.append((self._add(token, sequence.pos, sequence.seq_id, True), sequence))
                sequence.pos += 1
                sequence.pending = []
        if outputs:
            started = time.perf_counter()
            self._decode()
            self._count_step(len(outputs), time.perf_counter() - started)
            ids = [sequence.seq_id for _, sequence in outputs]
            if ids[-1] - ids[0] + 1 != len(ids):
                self.stats.split_steps += 1
            for slot, sequence in outputs:
                if self._choose(sequence, self._logits(slot)):
                    finished.append(sequence)
        return finished

    def _count_call(self) -> None:
        """A llama_decode call of the decoding (a step or a forced-text call)."""
        stats = self.stats
        stats.decode_steps += 1
        threads = self.governor.threads
        stats.steps_by_threads[threads] = stats.steps_by_threads.get(threads, 0) + 1

    def _count_step(self, sequences: int, seconds: float) -> None:
        """A decoding step of `sequences` sequences' tokens (one output each) took `seconds`
        in llama_decode."""
        self._count_call()
        stats = self.stats
        by_count = stats.steps_by_sequences
        by_count[sequences] = by_count.get(sequences, 0) + 1
        spent = stats.step_seconds_by_sequences
        spent[sequences] = spent.get(sequences, 0.0) + seconds

    def _prompt(self, sequence: _Sequence) -> bool:
        """Evaluate the sequence's own prompt and choose its first token; True if that
        already finished it."""
        while sequence.fed < len(sequence.tail):
            self._batch.n_tokens = 0
            chunk = sequence.tail[sequence.fed : sequence.fed + self.n_batch]
            for token in chunk:
                sequence.fed += 1
                last = sequence.fed == len(sequence.tail)
                slot = self._add(token, sequence.pos, sequence.seq_id, last)
                sequence.pos += 1
            seconds = self._evaluate_prompt()
            self.stats.prompt_seconds += seconds
            self.stats.prompt_tokens += len(chunk)
            self._meter.prompt(len(chunk), seconds)
        sequence.first_logits_at = time.perf_counter()
        return self._choose(sequence, self._logits(slot))

    def _forced(self, sequence: _Sequence) -> bool:
        """Evaluate the sequence's chosen token with the text the grammar forces after it, in
        its own llama_decode call (as alone: see `_step`), logits for the last only; then
        choose the next token. True if that finished the sequence."""
        self._batch.n_tokens = 0
        for token in sequence.pending:
            slot = self._add(token, sequence.pos, sequence.seq_id, False)
            sequence.pos += 1
        self._batch.logits[slot] = 1
        stats = self.stats
        stats.forced_calls += 1
        stats.forced_tokens += len(sequence.pending)
        sequence.pending = []
        started = time.perf_counter()
        self._decode()
        stats.forced_seconds += time.perf_counter() - started
        self._count_call()
        return self._choose(sequence, self._logits(slot))

    def _logits(self, slot: int) -> npt.NDArray[np.single]:
        pointer = self._lib.llama_get_logits_ith(self._ctx, slot)
        return np.ctypeslib.as_array(pointer, shape=(self._n_vocab,))

    def _choose(self, sequence: _Sequence, logits: npt.NDArray[np.single]) -> bool:
        """Pick the sequence's next token; True when the sequence is finished."""
        started = time.perf_counter()
        try:
            return self._choose_token(sequence, logits)
        finally:
            self.stats.choose_seconds += time.perf_counter() - started

    def _choose_token(self, sequence: _Sequence, logits: npt.NDArray[np.single]) -> bool:
        assert sequence.chooser is not None
        try:
            token = sequence.chooser.choose(logits)
        except ValueError as exc:
            raise ModelError(str(exc), subject=self.model_name) from exc
        if self._lib.llama_vocab_is_eog(self._vocab, token):
            sequence.finish = FinishReason.STOP
            return True
        sequence.chooser.accept(token)
        chosen = [token, *self._follow_forced(sequence)]
        self._meter.token(len(chosen))
        for token in chosen:
            sequence.out.append(token)
            if sequence.request.schema is not None and self._closes_json(sequence.out, token):
                sequence.finish = FinishReason.STOP
                return True
        if len(sequence.out) >= sequence.max_tokens:
            sequence.finish = FinishReason.LENGTH
            return True
        sequence.pending = chosen
        return False

    def _follow_forced(self, sequence: _Sequence) -> list[int]:
        """The tokens of the text the sequence's grammar forces next (jump-forward), which
        its grammar has then accepted; at most what is left of its token cap after the
        chosen token (the sequence then ends there). The text is tokenized as the model's
        tokenizer writes it, or, where those tokens do not spell it exactly, given one token
        per character: either way the grammar's state is the one the text leads to."""
        grammar = sequence.grammar
        room = sequence.max_tokens - len(sequence.out) - 1
        if grammar is None or room <= 0:
            return []
        followed = grammar.follow_forced()
        if not followed:
            return []
        text = "".join(char for char, _ in followed)
        tokens = self.tokenize(text, special=False)
        if self._model.detokenize(tokens, special=False) != text.encode():
            tokens = [token for _, token in followed]
        return tokens[:room]

    def _result(self, sequence: _Sequence, started: float) -> Generation:
        text = self._model.detokenize(sequence.out, special=False).decode("utf-8", errors="replace")
        first_token = sequence.first_logits_at or time.perf_counter()
        return Generation(
            text=text,
            prompt_tokens=sequence.n_prompt,
            completion_tokens=len(sequence.out),
            seconds=time.perf_counter() - started,
            prefix_reused=sequence.prefix_reused,
            finish_reason=sequence.finish or FinishReason.LENGTH,
            prompt_seconds=first_token - (sequence.admitted_at or started),
        )

    def _closes_json(self, out: list[int], token: int) -> bool:
        """Under a schema, stop as soon as the output is one complete JSON value."""
        if b"}" not in self._model.detokenize([token]):
            return False
        try:
            json.loads(self._model.detokenize(out).decode("utf-8", errors="strict"))
        except ValueError:
            return False
        return True

    def close(self) -> None:
        with self._lock:
            self._states.clear()
            if self._batch is not None:
                self._lib.llama_batch_free(self._batch)
                self._batch = None
            self._context.close()
            self._model.close()


def _bytes(buffer: npt.NDArray[np.uint8]) -> Any:
    """A uint8 pointer to the array's memory, for llama.cpp's state calls."""
    return buffer.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8))


def _joined(segments: Sequence[Sequence[int]]) -> list[int]:
    return [token for segment in segments for token in segment]
