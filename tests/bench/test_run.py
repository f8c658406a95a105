"""The whole benchmark with a scripted runtime: every measurement runs, in one process."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from types import SimpleNamespace

import pytest

from concord.bench import model_measures
from concord.bench.report import to_json
from concord.bench.run import BenchInputs, BenchOptions, ModelInfo, run_bench
from concord.llm.scripted import ScriptedRuntime
from concord.services import Services
from tests.bench.fakes import SwitchableRuntime

SMALL = replace(BenchOptions.for_run(quick=True), alignment_chars=60_000, screen_seconds=0.05)


@pytest.fixture
def inputs():
    svc = Services()
    yield BenchInputs(svc.profiles, svc.screen, svc.lexicon, svc.config, [])
    svc.close()


def test_run_bench_measures_everything(inputs) -> None:
    runtime = SwitchableRuntime()
    messages: list[str] = []
    result = run_bench(
        runtime,
        ModelInfo("scripted", "0" * 64, 1_000_000),
        inputs,
        SMALL,
        probe_missing="no Qt in this test",
        say=messages.append,
    )
    data = json.loads(json.dumps(to_json(result)))
    figures = data["figures"]
    reuse = figures["prefix_reuse_speedup"]
    assert reuse["value"] is not None and reuse["detail"]["calls_restoring_prefix"] == 4
    assert figures["prefix_reuse_outputs_identical"]["met"] is True
    assert figures["ui_max_stall_ms"]["met"] is None
    assert figures["ui_max_stall_ms"]["note"] == "not measured: no Qt in this test"
    for name, figure in figures.items():
        if figure["value"] is None or figure["target"] is None:
            continue
        value, target = figure["value"], figure["target"]["value"]
        holds = {
            ">=": value >= target,
            "<=": value <= target,
            "<": value < target,
            ">": value > target,
        }[figure["target"]["op"]]
        assert figure["met"] is holds, name  # as computed from the reported numbers
    pipeline = figures["pipeline_overhead"]["detail"]
    assert pipeline["agents"][0] == "anaesthetist"
    assert set(pipeline["brief_status"].values()) == {"ok"}
    assert data["record"]["tokens"] >= SMALL.record_tokens
    assert data["quick"] is True
    assert any("prefix reuse" in m for m in messages)
    # each request twice in a row: with reuse switched off, then on
    panel = [
        r for r in runtime.requests if r.schema is not None and r.max_tokens == SMALL.reuse_tokens
    ]
    assert len(panel) == 10 and panel[0::2] == panel[1::2]
    assert len({r.prompt for r in panel}) == 5
    assert runtime.prefix_cache is True


def test_runtime_without_a_reuse_switch_gives_no_speedup(inputs) -> None:
    from tests.bench.fakes import respond

    result = run_bench(
        ScriptedRuntime(respond), ModelInfo("scripted", "0" * 64, None), inputs, SMALL
    )
    figure = to_json(result)["figures"]["prefix_reuse_speedup"]
    assert figure["value"] is None and figure["met"] is None
    assert "from scratch" in figure["note"]


def test_the_peers_answers_are_read_as_concord_reads_a_brief(inputs) -> None:
    from concord.bench import model_measures as mm
    from concord.bench.records import bench_record
    from tests.fake_agents import answer_for

    record = bench_record(512).record
    requests = [
        mm.agent_request(inputs.profiles[name], record, inputs.profiles, 1352)
        for name in ("anaesthetist", "renal", "cardiology")
    ]
    texts = [answer_for(requests[0]), answer_for(requests[1]), '{"top_risks": []}']
    assert mm.valid_briefs(texts, [False] * 3, requests, record, inputs.profiles) == 2
    cut = [False, True, False]  # a complete text stopped by its cap counts as cut off
    assert mm.valid_briefs(texts, cut, requests, record, inputs.profiles) == 1
    other = [replace(requests[0], prompt=requests[0].prompt + " Again.")]
    assert mm.valid_briefs(texts[:1], [False], other, record, inputs.profiles) is None


def test_the_same_panel_is_measured_beside_busy_processes(inputs) -> None:
    result = run_bench(SwitchableRuntime(), ModelInfo("scripted", "0" * 64, None), inputs, SMALL)
    figure = to_json(result)["figures"]["contention_slowdown"]
    assert figure["value"] is not None and figure["detail"]["busy_processes"] >= 1
    assert figure["detail"]["same_briefs"] is True and figure["note"] == ""
    off = run_bench(
        SwitchableRuntime(),
        ModelInfo("scripted", "0" * 64, None),
        inputs,
        replace(SMALL, contention=False),
    )
    assert to_json(off)["figures"]["contention_slowdown"]["note"] == "switched off"


def test_the_panels_own_first_requests_can_be_read_as_briefs(inputs) -> None:
    from concord.bench import model_measures as mm
    from concord.bench.records import bench_record
    from concord.pipeline import PanelSettings
    from tests.fake_agents import answer_for

    record = bench_record(1024, seed=7).record
    panel = mm.PanelInputs(
        inputs.profiles,
        inputs.screen,
        inputs.lexicon,
        inputs.config,
        PanelSettings(judges=0, max_specialists=2),
    )
    pipeline = mm.measure_pipeline(SwitchableRuntime(), record, panel)
    texts = [answer_for(r) for r in pipeline.first_requests]
    cut = [False] * len(texts)
    assert mm.valid_briefs(texts, cut, pipeline.first_requests, record, inputs.profiles) == len(
        pipeline.agents
    )
    # the anaesthetist and the specialists of the record's red flags decoded together
    assert pipeline.panel_output_tokens > 0
    assert "anaesthetist+specialist" in pipeline.panel_model_seconds


def test_the_panel_is_run_again_and_its_fastest_run_is_compared_with_the_limit(inputs) -> None:
    result = run_bench(
        SwitchableRuntime(),
        ModelInfo("scripted", "0" * 64, None),
        inputs,
        replace(SMALL, panel_repeats=2, parallel_repeats=2, contention=False),
    )
    figure = to_json(result)["figures"]["panel_vs_limit"]
    runs = figure["detail"]["panel_runs_seconds"]
    assert len(runs) == 2  # the same briefs both times: both count
    assert abs(figure["detail"]["panel_seconds"] - min(runs)) <= 0.005  # the fastest run
    parts = figure["detail"]["limit_parts_runs_seconds"]
    assert len(parts["anaesthetist"]) == 2 and len(parts["prefill"]) == 2
    assert "the fastest of 2 runs of the panel" in figure["compared_with"]


class SlowUnderProbe(SwitchableRuntime):
    """A runtime whose every call takes 10 s longer, on the bench's clock, while the Qt probe
    watches: as llama.cpp's threads lose a core to the probe's timer on a 2-core machine. The
    clock is advanced rather than slept on, so that a busy test machine, which slows every run
    alike and by chance more in one than another, cannot make the runs look the same."""

    PENALTY = 10.0

    def __init__(self) -> None:
        super().__init__()
        self.watched = False
        self.offset = 0.0

    def perf_counter(self) -> float:
        return time.perf_counter() + self.offset

    def generate(self, request):  # type: ignore[no-untyped-def]
        if self.watched:
            self.offset += self.PENALTY
        return super().generate(request)


def test_the_figures_compared_with_unprobed_runs_take_a_run_without_the_probe(
    inputs, monkeypatch
) -> None:
    runtime = SlowUnderProbe()
    clock = {name: getattr(time, name) for name in dir(time) if not name.startswith("_")}
    clock["perf_counter"] = runtime.perf_counter  # the bench's timings read this clock
    monkeypatch.setattr(model_measures, "time", SimpleNamespace(**clock))

    def probe(work):  # type: ignore[no-untyped-def]
        runtime.watched = True
        try:
            return work(lambda _event: None), 1.0
        finally:
            runtime.watched = False

    result = run_bench(
        runtime, ModelInfo("scripted", "0" * 64, 1_000_000), inputs, SMALL, probe=probe
    )
    figures = to_json(result)["figures"]
    probed = figures["pipeline_overhead"]["detail"]["wall_seconds"]
    contention = figures["contention_slowdown"]["detail"]
    assert figures["ui_max_stall_ms"]["value"] == 1.0  # the stall is the probed run's
    assert probed >= 2 * SlowUnderProbe.PENALTY  # its model calls each took 10 s more
    assert contention["alone_seconds"] < SlowUnderProbe.PENALTY  # the run alone had no probe
    panel = figures["panel_vs_limit"]["detail"]
    assert contention["alone_panel_seconds"] == pytest.approx(
        panel["panel_runs_seconds"][0], abs=0.01
    )
