"""`run_bench`: every measurement, in one process, on one loaded model, in a fixed order.

Order matters and is part of the method:
1. a warm-up generation on an unrelated prefix (pages the weights in, so the first timed
   call does not pay for the disk);
2. prefix reuse on the bench record, never evaluated before (naive first: it saves no state);
3. constrained vs free decoding on the same record, now cached (only decoding differs);
4. the full panel on a second generated record of the same size (its prefix is not cached,
   so the run pays for one record evaluation as a real run does), under the Qt probe;
5. the same panel on the same record again (its saved state forgotten) beside one busy
   process per core (`contention_slowdown`);
6. on that record, the specialists' first requests one after another and decoded together,
   the anaesthetist's alone and the record prefill (the panel's limit);
7. the same agents' requests through plain llama-cpp-python, in a child process;
8. alignment and screen throughput and the screen's scaling (no model), then peak memory.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from concord.adjudication.config import ScoringConfig
from concord.agents.profiles import AgentProfile
from concord.agents.runner import brief_token_cap
from concord.bench import model_measures as mm
from concord.bench import text_measures as tm
from concord.bench.figures import Figure
from concord.bench.naive import NaiveCall, NaiveResult, run_naive
from concord.bench.ocr_figures import ocr_figures
from concord.bench.records import (
    BENCH_SEED,
    BenchRecord,
    TokenCounter,
    alignment_extracts,
    alignment_record,
    bench_record,
    screening_record,
)
from concord.bench.targets import MemoryInputs, build_figures
from concord.bench.timing import peak_rss_mb
from concord.domain.record import Record
from concord.errors import ModelError
from concord.llm.cpu_share import allowed_cores
from concord.llm.kv_memory import GEMMA3_4B, WORKSTATION_BYTES, safe_parallel
from concord.llm.runtime import GenerationRequest, Runtime
from concord.pipeline import PanelSettings
from concord.screen.lexicon import Lexicon
from concord.screen.record_screen import RecordScreen

Say = Callable[[str], None]
WARM_UP = GenerationRequest(prefix="Warm-up.\n", prompt="Reply with OK.", max_tokens=4)


@dataclass(frozen=True)
class BenchOptions:
    quick: bool = False
    record_tokens: int = 4096  # the record block the agents see, in model tokens
    reuse_tokens: int = 32  # output tokens per agent in the reuse comparison
    decode_tokens: int = 640  # constrained vs free: tokens of a long brief
    decode_repeats: int = 2
    parallel_repeats: int = 2  # the limit's parts (specialists alone, together, ...), in turn
    panel_repeats: int = 2  # runs of the panel for panel_vs_limit (the fastest counts)
    naive: bool = True  # run the plain llama-cpp-python peer
    naive_timeout: float = 3600.0
    alignment_chars: int = 500_000
    alignment_extracts: int = 200
    screen_seconds: float = 2.0
    scaling_days: int = 120  # base record of the screen's scaling figure (x8 for the long one)
    max_specialists: int = 4
    judges: int = 1
    contention: bool = True  # the panel again beside busy processes
    busy_processes: int | None = None  # how many (None: one per core this process may use)

    @classmethod
    def for_run(cls, quick: bool) -> BenchOptions:
        if not quick:
            return cls()
        return cls(
            quick=True,
            record_tokens=1024,
            reuse_tokens=4,
            decode_tokens=32,
            decode_repeats=1,
            alignment_extracts=40,
            screen_seconds=0.3,
            scaling_days=20,
            max_specialists=2,
            parallel_repeats=1,
            panel_repeats=1,
        )


@dataclass(frozen=True)
class ModelInfo:
    name: str
    sha256: str
    file_bytes: int | None
    settings: dict[str, Any] = field(default_factory=dict)  # n_ctx, threads, batch, GPU
    path: Path | None = None  # the GGUF, for the plain llama-cpp-python peer


@dataclass(frozen=True)
class BenchInputs:
    profiles: Mapping[str, AgentProfile]
    screen: RecordScreen
    lexicon: Lexicon
    config: ScoringConfig
    screen_records: Sequence[Record]  # besides the bench record (e.g. the demo patients)


@dataclass(frozen=True)
class BenchResult:
    options: BenchOptions
    model: ModelInfo
    record: BenchRecord
    figures: tuple[Figure, ...]
    context: dict[str, Any]
    seconds: float


def token_counter(runtime: Runtime) -> TokenCounter | None:
    """Counts a record block as the runtime evaluates it (with its chat-template head), when
    the runtime exposes its tokenizer."""
    split = getattr(runtime, "prompt_tokens", None)
    if split is None:
        return None

    def count(text: str) -> int:
        prefix, _ = split(GenerationRequest(prefix=text, prompt=""))
        return len(prefix)

    return count


def run_bench(
    runtime: Runtime,
    model: ModelInfo,
    inputs: BenchInputs,
    options: BenchOptions,
    *,
    probe: mm.StallProbe | None = None,
    probe_missing: str = "",
    say: Say = lambda _message: None,
) -> BenchResult:
    started = time.perf_counter()
    counter = token_counter(runtime)
    record = bench_record(options.record_tokens, counter)
    say(
        f"bench record: {record.tokens} tokens ({record.counted_by}), "
        f"{len(record.record.lines)} lines"
    )
    runtime.generate(WARM_UP)

    panel = [inputs.profiles[name] for name in mm.PANEL]
    requests = [
        mm.agent_request(p, record.record, inputs.profiles, options.reuse_tokens) for p in panel
    ]
    say(f"prefix reuse: {len(requests)} agents naive, then with the record prefix reused")
    reuse = mm.measure_prefix_reuse(runtime, requests)

    say("decoding: schema-constrained vs free, same number of tokens")
    decoding = mm.measure_decoding(
        runtime,
        mm.agent_request(panel[0], record.record, inputs.profiles, options.decode_tokens),
        options.decode_repeats,
    )

    pipeline_record = bench_record(options.record_tokens, counter, seed=BENCH_SEED + 1)
    settings = PanelSettings(judges=options.judges, max_specialists=options.max_specialists)
    say(
        "pipeline: the full panel and adjudication on a second generated record"
        + ("" if probe else f" (no Qt probe: {probe_missing})")
    )
    panel_inputs = mm.PanelInputs(
        inputs.profiles, inputs.screen, inputs.lexicon, inputs.config, settings
    )
    load_before = mm.load_average()  # before the run alone (this one, without a probe)
    pipeline = mm.measure_pipeline(runtime, pipeline_record.record, panel_inputs, probe)
    alone = pipeline
    if probe is not None:
        say("panel: the same panel again without the Qt probe, as the peer and the loaded run")
        load_before = mm.load_average()
        alone = mm.measure_without_probe(runtime, pipeline_record.record, panel_inputs)
    contention = None
    if options.contention:
        busy = options.busy_processes
        busy = len(allowed_cores()) if busy is None else busy
        say(f"contention: the same panel on the same record beside {busy} busy process(es)")
        contention = mm.measure_contention(
            runtime, pipeline_record.record, panel_inputs, alone, busy, load_before
        )

    parallel = None
    panel_runs: tuple[mm.PipelineResult, ...] = (alone,)
    if pipeline.first_requests:
        if options.panel_repeats > 1:
            say(f"panel: {options.panel_repeats - 1} more run(s) of the same panel, for its limit")
            panel_runs = mm.measure_panel_again(
                runtime, pipeline_record.record, panel_inputs, alone, options.panel_repeats
            )
        specialists = _specialist_requests(pipeline, pipeline_record.record, inputs, options)
        say(f"parallel: {len(specialists)} specialists alone, then decoded together; the limit")
        parallel = mm.measure_parallel(
            runtime,
            pipeline.first_requests[0],
            specialists,
            options.parallel_repeats,
            in_panel=len(pipeline.first_requests) - 1,
        )
    naive, naive_missing = _naive(runtime, model, pipeline, options, say)
    naive_valid = None
    if naive is not None and naive.texts:
        naive_valid = mm.valid_briefs(
            naive.texts,
            naive.cut_off,
            pipeline.first_requests,
            pipeline_record.record,
            inputs.profiles,
        )

    say(
        f"alignment: {options.alignment_extracts} extracts on a "
        f"{options.alignment_chars // 1000} kB record; screen throughput"
    )
    big = alignment_record(options.alignment_chars)
    alignment = tm.measure_alignment(big, alignment_extracts(big, options.alignment_extracts))
    screening = tm.measure_screen(
        inputs.screen, [record.record, *inputs.screen_records], options.screen_seconds
    )
    say(f"screen scaling: {options.scaling_days} days of notes vs {8 * options.scaling_days}")
    scaling = tm.measure_screen_scaling(
        inputs.screen,
        screening_record(options.scaling_days),
        screening_record(8 * options.scaling_days),
        factor=8,
    )
    figures, context = build_figures(
        record=record,
        reuse=reuse,
        decoding=decoding,
        pipeline=pipeline,
        alignment=alignment,
        screening=screening,
        scaling=scaling,
        memory=_memory(runtime, model),
        parallel=parallel,
        panel_runs=panel_runs,
        naive=naive,
        naive_missing=naive_missing,
        naive_valid=naive_valid,
        contention=contention,
        cores=len(allowed_cores()),
        probe_missing=probe_missing,
    )
    context["pipeline_record_tokens"] = pipeline_record.tokens
    figures = (*figures, *ocr_figures(options.quick, say))  # scanned records (no model)
    return BenchResult(options, model, record, figures, context, time.perf_counter() - started)


def _specialist_requests(
    pipeline: mm.PipelineResult, record: Record, inputs: BenchInputs, options: BenchOptions
) -> list[GenerationRequest]:
    """The specialists the panel ran (their first requests), topped up from the standard
    panel to `max_specialists` (at least 2) so that something is decoded together."""
    requests = list(pipeline.first_requests[1:])
    wanted = max(2, options.max_specialists)
    for name in mm.PANEL[1:]:
        if len(requests) >= wanted:
            break
        if name not in {r.agent for r in requests}:
            profile = inputs.profiles[name]
            requests.append(
                mm.agent_request(
                    profile, record, inputs.profiles, brief_token_cap(profile.max_items)
                )
            )
    return requests


def _naive(
    runtime: Runtime,
    model: ModelInfo,
    pipeline: mm.PipelineResult,
    options: BenchOptions,
    say: Say,
) -> tuple[NaiveResult | None, str]:
    """The panel's first requests through plain llama-cpp-python, or None and why not."""
    split = getattr(runtime, "prompt_tokens", None)
    if not options.naive:
        return None, "switched off"
    if model.path is None or split is None:
        return None, "not measured: needs the model file and the runtime's tokenizer"
    calls = []
    for request in pipeline.first_requests:
        prefix, rest = split(request)
        calls.append(
            NaiveCall(request.agent, prefix + rest, request.schema or {}, request.max_tokens)
        )
    say(f"peer: {len(calls)} agents through plain llama-cpp-python (child process)")
    try:
        return (
            run_naive(
                model.path,
                int(model.settings.get("n_ctx") or 8192),
                int(model.settings.get("n_threads") or 1),
                calls,
                options.naive_timeout,
            ),
            "",
        )
    except ModelError as exc:
        return None, f"not measured: {exc.one_line()}"


def _memory(runtime: Runtime, model: ModelInfo) -> MemoryInputs:
    n_ctx = int(model.settings.get("n_ctx") or 8192)
    four_b = GEMMA3_4B.bytes_per_stream(n_ctx)
    return MemoryInputs(
        peak_mb=peak_rss_mb(),
        model_bytes=model.file_bytes,
        kv_bytes=getattr(runtime, "kv_bytes", None),
        parallel=int(getattr(runtime, "parallel", 1)),
        kv_4b_stream_bytes=four_b,
        parallel_4b_16gb=safe_parallel(four_b, 16, WORKSTATION_BYTES),
        prefix_states_bytes=getattr(runtime, "prefix_states_peak", None),
        prefix_state_limit=getattr(runtime, "prefix_state_limit", None),
    )
