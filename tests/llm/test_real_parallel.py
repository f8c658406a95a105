"""Requests decoded together by the real llama.cpp runtime (default GGUF). Select with
`-m real_model`.

Decoded together, a request's answer is the one it gets alone, token for token: each
sequence has its own KV stream laid out as alone, and the weights are not repacked (repacked
Q4_K weights are multiplied by a group of 4 rows with another kernel than a single row, and
4 of 4 specialists' briefs then differed). `concord bench` (`parallel_decode_speedup`)
measures how many differ on its record.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from concord.errors import Cancelled, ModelError
from concord.llm.registry import ModelEntry, load_runtime
from concord.llm.runtime import FinishReason, GenerationRequest, generate_all

pytestmark = pytest.mark.real_model

RECORD = (
    "Pre-operative clinic, 71-year-old woman listed for total hip replacement.\n"
    "Potassium 6.3 mmol/L on the morning bloods; eGFR 22 mL/min/1.73m2.\n"
    "Echo: LVEF 30-35%, moderate aortic stenosis, AVA 1.1 cm2.\n"
    "Platelets 88 x10^9/L; INR 1.1; SpO2 95% on room air.\n"
)
SCHEMA = {
    "type": "object",
    "properties": {
        "risk": {"type": "string", "maxLength": 60},
        "lines": {"type": "array", "items": {"enum": ["L1", "L2", "L3"]}, "maxItems": 2},
    },
    "required": ["risk", "lines"],
    "additionalProperties": False,
}
QUESTIONS = (
    "As the renal physician, the main risk as JSON:\n",
    "As the cardiologist, the main risk as JSON:\n",
    "As the haematologist, the main risk as JSON:\n",
)


@pytest.fixture(scope="module")
def runtime(default_entry: ModelEntry) -> Iterator:
    loaded = load_runtime(default_entry, n_ctx=1024, parallel=3, n_threads=1)
    yield loaded
    loaded.close()


def ask(prompt: str, max_tokens: int = 48, **kw: object) -> GenerationRequest:
    return GenerationRequest(prefix=RECORD, prompt=prompt, max_tokens=max_tokens, **kw)  # type: ignore[arg-type]


def test_the_context_has_a_stream_per_sequence(runtime) -> None:
    assert runtime.parallel == 3
    assert runtime.kv_shape is not None
    assert runtime.kv_bytes == 3 * runtime.kv_shape.bytes_per_stream(1024)


def test_a_batch_answers_each_request_once_under_its_own_schema(runtime) -> None:
    requests = [ask(q, schema=SCHEMA) for q in QUESTIONS]
    answers = dict(runtime.generate_many(requests))
    assert sorted(answers) == [0, 1, 2]
    for generation in answers.values():
        assert set(json.loads(generation.text)) == {"risk", "lines"}
        assert generation.finish_reason == FinishReason.STOP
    # one prefix evaluation for the batch: the other sequences restored it
    assert sum(not g.prefix_reused for g in answers.values()) <= 1


def test_batched_greedy_decoding_is_deterministic_and_a_batch_of_one_is_generate(runtime):
    requests = [ask(q) for q in QUESTIONS]
    first = {i: g.text for i, g in runtime.generate_many(requests)}
    second = {i: g.text for i, g in runtime.generate_many(requests)}
    assert first == second
    alone = runtime.generate(requests[0]).text
    ((_, one),) = list(runtime.generate_many([requests[0]]))
    assert one.text == alone
    # the same request three times in one batch: three identical answers
    same = [g.text for _, g in runtime.generate_many([requests[1]] * 3)]
    assert same[0] == same[1] == same[2]


@pytest.mark.parametrize("threads", [1, 2])
def test_the_specialists_decoded_together_write_what_each_writes_alone(default_entry, threads):
    """Four specialists' real brief requests on a demo record longer than the model's
    sliding window: a batch of four (llama.cpp's group-of-4 kernels) against each alone."""
    from concord.agents.profiles import load_profiles
    from concord.bench.model_measures import agent_request
    from concord.paths import resources_dir
    from concord.records import load_record

    record = load_record(resources_dir() / "demo" / "03_ckd_hyperkalaemia.json")
    profiles = load_profiles()
    names = ("cardiology", "renal", "haematology", "endocrine")
    requests = [agent_request(profiles[n], record, profiles, 96) for n in names]
    # on exactly `threads` threads, whatever else the machine runs
    loaded = load_runtime(
        default_entry, n_ctx=4096, parallel=4, n_threads=threads, adapt_threads=False
    )
    try:
        alone = [loaded.generate(r).text for r in requests]
        together = dict(loaded.generate_many(requests))
    finally:
        loaded.close()
    assert [together[i].text for i in range(4)] == alone
    assert all(text for text in alone)


def test_more_requests_than_sequences_wait_for_a_free_one(runtime) -> None:
    requests = [ask(q, max_tokens=8 + 4 * i) for i, q in enumerate(QUESTIONS * 2)]
    order = [i for i, _ in runtime.generate_many(requests)]
    assert sorted(order) == list(range(6))
    # the three short ones that started first finish before the longer ones behind them
    assert set(order[:3]) <= {0, 1, 2, 3}


def test_seeded_sampling_repeats_with_its_seed(runtime) -> None:
    hot = [ask(QUESTIONS[0], temperature=0.9, seed=s) for s in (1, 2, 1)]
    texts = [g.text for _, g in sorted(runtime.generate_many(hot))]
    assert texts[0] == texts[2]


def test_a_cancel_stops_the_batch_between_steps_and_the_runtime_goes_on(runtime) -> None:
    requests = [ask(q, max_tokens=400) for q in QUESTIONS]
    started = time.monotonic()
    with pytest.raises(Cancelled):
        list(runtime.generate_many(requests, lambda: time.monotonic() - started > 1.0))
    assert runtime.generate(ask(QUESTIONS[0], max_tokens=4)).completion_tokens == 4


def test_requests_on_different_records_are_not_decoded_together(runtime) -> None:
    with pytest.raises(ModelError, match="share one prefix"):
        list(runtime.generate_many([ask("a"), GenerationRequest(prefix="other", prompt="b")]))


def test_a_request_after_another_reads_the_prefix_as_if_evaluated_afresh(runtime) -> None:
    first, second = ask(QUESTIONS[0], max_tokens=64), ask(QUESTIONS[1], max_tokens=64)
    runtime.generate(first)
    restored = runtime.generate(second)
    assert restored.prefix_reused
    runtime.prefix_cache = False
    try:
        fresh = runtime.generate(second)
    finally:
        runtime.prefix_cache = True
    assert not fresh.prefix_reused
    assert restored.text == fresh.text


def test_an_answer_alone_does_not_depend_on_what_ran_before(runtime, default_entry) -> None:
    other = GenerationRequest(prefix="Clinic letter: asthma, FEV1 1.2 L.\n", prompt="Risk:\n")
    later = ask(QUESTIONS[2], max_tokens=48)
    runtime.generate_many([ask(q, max_tokens=24) for q in QUESTIONS])
    runtime.generate(other)
    after = runtime.generate(later).text
    fresh = load_runtime(default_entry, n_ctx=1024, parallel=3, n_threads=1)
    try:
        assert fresh.generate(later).text == after
    finally:
        fresh.close()


def test_the_runtime_counts_where_a_batch_spent_its_time(runtime) -> None:
    """The counters the bench explains the panel's time with: the decoding steps by how
    many sequences each held (one output each), the jump-forward calls of forced text (in
    their own call each), and Python choosing tokens."""
    from concord.bench.model_measures import runtime_stats, stats_since

    before = runtime_stats(runtime)
    requests = [ask(q, schema=SCHEMA) for q in QUESTIONS]
    answers = dict(runtime.generate_many(requests))
    moved = stats_since(before, runtime_stats(runtime))
    by_count = moved["steps_by_sequences"]
    assert max(by_count) == 3  # the three requests shared steps
    assert set(moved["step_seconds_by_sequences"]) == set(by_count)
    assert all(s > 0 for s in moved["step_seconds_by_sequences"].values())
    # the schema forces `{"risk":"` and more: each forced run is a call of its own
    assert moved["forced_calls"] > 0
    assert moved["forced_tokens"] >= 2 * moved["forced_calls"]
    assert moved["forced_seconds"] > 0
    assert moved["decode_steps"] == sum(by_count.values()) + moved["forced_calls"]
    # every token chosen by the Python chooser: one choice per step output or forced call
    outputs = sum(n * count for n, count in by_count.items())
    tokens = sum(g.completion_tokens for g in answers.values())
    assert outputs + moved["forced_calls"] + len(requests) >= tokens - moved["forced_tokens"]
    assert moved["choose_seconds"] > 0


def test_timed_steps_leave_the_runtime_as_it_was(runtime) -> None:
    """`time_steps` (the decode profile) decodes in every sequence it asks for and empties
    them again: the next answer is the one before."""
    request = ask(QUESTIONS[0], max_tokens=12)
    before = runtime.generate(request).text
    timed = runtime.time_steps(RECORD, sequences=3, steps=4, logits=True, threads=1)
    assert len(timed) == 4
    assert all(wall > 0 and cpu >= 0 for wall, cpu in timed)
    without = runtime.time_steps(RECORD, sequences=1, steps=2, logits=False)
    assert len(without) == 2
    assert runtime.generate(request).text == before
    assert [g.text for _, g in runtime.generate_many([request, request])] == [before] * 2


def added_while_answering(runtime, first, added) -> tuple[dict[int, str], int]:
    """`first` decoded together, `added` appended while the first answer is handled; the
    texts by index and how many were still being written when they were added."""
    requests = list(first)
    texts: dict[int, str] = {}
    in_flight = -1
    for index, generation in generate_all(runtime, requests):
        texts[index] = generation.text
        if in_flight < 0:
            in_flight = len(first) - len(texts)
            requests.extend(added)
    return texts, in_flight


def test_requests_added_while_an_answer_is_handled_start_beside_the_others(runtime) -> None:
    first = [ask(QUESTIONS[0], max_tokens=4), ask(QUESTIONS[1], max_tokens=40)]
    added = [ask(QUESTIONS[2]), ask(QUESTIONS[0], max_tokens=24)]
    texts, in_flight = added_while_answering(runtime, first, added)
    assert sorted(texts) == [0, 1, 2, 3] and in_flight == 1
    # each answer is the one its request gets alone, however the batch was made up
    alone = [runtime.generate(r).text for r in [*first, *added]]
    assert [texts[i] for i in range(4)] == alone


def test_a_child_process_takes_added_requests_into_its_batch(default_entry) -> None:
    from concord.llm.isolated import IsolatedRuntime
    from concord.llm.watchdog import TimeoutRuntime

    isolated = IsolatedRuntime(default_entry, n_ctx=1024, parallel=3, n_threads=1)
    watched = TimeoutRuntime(isolated, 30.0)
    try:
        first = [ask(QUESTIONS[0], max_tokens=4), ask(QUESTIONS[1], max_tokens=40)]
        added = [ask(QUESTIONS[2])]
        texts, _ = added_while_answering(watched, first, added)
        alone = [watched.generate(r).text for r in [*first, *added]]
        assert [texts[i] for i in range(3)] == alone
        # the batch ended cleanly: the next request is answered as usual
        assert watched.generate(ask(QUESTIONS[0], max_tokens=4)).completion_tokens == 4
    finally:
        watched.close()


def test_a_sequence_moves_down_into_a_gap_and_writes_what_it_writes_alone(default_entry):
    """The second of four requests finishes first: the fourth moves into its stream, so
    every later step is one pass over consecutive sequences, and no answer changes."""
    loaded = load_runtime(default_entry, n_ctx=1024, parallel=4, n_threads=1)
    try:
        requests = [
            ask(QUESTIONS[0], max_tokens=40),
            ask(QUESTIONS[1], max_tokens=3),
            ask(QUESTIONS[2], max_tokens=30),
            ask(QUESTIONS[0], max_tokens=36, temperature=0.8, seed=5),
        ]
        alone = [loaded.generate(r).text for r in requests]
        before = loaded.stats.moves, loaded.stats.split_steps
        together = dict(loaded.generate_many(requests))
        moves, split = loaded.stats.moves - before[0], loaded.stats.split_steps - before[1]
    finally:
        loaded.close()
    assert [together[i].text for i in range(4)] == alone
    assert moves >= 1 and split == 0
