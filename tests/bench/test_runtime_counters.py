"""The runtime's counters as the bench reads them over a run (`runtime_stats`,
`stats_since`): every counter kept by count (steps by threads, by sequences in a step,
their seconds) is copied when read, so what a run added is what it added."""

from __future__ import annotations

from types import SimpleNamespace

from concord.bench import model_measures as mm
from concord.bench.model_measures import (
    ParallelResult,
    measure_steps,
    runtime_stats,
    stats_since,
)
from concord.llm.llama_cpp_runtime import RuntimeStats
from concord.llm.runtime import FinishReason, Generation, GenerationRequest


def test_what_a_run_added_to_every_counter_is_read_back() -> None:
    stats = RuntimeStats()
    runtime = SimpleNamespace(stats=stats)
    stats.steps_by_sequences[1] = 5
    stats.step_seconds_by_sequences[1] = 0.25
    before = runtime_stats(runtime)  # type: ignore[arg-type]
    stats.decode_steps += 3
    stats.forced_calls += 1
    stats.choose_seconds += 0.0125
    stats.steps_by_threads[2] = 3
    stats.steps_by_sequences[1] += 1
    stats.steps_by_sequences[4] = 1
    stats.step_seconds_by_sequences[1] += 0.0101
    stats.step_seconds_by_sequences[4] = 0.05
    moved = stats_since(before, runtime_stats(runtime))  # type: ignore[arg-type]
    assert moved["decode_steps"] == 3
    assert moved["forced_calls"] == 1
    assert moved["choose_seconds"] == 0.013  # rounded to the millisecond, as every figure
    assert moved["steps_by_threads"] == {2: 3}
    assert moved["steps_by_sequences"] == {1: 1, 4: 1}
    assert moved["step_seconds_by_sequences"] == {1: 0.01, 4: 0.05}


def test_a_runtime_without_counters_reads_as_none() -> None:
    assert runtime_stats(SimpleNamespace()) == {}  # type: ignore[arg-type]


class StepClock:
    """A runtime whose decoding steps take `seconds[k]` for k sequences (the first two
    samples of each count slower, as a cold cache: they are dropped)."""

    def __init__(self, seconds: dict[int, float], parallel: int) -> None:
        self.seconds = seconds
        self.parallel = parallel
        self.asked: list[tuple[str, int, int]] = []

    def time_steps(self, prefix: str, sequences: int, steps: int) -> list[tuple[float, float]]:
        self.asked.append((prefix, sequences, steps))
        wall = self.seconds[sequences]
        return [(10 * wall, 10 * wall)] * 2 + [(wall, wall)] * (steps - 2)


def test_a_step_of_several_sequences_is_costed_in_steps_of_one() -> None:
    runtime = StepClock({1: 0.020, 2: 0.030, 4: 0.0454}, parallel=4)
    steps = measure_steps(runtime, "RECORD")  # type: ignore[arg-type]
    assert steps == {1: 0.02, 2: 0.03, 4: 0.0454}
    assert {(p, k) for p, k, _ in runtime.asked} == {("RECORD", 1), ("RECORD", 2), ("RECORD", 4)}
    result = ParallelResult(
        sequences=4,
        parallel=4,
        alone_seconds=(1.0,) * 4,
        together_seconds=2.0,
        differing=0,
        anaesthetist_seconds=1.0,
        prefill_seconds=1.0,
        repeats=1,
        step_seconds=steps,
    )
    assert result.step_cost_vs_one == {1: 1.0, 2: 1.5, 4: 2.27}
    # four at a time do 4 tokens in 2.27 steps' time: the most decoding together can gain
    assert result.decoding_together_ceiling == 1.76


def test_steps_are_costed_only_up_to_the_runtimes_sequences() -> None:
    runtime = StepClock({1: 0.02, 2: 0.03}, parallel=2)
    assert measure_steps(runtime, "RECORD") == {1: 0.02, 2: 0.03}  # type: ignore[arg-type]
    assert measure_steps(SimpleNamespace(), "RECORD") == {}  # type: ignore[arg-type]


def test_the_limit_this_cpu_allows_counts_the_specialists_by_what_sharing_gains() -> None:
    def result(alone: tuple[float, ...], steps: dict[int, float]) -> ParallelResult:
        return ParallelResult(
            sequences=len(alone),
            parallel=4,
            alone_seconds=alone,
            together_seconds=1.0,
            differing=0,
            anaesthetist_seconds=8.0,
            prefill_seconds=18.0,
            repeats=1,
            in_panel=len(alone),
            step_seconds=steps,
        )

    costed = {1: 0.02, 2: 0.03, 4: 0.0454}  # decoding together gains at most 1.76x
    many = result((20.0, 12.0, 8.0, 6.0, 6.0, 5.0, 8.0), costed)
    assert many.limit_seconds == 18.0 + 8.0 + 20.0  # side by side for free
    assert many.cpu_limit_seconds == 18.0 + 8.0 + 65.0 / 1.76  # the arithmetic's floor
    one_long = result((20.0, 2.0), costed)  # the slowest alone still bounds it
    assert one_long.cpu_limit_seconds == one_long.limit_seconds
    assert result((20.0, 12.0), {}).cpu_limit_seconds is None  # no step costs measured


class ClockedRuntime:
    """A runtime on a fake clock: each request takes the next of its agent's `seconds`;
    with prefix reuse off it counts a record prefill (2 s) and a preface (0.5 s) the way
    the llama.cpp runtime does, and reports a longer prompt time (its template tail too)."""

    model_name = "clocked"
    model_sha256 = "0" * 64

    def __init__(self, seconds: dict[str, list[float]]) -> None:
        self.seconds = seconds
        self.now = 0.0
        self.prefix_cache = True
        self.stats = RuntimeStats()
        self.asked: list[GenerationRequest] = []

    def generate(self, request: GenerationRequest) -> Generation:
        self.asked.append(request)
        if not self.prefix_cache:
            self.stats.prefill_seconds += 2.0
            self.stats.preface_seconds += 0.5 if request.preface else 0.0
            self.now += 2.7
            return Generation("", 10, 1, 2.7, False, FinishReason.LENGTH, prompt_seconds=2.7)
        took = self.seconds[request.agent].pop(0)
        self.now += took
        return Generation(request.agent, 10, 5, took, True, FinishReason.STOP)

    def close(self) -> None:
        pass


def test_each_part_of_the_limit_is_the_fastest_of_its_repeats_and_every_run_is_kept(
    monkeypatch,
) -> None:
    runtime = ClockedRuntime(
        {
            "anaesthetist": [30.0, 26.0],
            "renal": [9.0, 7.0, 8.0, 8.5],
            "endocrine": [5.0, 5.5, 6.0, 6.5],
        }
    )
    monkeypatch.setattr(mm, "time", SimpleNamespace(perf_counter=lambda: runtime.now))

    def request(agent: str) -> GenerationRequest:
        return GenerationRequest(prefix="RECORD", preface="PANEL TASK", prompt=agent, agent=agent)

    result = mm.measure_parallel(
        runtime,  # type: ignore[arg-type]
        request("anaesthetist"),
        [request("renal"), request("endocrine")],
        repeats=2,
    )
    # in each repeat: alone, then together (a runtime that cannot decode together runs
    # them in turn: renal 7 s and 8.5 s, endocrine 5.5 s and 6.5 s), then the anaesthetist
    assert result.runs["alone_1"] == (9.0, 8.0) and result.runs["alone_2"] == (5.0, 6.0)
    assert result.alone_seconds == (8.0, 5.0)
    assert result.runs["anaesthetist"] == (30.0, 26.0) and result.anaesthetist_seconds == 26.0
    # what the agents share, from the runtime's counters: the record and the preface, not
    # the request's whole prompt time
    assert result.prefill_seconds == 2.5 and result.runs["prefill"] == (2.5, 2.5)
    prefills = [r for r in runtime.asked if r.prompt == ""]
    assert [(r.prefix, r.preface) for r in prefills] == [("RECORD", "PANEL TASK")] * 2
    assert runtime.prefix_cache is True  # switched back on after each prefill
    assert result.limit_seconds == 2.5 + 26.0 + 8.0
