"""Figures built from measurements: shape of the JSON, and misses reported as misses."""

from __future__ import annotations

from dataclasses import replace

from concord.bench.model_measures import (
    ContentionResult,
    DecodeResult,
    ParallelResult,
    PipelineResult,
    ReuseResult,
)
from concord.bench.naive import NaiveResult
from concord.bench.records import bench_record
from concord.bench.report import TABLE_HEADERS, summary_lines, table_rows, to_json
from concord.bench.run import BenchOptions, BenchResult, ModelInfo
from concord.bench.targets import MemoryInputs, build_figures
from concord.bench.text_measures import AlignmentResult, ScalingResult, ScreenResult

FIGURES = {
    "prefix_reuse_speedup",
    "prefix_reuse_outputs_identical",
    "constrained_slowdown",
    "raw_generation_tps",
    "pipeline_effective_tps",
    "pipeline_overhead",
    "ui_max_stall_ms",
    "alignment_throughput",
    "screen_throughput",
    "screen_scaling",
    "peak_rss_mb",
    "kv_cache_mb",
    "vs_naive_speedup",
    "panel_vs_limit",
    "parallel_decode_speedup",
    "contention_slowdown",
}
PANEL = ("anaesthetist", "cardiology", "respiratory", "renal", "haematology")
GOOD_REUSE = ReuseResult(
    naive_seconds=80.0,
    reuse_seconds=25.0,
    naive_prompt_seconds=70.0,
    reuse_prompt_seconds=15.0,
    naive_prompt_tokens=23_000,
    identical=True,
    switchable=True,
    naive_reused=0,
    reuse_reused=4,
    calls=5,
    tokens_per_call=32,
)
GOOD_DECODING = DecodeResult(free_tps=60.0, constrained_tps=55.0, tokens=300, repeats=2)
GOOD_PIPELINE = PipelineResult(
    wall_seconds=60.0,
    model_seconds=59.0,
    prompt_seconds=14.0,
    completion_tokens=2600,
    calls=6,
    reused_calls=5,
    agents=PANEL,
    brief_status=dict.fromkeys(PANEL, "ok"),
    stall_ms=12.0,
    panel_seconds=40.0,
    panel_model_seconds={"anaesthetist+specialist": 39.0},
    panel_output_tokens=1500,
    panel_stats={
        "prefill_seconds": 8.5,
        "preface_seconds": 1.0,
        "restore_seconds": 0.4,
        "restores": 5,
    },
)
GOOD_PARALLEL = ParallelResult(
    sequences=4,
    parallel=4,
    alone_seconds=(10.0, 12.0, 9.0, 11.0),
    together_seconds=16.0,
    differing=0,
    anaesthetist_seconds=12.0,
    prefill_seconds=9.0,  # the record (8 s) and the agents' preface (1 s)
    repeats=1,
    in_panel=4,
)
GOOD_NAIVE = NaiveResult(
    seconds=240.0,
    per_call_seconds=(48.0,) * 5,
    completion_tokens=2000,
    valid_json=5,
    calls=5,
)
GOOD_CONTENTION = ContentionResult(
    busy=2,
    alone=GOOD_PIPELINE,
    loaded=replace(GOOD_PIPELINE, wall_seconds=120.0, panel_seconds=80.0),
    load_average=(0.3, 2.1),
)
GOOD_MEMORY = MemoryInputs(
    peak_mb=900.0,
    model_bytes=253_000_000,
    kv_bytes=600_000_000,
    parallel=4,
    kv_4b_stream_bytes=1_140_000_000,
    parallel_4b_16gb=3,
)
GOOD_ALIGNMENT = AlignmentResult(
    extracts=200, seconds=2.0, record_chars=500_000, index_seconds=0.5, statuses={"EXACT": 50}
)
GOOD_SCREEN = ScreenResult(records=100, seconds=1.0, gates_triggered=3)
GOOD_SCALING = ScalingResult(
    factor=8, base_lines=1000, long_lines=8000, base_seconds=0.5, long_seconds=4.2
)


def result(**changes) -> BenchResult:
    measured = {
        "reuse": GOOD_REUSE,
        "decoding": GOOD_DECODING,
        "pipeline": GOOD_PIPELINE,
        "alignment": GOOD_ALIGNMENT,
        "screening": GOOD_SCREEN,
        "scaling": GOOD_SCALING,
        "memory": GOOD_MEMORY,
        "parallel": GOOD_PARALLEL,
        "naive": GOOD_NAIVE,
        "contention": GOOD_CONTENTION,
        "cores": 2,
        "probe_missing": "",
    }
    measured.update(changes)
    record = bench_record(4096)
    figures, context = build_figures(record=record, **measured)
    return BenchResult(
        BenchOptions(), ModelInfo("m", "0" * 64, 253_000_000), record, figures, context, 1.0
    )


def test_every_figure_carries_value_target_met_and_comparison() -> None:
    data = to_json(result())
    assert set(data["figures"]) == FIGURES
    for name, figure in data["figures"].items():
        assert {"value", "target", "met", "compared_with", "unit"} <= set(figure), name
        assert figure["compared_with"], name
        if figure["target"] is not None and figure["value"] is not None:
            assert isinstance(figure["met"], bool), name
    assert data["missed"] == [] and data["all_met"] is True
    assert data["record"]["tokens"] >= 4096
    assert data["figures"]["prefix_reuse_speedup"]["value"] == 3.2
    assert data["figures"]["pipeline_overhead"]["value"] == round(1 / 60, 4)
    # the pipeline rate is judged against 0.9 x the raw rate measured in the same run
    assert data["figures"]["pipeline_effective_tps"]["target"] == {"op": ">=", "value": 54.0}
    # issue 17: the peer, the limit and the batch, each from the numbers in the same run;
    # issue 29: the peer per valid brief (48 s vs 8 s), beside the wall and per-token ratios
    assert data["figures"]["vs_naive_speedup"]["value"] == 6.0
    assert data["figures"]["contention_slowdown"]["value"] == 2.0
    assert data["figures"]["panel_vs_limit"]["value"] == round(40 / (9 + 12 + 12), 4)
    assert data["figures"]["parallel_decode_speedup"]["value"] == round(42 / 16, 4)
    assert data["figures"]["parallel_decode_speedup"]["target"]["value"] == 2.0
    # memory: the model file, the KV streams and 1 GB
    assert data["figures"]["peak_rss_mb"]["target"]["value"] == 253 + 600 + 1024


def test_misses_are_reported_as_misses() -> None:
    slow = result(
        reuse=replace(GOOD_REUSE, reuse_seconds=40.0, identical=False),
        decoding=replace(GOOD_DECODING, constrained_tps=30.0),
        pipeline=replace(GOOD_PIPELINE, model_seconds=50.0, stall_ms=250.0),
        memory=replace(GOOD_MEMORY, peak_mb=5000.0),
        naive=replace(GOOD_NAIVE, seconds=100.0),
        parallel=replace(GOOD_PARALLEL, together_seconds=40.0, prefill_seconds=1.0),
        contention=replace(GOOD_CONTENTION, loaded=replace(GOOD_PIPELINE, wall_seconds=200.0)),
    )
    data = to_json(slow)
    expected = {
        "prefix_reuse_speedup",
        "prefix_reuse_outputs_identical",
        "constrained_slowdown",
        "pipeline_overhead",
        "ui_max_stall_ms",
        "peak_rss_mb",
        "vs_naive_speedup",
        "panel_vs_limit",
        "parallel_decode_speedup",
        "contention_slowdown",
    }
    assert set(data["missed"]) == expected
    assert data["all_met"] is False
    for name in expected:
        assert data["figures"][name]["met"] is False
        assert data["figures"][name]["status"] == "MISSED"
    rows = {row[0]: row for row in table_rows(slow)}
    assert len(TABLE_HEADERS) == len(rows["constrained_slowdown"])
    assert rows["constrained_slowdown"][3] == "MISSED"
    assert any(
        line.startswith("MISSED: ") and "ui_max_stall_ms" in line for line in summary_lines(slow)
    )


def test_unmeasured_figures_are_listed_not_passed() -> None:
    data = to_json(
        result(
            pipeline=replace(GOOD_PIPELINE, stall_ms=None),
            probe_missing="PySide6 is not installed",
            memory=replace(GOOD_MEMORY, peak_mb=None),
            naive=None,
            naive_missing="not measured: no model file",
        )
    )
    stall = data["figures"]["ui_max_stall_ms"]
    assert stall["value"] is None and stall["met"] is None
    assert "PySide6 is not installed" in stall["note"]
    assert set(data["not_measured"]) == {"ui_max_stall_ms", "peak_rss_mb", "vs_naive_speedup"}
    assert data["figures"]["vs_naive_speedup"]["note"] == "not measured: no model file"
    assert data["all_met"] is False


def test_reuse_that_cannot_be_switched_off_is_not_a_speedup() -> None:
    data = to_json(result(reuse=replace(GOOD_REUSE, switchable=False)))
    figure = data["figures"]["prefix_reuse_speedup"]
    assert figure["value"] is None and figure["met"] is None and figure["note"]


def test_the_peer_is_compared_per_valid_brief_with_the_other_ratios_beside() -> None:
    figure = to_json(result(naive_valid=1))["figures"]["vs_naive_speedup"]
    # the peer: 240 s for 1 valid brief; the panel: 40 s for 5 valid briefs
    assert figure["value"] == 30.0 and figure["met"] is True
    detail = figure["detail"]
    assert detail["wall_speedup"] == 6.0
    assert detail["per_token_speedup"] == 4.5  # 120 ms a token (2,000) vs 26.7 ms (1,500)
    assert detail["naive_valid_briefs"] == 1 and detail["panel_valid_briefs"] == 5
    text = figure["compared_with"]
    assert "Per valid brief: the peer 240.0 s (1 of 5 answers valid" in text
    assert "Per generated token: the peer 120 ms a token" in text and "Wall time" in text
    none_valid = to_json(result(naive_valid=0))["figures"]["vs_naive_speedup"]
    assert none_valid["value"] == 30.0 and "at least its whole time" in none_valid["note"]


def test_the_difference_from_the_limit_is_split_into_parts_that_add_up() -> None:
    figure = to_json(result())["figures"]["panel_vs_limit"]
    detail = figure["detail"]
    assert detail["difference_seconds"] == 40.0 - (9 + 12 + 12)
    assert detail["difference"] == {
        "python_outside_the_model": 1.0,  # 40 s of panel, 39 s inside the model
        "shared_prefill_beyond_alone": 0.5,  # 8.5 + 1 s in the panel vs 9 s alone
        # 39 s of agents decoded together, of which 8.5 s the record and 1 s the preface,
        # vs the anaesthetist alone (12 s) and the slowest specialist alone (12 s)
        "agents_beyond_the_anaesthetist_and_slowest_alone": 5.5,
        "surgeon": 0.0,
        "judges": 0.0,
    }
    assert sum(detail["difference"].values()) == detail["difference_seconds"]
    assert detail["within_the_difference"]["restore_and_save_seconds_in_panel"] == 0.4
    assert "agents beyond the anaesthetist and slowest alone 5.5 s" in figure["compared_with"]
    assert "the record and their preface) prefilled once (9.0 s)" in figure["compared_with"]


def test_the_record_read_by_the_surgeon_is_not_counted_twice() -> None:
    pipeline = replace(
        GOOD_PIPELINE, panel_model_seconds={"surgeon": 10.5, "anaesthetist+specialist": 28.5}
    )
    detail = to_json(result(pipeline=pipeline))["figures"]["panel_vs_limit"]["detail"]
    assert detail["difference"]["surgeon"] == 2.0  # 10.5 s, of which 8.5 s the record
    # 28.5 s of agents, of which 1 s the preface, vs 12 + 12 s alone
    assert detail["difference"]["agents_beyond_the_anaesthetist_and_slowest_alone"] == 3.5
    assert sum(detail["difference"].values()) == detail["difference_seconds"]


def test_the_fastest_run_of_the_panel_is_compared_with_its_limit_the_peer_with_the_first() -> None:
    slower = replace(GOOD_PIPELINE, panel_seconds=44.0, wall_seconds=64.0)
    faster = replace(GOOD_PIPELINE, panel_seconds=38.0, wall_seconds=58.0)
    parallel = replace(
        GOOD_PARALLEL,
        repeats=2,
        runs={"anaesthetist": (12.0, 13.1), "prefill": (9.0, 9.4)},
    )
    data = to_json(result(pipeline=slower, panel_runs=(slower, faster), parallel=parallel))
    figure = data["figures"]["panel_vs_limit"]
    assert figure["value"] == round(38.0 / 33.0, 4)
    assert figure["detail"]["panel_runs_seconds"] == [44.0, 38.0]
    assert figure["detail"]["limit_parts_runs_seconds"]["anaesthetist"] == [12.0, 13.1]
    assert "the fastest of 2 runs of the panel (44.0, 38.0 s)" in figure["compared_with"]
    # the peer ran once: it is compared with the panel's first run, not its fastest
    assert data["figures"]["vs_naive_speedup"]["detail"]["wall_speedup"] == round(240 / 44, 2)


def test_contention_is_judged_on_the_same_work() -> None:
    loaded = replace(GOOD_PIPELINE, wall_seconds=90.0, completion_tokens=2500)
    figure = to_json(result(contention=replace(GOOD_CONTENTION, loaded=loaded)))["figures"][
        "contention_slowdown"
    ]
    assert figure["value"] == 1.5 and "not like with like" in figure["note"]
    assert figure["detail"]["fair_share"] == 2.0
    assert figure["detail"]["same_briefs"] is False


def test_a_run_of_the_panel_that_wrote_other_briefs_is_not_counted(monkeypatch) -> None:
    from concord.bench import model_measures as mm

    first = GOOD_PIPELINE
    again = iter(
        [
            replace(first, panel_seconds=37.0),
            replace(first, panel_seconds=30.0, completion_tokens=2000),  # other briefs
            replace(first, panel_seconds=33.0, brief_status={"anaesthetist": "failed"}),
        ]
    )
    monkeypatch.setattr(mm, "measure_pipeline", lambda *_args: next(again))
    runs = mm.measure_panel_again(object(), None, None, first, 4)  # type: ignore[arg-type]
    assert [r.panel_seconds for r in runs] == [40.0, 37.0]
    assert mm.fastest_panel(runs).panel_seconds == 37.0
