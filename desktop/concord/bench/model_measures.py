"""Measurements that run the model: prefix reuse, constrained vs free decoding, the panel.

Each takes a loaded runtime and returns plain numbers; `concord.bench.run` turns them into
figures. Requests are the agents' own (prompt, JSON schema and record block built exactly
as `concord.agents.runner.run_agent` builds them), at temperature 0, so outputs are greedy
and can be compared token for token.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from concord.adjudication.config import ScoringConfig
from concord.agents.profiles import AgentProfile, AgentRole, specialists
from concord.agents.runner import brief_task
from concord.bench.load import busy_processes
from concord.bench.timing import TimedRuntime, decode_rate
from concord.domain.record import Record
from concord.llm.runtime import (
    FinishReason,
    Generation,
    GenerationRequest,
    ParallelRuntime,
    Runtime,
)
from concord.pipeline import PanelSettings, Stage, run_panel
from concord.screen.lexicon import Lexicon
from concord.screen.record_screen import RecordScreen

PANEL = ("anaesthetist", "cardiology", "respiratory", "renal", "haematology")
Emit = Callable[[object], None]
StallProbe = Callable[[Callable[[Emit], Any]], tuple[Any, float]]
"""Runs `work(emit)` off the UI thread while the Qt event loop turns; returns (the work's
result, the longest the event loop was blocked, in ms)."""


def agent_request(
    profile: AgentProfile,
    record: Record,
    profiles: Mapping[str, AgentProfile],
    max_tokens: int,
    *,
    constrained: bool = True,
) -> GenerationRequest:
    """The request `run_agent` makes for `profile`'s first (greedy) attempt (capped at
    `max_tokens`; without its schema unless `constrained`)."""
    consult: tuple[str, ...] | None = None
    if profile.role == AgentRole.ANAESTHETIST:
        consult = tuple(p.id for p in specialists(dict(profiles)))
    task = brief_task(
        profile,
        record,
        operation=record.operation or "",
        max_tokens=max_tokens,
        specialist_ids=consult,
    )
    request = task.next_request()
    return request if constrained else replace(request, schema=None)


def valid_briefs(
    texts: Sequence[str],
    cut_off: Sequence[bool],
    requests: Sequence[GenerationRequest],
    record: Record,
    profiles: Mapping[str, AgentProfile],
) -> int | None:
    """How many of `texts` (answers to the agents' first requests) Concord would accept as
    the agent's brief, read exactly as `run_agent` reads its first attempt; None when a
    request is not an agent's first attempt on `record` (nothing to read it with)."""
    valid = 0
    for text, stopped, request in zip(texts, cut_off, requests, strict=True):
        profile = profiles.get(request.agent)
        if profile is None:
            return None
        task = brief_task(profile, record, operation=record.operation or "")
        first = task.next_request()
        if (first.prefix, first.preface, first.prompt, first.schema) != (
            request.prefix,
            request.preface,
            request.prompt,
            request.schema,
        ):
            return None
        finish = FinishReason.LENGTH if stopped else FinishReason.STOP
        task.take(Generation(text, 0, 0, 0.0, False, finish))
        valid += task.answer is not None
    return valid


@contextmanager
def prefix_reuse(runtime: Runtime, enabled: bool) -> Iterator[bool]:
    """Switch the runtime's prefix KV reuse; yields False if the runtime has no switch."""
    if not hasattr(runtime, "prefix_cache"):
        yield False
        return
    before = runtime.prefix_cache
    runtime.prefix_cache = enabled
    try:
        yield True
    finally:
        runtime.prefix_cache = before


@contextmanager
def decoding_together(runtime: Runtime) -> Iterator[int]:
    """Let the runtime decode as many sequences at once as it has (whatever was chosen);
    yields how many it decodes at once otherwise."""
    before = int(getattr(runtime, "together", getattr(runtime, "parallel", 1)))
    if not hasattr(runtime, "together"):
        yield before
        return
    choice = getattr(runtime, "together_choice", before)  # None: all of them
    runtime.together = int(getattr(runtime, "parallel", 1))
    try:
        yield before
    finally:
        runtime.together = choice


@dataclass(frozen=True)
class ReuseResult:
    naive_seconds: float
    reuse_seconds: float
    naive_prompt_seconds: float
    reuse_prompt_seconds: float
    naive_prompt_tokens: int
    identical: bool
    switchable: bool  # the runtime could evaluate every prompt from scratch
    naive_reused: int  # calls that reused a prefix although reuse was off (must be 0)
    reuse_reused: int  # calls that restored the saved prefix (should be len - 1)
    calls: int
    tokens_per_call: int
    per_call_prompt_seconds: tuple[tuple[float, float], ...] = ()  # (naive, reuse) per request


def _timed(runtime: Runtime, request: GenerationRequest) -> tuple[float, Generation]:
    started = time.perf_counter()
    generation = runtime.generate(request)
    return time.perf_counter() - started, generation


def measure_prefix_reuse(runtime: Runtime, requests: Sequence[GenerationRequest]) -> ReuseResult:
    """Each request evaluated from scratch, and with the record prefix evaluated once (on
    the first request) and its KV state restored for the others. The two are interleaved,
    request by request, so that other load on the machine falls on both alike. The record
    must not be cached yet."""
    naive_seconds = reuse_seconds = 0.0
    naive: list[Generation] = []
    reuse: list[Generation] = []
    switchable = True
    for request in requests:
        with prefix_reuse(runtime, enabled=False) as can_switch:
            seconds, generation = _timed(runtime, request)
        switchable = switchable and can_switch
        naive_seconds += seconds
        naive.append(generation)
        with prefix_reuse(runtime, enabled=True):
            seconds, generation = _timed(runtime, request)
        reuse_seconds += seconds
        reuse.append(generation)
    return ReuseResult(
        naive_seconds=naive_seconds,
        reuse_seconds=reuse_seconds,
        naive_prompt_seconds=sum(g.prompt_seconds for g in naive),
        reuse_prompt_seconds=sum(g.prompt_seconds for g in reuse),
        naive_prompt_tokens=sum(g.prompt_tokens for g in naive),
        identical=[g.text for g in naive] == [g.text for g in reuse],
        switchable=switchable,
        naive_reused=sum(g.prefix_reused for g in naive),
        reuse_reused=sum(g.prefix_reused for g in reuse),
        calls=len(requests),
        tokens_per_call=max((r.max_tokens for r in requests), default=0),
        per_call_prompt_seconds=tuple(
            (round(a.prompt_seconds, 3), round(b.prompt_seconds, 3))
            for a, b in zip(naive, reuse, strict=True)
        ),
    )


@dataclass(frozen=True)
class DecodeResult:
    free_tps: float | None
    constrained_tps: float | None
    tokens: int  # output tokens of each compared generation
    repeats: int


def _faster(a: Generation, b: Generation) -> Generation:
    return b if (decode_rate(b) or 0.0) > (decode_rate(a) or 0.0) else a


def measure_decoding(
    runtime: Runtime, constrained: GenerationRequest, repeats: int
) -> DecodeResult:
    """Decode rate with the request's JSON schema and without it, for the same number of
    output tokens: both run once at `max_tokens`, then both are cut at the shorter one's
    length and run `repeats` times, alternately (so other load falls on both alike); the
    fastest of each counts. The record prefix should already be cached."""
    free = replace(constrained, schema=None)
    tokens = min(
        runtime.generate(free).completion_tokens, runtime.generate(constrained).completion_tokens
    )
    free = replace(free, max_tokens=max(1, tokens))
    constrained = replace(constrained, max_tokens=max(1, tokens))
    best_free, best_con = runtime.generate(free), runtime.generate(constrained)
    for _ in range(1, repeats):
        best_free = _faster(best_free, runtime.generate(free))
        best_con = _faster(best_con, runtime.generate(constrained))
    return DecodeResult(
        free_tps=decode_rate(best_free),
        constrained_tps=decode_rate(best_con),
        tokens=min(best_free.completion_tokens, best_con.completion_tokens),
        repeats=max(1, repeats),
    )


def runtime_stats(runtime: Runtime) -> dict[str, Any]:
    """A copy of the runtime's own counters (prefill, prompt and restore seconds, decode
    steps per thread count and per sequences in a step, ...), when it keeps them."""
    stats = getattr(runtime, "stats", None)
    if stats is None:
        return {}
    return {k: dict(v) if isinstance(v, dict) else v for k, v in stats.__dict__.items()}


def stats_since(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """What the runtime's counters added between two `runtime_stats`."""
    out: dict[str, Any] = {}
    for key, value in after.items():
        if isinstance(value, dict):
            was = before.get(key, {})
            moved = {k: round(v - was.get(k, 0), 3) for k, v in value.items()}
            out[key] = {k: v for k, v in moved.items() if v}
        elif isinstance(value, int | float):
            out[key] = round(value - before.get(key, 0), 3)
    return out


def agent_kind(profiles: Mapping[str, AgentProfile]) -> Callable[[GenerationRequest], str]:
    """A request's part of the panel: the agent's role, or "judge"."""

    def kind(request: GenerationRequest) -> str:
        profile = profiles.get(request.agent)
        return "judge" if profile is None else profile.role.value

    return kind


@dataclass(frozen=True)
class PipelineResult:
    wall_seconds: float
    model_seconds: float
    prompt_seconds: float
    completion_tokens: int
    calls: int
    reused_calls: int
    agents: tuple[str, ...]
    brief_status: dict[str, str]
    stall_ms: float | None
    panel_seconds: float = 0.0  # from the start until the last specialist's brief
    attempts: dict[str, int] = field(default_factory=dict)  # model calls per agent
    first_requests: tuple[GenerationRequest, ...] = ()  # each agent's first attempt, in order
    # until the last specialist's brief: model seconds by role, and the runtime's counters
    panel_model_seconds: dict[str, float] = field(default_factory=dict)
    panel_stats: dict[str, Any] = field(default_factory=dict)
    run_stats: dict[str, Any] = field(default_factory=dict)  # the whole run's counters
    panel_output_tokens: int = 0  # tokens of the agents' calls until the last brief


def same_work(a: PipelineResult, b: PipelineResult) -> bool:
    """Two runs of a panel wrote the same briefs (token counts and statuses)."""
    return a.completion_tokens == b.completion_tokens and a.brief_status == b.brief_status


def fastest_panel(runs: Sequence[PipelineResult]) -> PipelineResult:
    """The run whose panel finished soonest: with the limit's parts, each the fastest of
    its repeats, the fastest panel is compared (`measure_parallel`)."""
    return min(runs, key=lambda run: run.panel_seconds)


@dataclass(frozen=True)
class PanelInputs:
    profiles: Mapping[str, AgentProfile]
    screen: RecordScreen
    lexicon: Lexicon
    config: ScoringConfig
    settings: PanelSettings


def measure_pipeline(
    runtime: Runtime, record: Record, inputs: PanelInputs, probe: StallProbe | None = None
) -> PipelineResult:
    """One full `run_panel` on `record` (what `concord run` does, without the database),
    under the Qt event-loop probe when one is given."""
    timed = TimedRuntime(runtime, agent_kind(inputs.profiles))

    panel_done = 0.0
    at_start = runtime_stats(runtime)
    at_panel: dict[str, Any] = {}
    model_at_panel: dict[str, float] = {}
    calls_at_panel = 0

    def work(emit: Emit) -> tuple[float, Any]:
        nonlocal panel_done, at_panel, model_at_panel, calls_at_panel
        started = time.perf_counter()
        case = None
        for event in run_panel(
            record,
            timed,
            profiles=inputs.profiles,
            screen=inputs.screen,
            lexicon=inputs.lexicon,
            config=inputs.config,
            settings=inputs.settings,
        ):
            if event.stage in (Stage.ANAESTHETIST, Stage.SPECIALIST) and event.done == event.total:
                panel_done = time.perf_counter() - started
                at_panel = runtime_stats(runtime)
                model_at_panel = dict(timed.seconds_by_kind)
                calls_at_panel = len(timed.calls)
            emit(event)
            case = event.case or case
        return time.perf_counter() - started, case

    if probe is None:
        (wall, case), stall = work(lambda _event: None), None
    else:
        (wall, case), stall = probe(work)
    briefs = case.briefs if case is not None else ()
    agents = tuple(b.agent for b in briefs)
    firsts: dict[str, GenerationRequest] = {}
    attempts: dict[str, int] = {}
    for call in timed.calls:
        who = call.request.agent
        if who in agents:
            firsts.setdefault(who, call.request)
            attempts[who] = attempts.get(who, 0) + 1
    return PipelineResult(
        wall_seconds=wall,
        model_seconds=timed.model_seconds,
        prompt_seconds=timed.prompt_seconds,
        completion_tokens=timed.completion_tokens,
        calls=len(timed.calls),
        reused_calls=sum(c.generation.prefix_reused for c in timed.calls),
        agents=agents,
        brief_status={b.agent: b.status.value for b in briefs},
        stall_ms=stall,
        panel_seconds=panel_done,
        attempts=attempts,
        first_requests=tuple(firsts[a] for a in agents if a in firsts),
        panel_model_seconds={k: round(v, 3) for k, v in model_at_panel.items()},
        panel_stats=stats_since(at_start, at_panel),
        run_stats=stats_since(at_start, runtime_stats(runtime)),
        panel_output_tokens=sum(
            c.generation.completion_tokens for c in timed.calls[:calls_at_panel]
        ),
    )


def measure_without_probe(runtime: Runtime, record: Record, inputs: PanelInputs) -> PipelineResult:
    """The panel again on `record` (its saved state forgotten, so that it reads the record
    as the first run did) with no Qt event loop beside it. The probe's 5 ms timer wakes a
    thread 200 times a second, which takes a core from llama.cpp's threads (measured on a
    2-core machine, alternated twice: the panel 43.4 s and 38.7 s under the probe, 34.1 s
    and 34.0 s without, the same briefs); the plain llama-cpp-python peer and the panel
    beside busy processes run without it, so the figures comparing with them take this run."""
    forget = getattr(runtime, "forget_prefixes", None)
    if forget is not None:
        forget()
    return measure_pipeline(runtime, record, inputs)


def measure_panel_again(
    runtime: Runtime, record: Record, inputs: PanelInputs, first: PipelineResult, repeats: int
) -> tuple[PipelineResult, ...]:
    """`first` and the same panel run again until there are `repeats` runs, each reading the
    record afresh as the first did (its saved state forgotten); a run that wrote other
    briefs than the first is not the same work and is left out."""
    runs = [first]
    for _ in range(max(1, repeats) - 1):
        again = measure_without_probe(runtime, record, inputs)
        if same_work(first, again):
            runs.append(again)
    return tuple(runs)


@dataclass(frozen=True)
class ParallelResult:
    """The specialists' requests one after another and decoded together, on a record whose
    prefix is already evaluated; and what the limit of the panel is made of."""

    sequences: int  # requests decoded together
    parallel: int  # the runtime's number of parallel sequences
    alone_seconds: tuple[float, ...]  # each specialist request by itself (wall)
    together_seconds: float  # all of them in one batch (wall)
    differing: int  # requests whose greedy text differs between the two
    anaesthetist_seconds: float  # the anaesthetist's request by itself
    prefill_seconds: float  # the record prefix and the agents' preface, from scratch
    repeats: int
    in_panel: int = 0  # the first `in_panel` requests are the specialists the panel ran
    app_together: int = 0  # sequences the runtime decodes at once by default (0: unknown)
    step_seconds: dict[int, float] = field(default_factory=dict)  # a decoding step, by sequences
    runs: dict[str, tuple[float, ...]] = field(default_factory=dict)  # every repeat's seconds

    @property
    def step_cost_vs_one(self) -> dict[int, float]:
        """What a decoding step of k sequences costs, in steps of one sequence."""
        one = self.step_seconds.get(1)
        if not one:
            return {}
        return {k: round(v / one, 2) for k, v in sorted(self.step_seconds.items())}

    @property
    def decoding_together_ceiling(self) -> float | None:
        """The most decoding k sequences together can gain over one after another, from the
        step costs: max over k of k / (cost of a step of k in steps of one)."""
        costs = self.step_cost_vs_one
        return round(max(k / c for k, c in costs.items()), 2) if costs else None

    @property
    def sequential_seconds(self) -> float:
        return sum(self.alone_seconds)

    @property
    def slowest_in_panel(self) -> float:
        return max(self.alone_seconds[: self.in_panel], default=0.0)

    @property
    def limit_seconds(self) -> float:
        """Prefill once, then the longest chain of the panel: the anaesthetist, then its
        slowest specialist, each by itself."""
        return self.prefill_seconds + self.anaesthetist_seconds + self.slowest_in_panel

    @property
    def cpu_limit_seconds(self) -> float | None:
        """The limit this machine's arithmetic allows, measured in the same run: the
        specialists cannot take less than the slowest alone, nor less than all of them alone
        divided by the most that decoding together gains here (`decoding_together_ceiling`).
        A reference beside `limit_seconds`, which assumes they decode side by side for free;
        None without step costs."""
        ceiling = self.decoding_together_ceiling
        if not ceiling:
            return None
        shared = sum(self.alone_seconds[: self.in_panel]) / ceiling
        return self.prefill_seconds + self.anaesthetist_seconds + max(self.slowest_in_panel, shared)


STEP_SEQUENCES = (1, 2, 4)
STEP_SAMPLES = 10  # decoding steps timed per count (the first two dropped)


def measure_steps(runtime: Runtime, prefix: str) -> dict[int, float]:
    """The median wall seconds of one decoding step (a token in each sequence, with the
    output layer) on the record `prefix`, by how many sequences it holds, on the runtime's
    threads; empty when the runtime cannot time its steps (`time_steps`)."""
    time_steps = getattr(runtime, "time_steps", None)
    if time_steps is None:
        return {}
    parallel = int(getattr(runtime, "parallel", 1))
    out: dict[int, float] = {}
    for sequences in STEP_SEQUENCES:
        if sequences > parallel:
            break
        walls = [wall for wall, _ in time_steps(prefix, sequences, STEP_SAMPLES)[2:]]
        if walls:
            out[sequences] = round(statistics.median(walls), 5)
    return out


def measure_prefill(runtime: Runtime, prefix: str, preface: str = "") -> float:
    """Seconds to evaluate what the agents share from scratch (prefix reuse switched off):
    the record `prefix` and, when given, the `preface` every agent reads after it, each
    evaluated once in a panel. From the runtime's own counters where it keeps them (only
    those tokens), else the request's prompt time."""
    before = runtime_stats(runtime)
    with prefix_reuse(runtime, enabled=False):
        generation = runtime.generate(
            GenerationRequest(prefix=prefix, preface=preface, prompt="", max_tokens=1)
        )
    added = stats_since(before, runtime_stats(runtime))
    shared = float(added.get("prefill_seconds", 0.0)) + float(added.get("preface_seconds", 0.0))
    return shared or generation.prompt_seconds or generation.seconds


def _together(runtime: Runtime, requests: Sequence[GenerationRequest]) -> tuple[float, list[str]]:
    texts = [""] * len(requests)
    started = time.perf_counter()
    if isinstance(runtime, ParallelRuntime):
        for index, generation in runtime.generate_many(requests):
            texts[index] = generation.text
    else:
        texts = [runtime.generate(r).text for r in requests]
    return time.perf_counter() - started, texts


def measure_parallel(
    runtime: Runtime,
    anaesthetist: GenerationRequest,
    requests: Sequence[GenerationRequest],
    repeats: int = 1,
    in_panel: int | None = None,
) -> ParallelResult:
    """Each specialist request alone, then all together, then the anaesthetist alone and
    the shared prefill (record and preface), for the limit: in turn, `repeats` times. The
    fastest of each counts, as for the panel (`fastest_panel`), so load from elsewhere on
    the machine falls on every part alike; every time is kept (`runs`)."""
    alone: list[float] = [float("inf")] * len(requests)
    together = float("inf")
    differing = 0
    app_together = 0
    runs: dict[str, list[float]] = {"together": [], "anaesthetist": [], "prefill": []}
    for _ in range(max(1, repeats)):
        texts = []
        for i, request in enumerate(requests):
            seconds, generation = _timed(runtime, request)
            alone[i] = min(alone[i], seconds)
            runs.setdefault(f"alone_{i + 1}", []).append(round(seconds, 2))
            texts.append(generation.text)
        with decoding_together(runtime) as at_once:
            seconds, batched = _together(runtime, requests)
        app_together = at_once
        together = min(together, seconds)
        runs["together"].append(round(seconds, 2))
        differing = max(differing, sum(a != b for a, b in zip(texts, batched, strict=True)))
        runs["anaesthetist"].append(round(_timed(runtime, anaesthetist)[0], 2))
        prefill = measure_prefill(runtime, anaesthetist.prefix, anaesthetist.preface)
        runs["prefill"].append(round(prefill, 3))
    step_seconds = measure_steps(runtime, anaesthetist.prefix)
    return ParallelResult(
        sequences=len(requests),
        parallel=int(getattr(runtime, "parallel", 1)),
        alone_seconds=tuple(alone),
        together_seconds=together,
        differing=differing,
        anaesthetist_seconds=min(runs["anaesthetist"]),
        prefill_seconds=min(runs["prefill"]),
        repeats=max(1, repeats),
        in_panel=len(requests) if in_panel is None else in_panel,
        app_together=app_together,
        step_seconds=step_seconds,
        runs={k: tuple(v) for k, v in runs.items()},
    )


@dataclass(frozen=True)
class ContentionResult:
    """The same panel on the same record, alone and beside `busy` processes that each keep
    a core busy."""

    busy: int
    alone: PipelineResult
    loaded: PipelineResult
    load_average: tuple[float, float]  # 1-minute load average before each run
    threads_changes: tuple[tuple[float, int, float], ...] = ()  # (s into the run, threads, others)

    @property
    def same_work(self) -> bool:
        """Both runs wrote the same briefs (token counts and statuses): like with like."""
        return same_work(self.alone, self.loaded)


def load_average() -> float:
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return float("nan")


def measure_contention(
    runtime: Runtime,
    record: Record,
    inputs: PanelInputs,
    alone: PipelineResult,
    busy: int,
    load_before: float,
) -> ContentionResult:
    """The panel of `alone` (measured on `record`, its state not saved before) again on the
    same record beside `busy` busy processes, its saved state forgotten so that it reads the
    record again as the first run did."""
    forget = getattr(runtime, "forget_prefixes", None)
    if forget is not None:
        forget()
    governor = getattr(runtime, "governor", None)
    seen = len(getattr(governor, "changes", ()))
    loaded_before = load_average()
    started = time.monotonic()
    with busy_processes(busy):
        loaded = measure_pipeline(runtime, record, inputs)
    changes = tuple(getattr(governor, "changes", ()))[seen:]
    return ContentionResult(
        busy=busy,
        alone=alone,
        loaded=loaded,
        load_average=(load_before, loaded_before),
        threads_changes=tuple(
            (round(at - started, 1), threads, others) for at, threads, others in changes
        ),
    )
