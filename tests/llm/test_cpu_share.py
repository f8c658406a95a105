"""The thread count follows the cores other processes leave free: measured from the busy
time of this process's cores (/proc/stat) minus this process's own CPU time, at the start
of a batch and every second while it decodes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from concord.llm import cpu_share
from concord.llm.cpu_share import (
    SPIN_ENV,
    CpuSample,
    ThreadGovernor,
    others_busy,
    read_sample,
    short_barrier_spin,
    threads_for,
)

STAT = """cpu  900 0 300 5000 10 0 5 0 0 0
cpu0 400 0 100 2500 5 0 3 0 0 0
cpu1 500 0 200 2500 5 0 2 0 0 0
cpu2 9000 0 0 0 0 0 0 0 0 0
intr 12345
"""


def test_a_sample_adds_the_busy_time_of_this_process_cores_only(tmp_path: Path) -> None:
    stat = tmp_path / "stat"
    stat.write_text(STAT)
    sample = read_sample({0, 1}, str(stat))
    assert sample is not None
    ticks = os.sysconf("SC_CLK_TCK")
    # user + nice + system + irq + softirq + steal of cpu0 and cpu1; cpu2 is not ours
    assert sample.busy == pytest.approx((400 + 100 + 3 + 500 + 200 + 2) / ticks)
    assert read_sample({0}, str(tmp_path / "missing")) is None
    assert read_sample({7}, str(stat)) is None  # none of our cores listed


def test_other_processes_are_what_the_cores_did_beyond_this_process() -> None:
    before = CpuSample(at=10.0, busy=100.0, own=5.0)
    after = CpuSample(at=12.0, busy=103.0, own=6.0)  # 3 s busy in 2 s, 1 s of it ours
    assert others_busy(before, after) == pytest.approx(1.0)
    assert others_busy(before, CpuSample(at=10.1, busy=100.1, own=5.0)) is None  # too short


@pytest.mark.parametrize(
    ("free", "most", "threads"),
    [(2.0, 2, 2), (1.8, 2, 2), (1.7, 2, 1), (1.0, 2, 1), (0.2, 2, 1), (7.9, 4, 4), (3.3, 8, 3)],
)
def test_a_thread_for_each_free_core(free: float, most: int, threads: int) -> None:
    assert threads_for(free, most) == threads


class Machine:
    """A scripted machine: `run(others)` lets a second pass with this process keeping one
    core busy and the other processes using `others` cores' worth."""

    def __init__(self) -> None:
        self.now = self.busy = self.own = 0.0
        self.others = 0.0  # what the other processes use now
        self.waited: list[float] = []

    def run(self, others: float, seconds: float = 1.0) -> None:
        self.now += seconds
        self.own += seconds
        self.busy += seconds * (1.0 + others)
        self.others = others

    def idle(self, others: float, seconds: float) -> None:
        """This process waits (between runs) while the others use `others` cores."""
        self.now += seconds
        self.busy += seconds * others
        self.others = others

    def wait(self, seconds: float) -> None:
        self.waited.append(seconds)
        self.idle(self.others, seconds)

    def clock(self) -> float:
        return self.now

    def sample(self, _cores: set[int]) -> CpuSample:
        return CpuSample(self.now, self.busy, self.own)


def governor(machine: Machine, most: int = 2, fixed: bool = False) -> ThreadGovernor:
    return ThreadGovernor(
        most,
        fixed=fixed,
        cores={0, 1},
        sample=machine.sample,
        clock=machine.clock,
        wait=machine.wait,
    )


def test_the_threads_follow_the_load_as_it_comes_and_goes() -> None:
    machine = Machine()
    chosen = governor(machine)
    assert chosen.threads == 2  # the most, until measured
    machine.run(others=0.0)
    assert not chosen.check()  # idle: both cores free, no change
    machine.run(others=1.9)
    assert chosen.check() and chosen.threads == 1  # two busy processes arrive
    assert chosen.others == pytest.approx(1.9)
    machine.run(others=1.9)
    assert not chosen.check()
    machine.run(others=0.1)
    assert chosen.check() and chosen.threads == 2  # they leave
    assert [threads for _, threads, _ in chosen.changes] == [1, 2]


def test_a_check_within_the_interval_measures_nothing() -> None:
    machine = Machine()
    chosen = governor(machine)
    machine.run(others=1.9, seconds=0.5)
    assert not chosen.check() and chosen.threads == 2  # not a second yet
    assert chosen.check(now=True) and chosen.threads == 1  # asked at the start of a batch
    machine.run(others=1.9, seconds=0.1)
    assert not chosen.check(now=True)  # too short to say anything


@pytest.mark.parametrize(("before", "now", "threads"), [(1.9, 0.0, 2), (0.0, 1.9, 1)])
def test_a_run_after_an_idle_spell_is_judged_by_the_machine_now_not_then(
    before: float, now: float, threads: int
) -> None:
    """A minute of one load while the runtime was idle, then the other load: the run that
    starts then gets the threads of the load it meets (the minute's average gave the
    other count), after a short fresh look; a run soon after the last look waits for none."""
    machine = Machine()
    chosen = governor(machine)
    machine.run(others=before)
    chosen.check(now=True)
    machine.idle(others=before, seconds=60.0)
    machine.idle(others=now, seconds=0.5)
    chosen.check(now=True)
    assert chosen.threads == threads and chosen.others == pytest.approx(now)
    assert machine.waited == [cpu_share.MIN_INTERVAL_S]
    machine.run(others=now)
    chosen.check(now=True)
    assert machine.waited == [cpu_share.MIN_INTERVAL_S]  # a fresh look: no wait
    assert chosen.threads == threads


def test_a_fixed_count_or_one_thread_never_changes() -> None:
    machine = Machine()
    fixed, single = governor(machine, fixed=True), governor(machine, most=1)
    machine.run(others=1.9)
    assert not fixed.check(now=True) and fixed.threads == 2
    assert not single.check(now=True) and single.threads == 1


def test_llama_cpp_threads_spin_briefly_unless_the_user_chose(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(SPIN_ENV, raising=False)
    monkeypatch.delenv(cpu_share.WAIT_POLICY_ENV, raising=False)
    with short_barrier_spin():
        assert os.environ[SPIN_ENV] == cpu_share.SPIN_COUNT
    assert SPIN_ENV not in os.environ  # processes started later keep their defaults
    monkeypatch.setenv(cpu_share.WAIT_POLICY_ENV, "active")
    with short_barrier_spin():
        assert SPIN_ENV not in os.environ


@pytest.mark.real_model
def test_the_runtime_decodes_on_the_threads_its_governor_chooses(
    default_entry, monkeypatch: pytest.MonkeyPatch
) -> None:
    import llama_cpp

    from concord.llm.llama_cpp_runtime import PARALLEL_ENV, THREADS_ENV
    from concord.llm.registry import load_runtime
    from concord.llm.runtime import GenerationRequest

    monkeypatch.delenv(THREADS_ENV, raising=False)
    monkeypatch.delenv(PARALLEL_ENV, raising=False)
    runtime = load_runtime(default_entry, n_ctx=512, n_threads=2)
    machine = Machine()
    runtime.governor = governor(machine)
    request = GenerationRequest(prefix="Record: K+ 6.1 mmol/L.\n", prompt="Risk:", max_tokens=6)
    try:
        machine.run(others=1.9)  # two busy processes on the two cores
        busy = runtime.generate(request)
        # one thread; its sequences still decoded together (a step of four costs about
        # two of one on a thread: LlamaCppRuntime.together)
        assert llama_cpp.llama_n_threads(runtime._ctx) == 1
        assert runtime.together == runtime.parallel
        machine.run(others=0.0)  # they have gone
        idle = runtime.generate(request)
        assert llama_cpp.llama_n_threads(runtime._ctx) == 2
    finally:
        runtime.close()
    assert busy.text == idle.text
    assert set(runtime.stats.steps_by_threads) == {1, 2}


@pytest.mark.real_model
def test_a_long_prompt_looks_at_the_threads_between_its_chunks(
    default_entry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two busy processes arrive while the record is read: the chunks after the first
    look that sees them run on one thread, before any token is decoded."""
    import llama_cpp

    from concord.llm.llama_cpp_runtime import THREADS_ENV
    from concord.llm.registry import load_runtime
    from concord.llm.runtime import GenerationRequest

    monkeypatch.delenv(THREADS_ENV, raising=False)
    runtime = load_runtime(default_entry, n_ctx=1024, n_threads=2, n_batch=64)
    machine = Machine()
    runtime.governor = governor(machine)
    threads_per_call: list[tuple[int, int]] = []  # (tokens in the call, threads)
    decode = type(runtime)._decode_batch

    def timed_decode(self) -> None:
        threads_per_call.append((int(self._batch.n_tokens), llama_cpp.llama_n_threads(self._ctx)))
        decode(self)
        machine.run(others=1.9)  # each call takes a second; the load is there from now

    monkeypatch.setattr(type(runtime), "_decode_batch", timed_decode)
    record = "".join(
        f"L{i}: Potassium {4 + i % 3}.{i % 10} mmol/L on day {i}.\n" for i in range(40)
    )
    try:
        runtime.generate(GenerationRequest(prefix=record, prompt="Risk:", max_tokens=2))
    finally:
        runtime.close()
    prompt_calls = [threads for tokens, threads in threads_per_call if tokens == 64]
    assert len(prompt_calls) >= 4  # the record is read in chunks of 64 tokens
    assert prompt_calls[0] == 2 and set(prompt_calls[1:]) == {1}


def test_a_prompt_call_of_much_work_runs_on_every_thread_whatever_the_load() -> None:
    """Beside busy processes a decoding step (nodes of microseconds) runs on the thread the
    load leaves, and so does a short prompt; a chunk of a record (nodes of milliseconds,
    longer than a time slice) runs on every thread the runtime may use."""
    machine = Machine()
    chosen = governor(machine)
    chosen.wide_from = cpu_share.wide_call_tokens(640)  # the default model's width
    assert chosen.wide_from == 300
    machine.run(others=1.9)
    assert chosen.check() and chosen.threads == 1
    assert chosen.threads_for_call(512, prompt=True) == 2
    assert chosen.threads_for_call(300, prompt=True) == 2
    assert chosen.threads_for_call(299, prompt=True) == 1
    assert chosen.threads_for_call(4, prompt=False) == 1  # a step of four sequences
    assert chosen.threads_for_call(512, prompt=False) == 1
    machine.run(others=0.0)
    assert chosen.check() and chosen.threads_for_call(8, prompt=True) == 2
    fixed = governor(machine, most=1, fixed=True)
    fixed.wide_from = 1
    assert fixed.threads_for_call(512, prompt=True) == 1  # never more than the most


def test_the_wide_call_is_fewer_tokens_for_a_wider_model() -> None:
    """A 1.5B model's embeddings are 1,536 wide: a prompt call of 125 tokens takes it as long
    per node as 300 of the default model's."""
    assert cpu_share.wide_call_tokens(1536) == 125
    assert cpu_share.wide_call_tokens(10**9) == 1
    assert cpu_share.wide_call_tokens(0) >= 1


@pytest.mark.real_model
def test_beside_busy_processes_a_record_is_read_on_every_thread_and_decoded_on_one(
    default_entry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two busy processes throughout: the record's chunks of 512 tokens run on both threads,
    the request's short prompt and every decoding step on one; the answer is the one the
    quiet machine gives."""
    import llama_cpp

    from concord.llm.llama_cpp_runtime import THREADS_ENV
    from concord.llm.registry import load_runtime
    from concord.llm.runtime import GenerationRequest

    monkeypatch.delenv(THREADS_ENV, raising=False)
    runtime = load_runtime(default_entry, n_ctx=2048, n_threads=2, n_batch=512)
    machine = Machine()
    runtime.governor = governor(machine)
    runtime.governor.wide_from = 300
    calls: list[tuple[int, int]] = []  # (tokens in the call, threads)
    decode = type(runtime)._decode_batch

    def counted_decode(self) -> None:
        calls.append((int(self._batch.n_tokens), llama_cpp.llama_n_threads(self._ctx)))
        decode(self)
        machine.run(others=machine.others)

    monkeypatch.setattr(type(runtime), "_decode_batch", counted_decode)
    record = "".join(
        f"L{i}: Creatinine {90 + i * 7} umol/L, eGFR {80 - i} on day {i}.\n" for i in range(60)
    )
    request = GenerationRequest(prefix=record, prompt="Renal risk:", max_tokens=8)
    try:
        machine.run(others=1.9)
        busy = runtime.generate(request)
        busy_calls = list(calls)
        runtime.forget_prefixes()
        machine.run(others=0.0)
        quiet = runtime.generate(request)
    finally:
        runtime.close()
    record_chunks = [threads for tokens, threads in busy_calls if tokens == 512]
    assert len(record_chunks) >= 2 and set(record_chunks) == {2}
    others = [threads for tokens, threads in busy_calls if tokens < 300]
    assert len(others) >= 8 and set(others) == {1}  # the last chunk, the prompt, the steps
    assert busy.text == quiet.text
    assert runtime.stats.prompt_tokens_by_threads[2] >= 1024
    assert runtime.stats.steps_by_threads.get(1, 0) >= 7
