"""`concord bench --json --quick` end to end with the real default GGUF (slow: minutes on
a loaded 2-core machine). Select with `-m real_model`."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from concord.agents.prompts import build_record_block
from concord.bench.records import bench_record, estimate_tokens
from concord.bench.run import token_counter
from concord.llm.default_model import DEFAULT_MODEL_NAME
from concord.llm.registry import load_runtime

pytestmark = pytest.mark.real_model


def test_bench_record_is_4k_tokens_by_the_model_tokenizer(default_entry) -> None:
    runtime = load_runtime(default_entry, n_ctx=512)
    try:
        count = token_counter(runtime)
        assert count is not None
        made = bench_record(4096, count)
        block = build_record_block(made.record)
        assert made.counted_by == "model tokenizer" and made.tokens >= 4096
        assert made.tokens == count(block)
        # the estimate used without a model is conservative for this tokenizer
        assert estimate_tokens(block) <= made.tokens
        assert made.tokens + 1200 <= default_entry.n_ctx  # room for a prompt and a brief
    finally:
        runtime.close()


def test_bench_quick_end_to_end(default_entry, concord_home) -> None:
    env = {**os.environ, "CONCORD_HOME": str(concord_home), "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-m", "concord", "bench", "--json", "--quick"],
        capture_output=True,
        text=True,
        env=env,
        timeout=3600,  # 4 min alone; a busy CI machine may take many times that
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(done.stdout)
    assert data["quick"] is True
    assert data["model"]["name"] == DEFAULT_MODEL_NAME
    assert data["record"]["counted_by"] == "model tokenizer"
    figures = data["figures"]
    for name, figure in figures.items():
        assert {"value", "target", "met", "compared_with"} <= set(figure), name
    # greedy outputs are identical with and without prefix reuse, and reuse happened
    assert figures["prefix_reuse_outputs_identical"]["met"] is True
    assert figures["prefix_reuse_speedup"]["detail"]["calls_restoring_prefix"] == 4
    assert figures["prefix_reuse_speedup"]["value"] is not None
    for name in (
        "constrained_slowdown",
        "raw_generation_tps",
        "pipeline_effective_tps",
        "pipeline_overhead",
        "alignment_throughput",
        "screen_throughput",
        "peak_rss_mb",
        "kv_cache_mb",
        "vs_naive_speedup",
        "panel_vs_limit",
        "parallel_decode_speedup",
        "contention_slowdown",
    ):
        assert figures[name]["value"] is not None, name
    # the peer's answers are read as briefs; the limit's difference adds up
    peer = figures["vs_naive_speedup"]["detail"]
    assert peer["naive_validity"] == "read as Concord reads a brief"
    limit = figures["panel_vs_limit"]["detail"]
    assert abs(sum(limit["difference"].values()) - limit["difference_seconds"]) < 0.1
    parallel = figures["parallel_decode_speedup"]["detail"]
    assert parallel["sequences"] >= 2 and parallel["parallel"] >= 2  # decoded together
    assert 0 <= parallel["answers_differing"] <= parallel["sequences"]
    if figures["ui_max_stall_ms"]["value"] is None:
        assert figures["ui_max_stall_ms"]["note"]
    missed = {n for n, f in figures.items() if f["met"] is False}
    assert set(data["missed"]) == missed
