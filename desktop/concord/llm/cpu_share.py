"""How many threads llama.cpp should decode on: as many as the machine has cores free,
decided when a run starts and again as it goes.

llama.cpp's threads meet at a barrier after every node of the compute graph (some 600 per
token of the default model), and a thread that arrives first waits by spinning. With a
thread per core on a machine where other programs also run, a thread is often descheduled
while its partner spins for it: demo 03 took 6.3x its time alone beside one busy process
per core of a 2-core machine (issue 29), where a fair share is 2x. One thread never waits
at a barrier. So the runtime decodes on as many threads as there are cores that other
processes leave free, and looks again every `CHECK_EVERY_S` while it decodes:

- the CPU time the other processes used on this process's cores over the last interval,
  from /proc/stat (those cores' lines) minus this process's own CPU time
  (`time.process_time`, every thread of it);
- free cores = cores - that; a thread is used for each free core, counting a core as free
  when others use at most `HEADROOM` of it; at least 1, at most the runtime's maximum;
- it looks between any two llama.cpp calls once a second has passed, the chunks of a long
  prompt included (a record's prefill is a dozen calls); a run that starts after the runtime
  was idle for more than `STALE_AFTER_S` first measures the machine for `MIN_INTERVAL_S`.
  Before, the first look of a run averaged over the whole idle spell and the prefill had no
  look at all: in `concord bench` the panel run just after the minute beside busy processes
  read its record on one thread (69-71 s where the same panel took 59-62 s), and the panel
  beside busy processes, started after a quiet spell, read it on two threads and went to one
  42.7 s in; now 62.1 s and 61.7 s, and one thread 0.3 s in.

A prompt call of much work is the exception (`ThreadGovernor.threads_for_call`): when its
tokens times the model's embedding width reach `WIDE_CALL_WIDTH` (for the default model,
640 wide, from 300 tokens: a record is read in chunks of 512; for the 1.5B model, 1,536
wide, from 125), the call runs on every thread the runtime may use, however busy the
machine. The nodes of such a call take long enough (a matrix product of milliseconds, the
norms and additions between them tens of microseconds) that a thread which finishes first
waits for a descheduled partner briefly, then sleeps, and the process's two threads get
their share of two cores where one thread gets its share of one. Measured on this 2-core
machine beside two busy processes (2 December 2026, a prompt on the bench's record restored
from its saved state, each size alternated three times, 1 thread vs 2): the default model,
8 tokens 0.10-0.12 s vs 0.28-0.43 s, 128 tokens 0.74-0.87 s vs 0.99-1.00 s, 256 tokens
1.57-1.71 s vs 1.18-1.78 s, 384 tokens 2.35-2.78 s vs 1.79-1.85 s, 512 tokens 2.94-3.21 s
vs 2.16-2.92 s, and its whole 4,353-token record 24.7-28.2 s vs 21.1-22.0 s; the 1.5B model,
16 tokens 0.55-0.61 s vs 1.28-1.55 s, 64 tokens 2.10-2.21 s vs 2.11-2.62 s, 128 tokens
4.55-4.83 s vs 3.80-4.57 s. Beside four busy processes the default model's 512 tokens took
5.0-5.3 s on 1 thread and 4.7 s on 2, its 128 tokens 1.38-1.43 s and 1.29-1.66 s. A
decoding step (a token for each of a few sequences) is nodes of microseconds and stays on
the thread the load leaves: four briefs on two threads beside busy processes took 8.1 s
once and 27.3 s the next time, against 10.7-10.8 s on one.

Where /proc/stat cannot be read (not Linux), the maximum is used, as before.

How the threads wait: llama-cpp-python's Linux build runs the threads with OpenMP
(libgomp), whose barrier spins `GOMP_SPINCOUNT` times (300,000 by default, about 3 ms)
before sleeping. `short_barrier_spin` shortens that to `SPIN_COUNT` unless the user set
it: enough for a partner that is running (a barrier wait is microseconds), short enough
that a thread whose partner was descheduled gives its core back. libgomp reads it once,
when llama.cpp is first imported, so it is set around that import and removed again
(processes started later, such as the bench's plain llama-cpp-python peer, keep their
defaults).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

CHECK_EVERY_S = 1.0
"""How often a decoding runtime looks at the free cores again."""
MIN_INTERVAL_S = 0.2
"""A shorter interval than this says too little about the other processes."""
STALE_AFTER_S = 3.0
"""A run that starts longer than this after the last look measures the machine afresh, over
MIN_INTERVAL_S, before its first call: an interval that long says what the machine did while
the runtime was idle (a load that has since gone, or come), not what it does now."""
HEADROOM = 0.25
"""A core counts as free for a thread when other processes use at most this much of it."""
SPIN_COUNT = "20000"
"""libgomp spins before a thread sleeps at a barrier (about 0.2 ms; its default 300,000)."""
SPIN_ENV = "GOMP_SPINCOUNT"
WAIT_POLICY_ENV = "OMP_WAIT_POLICY"
STAT_PATH = "/proc/stat"
WIDE_CALL_WIDTH = 192_000
"""Tokens x embedding width of a prompt call from which it runs on every thread the runtime
may use whatever the load (see the module doc): 300 tokens of the default model (640 wide),
125 of a 1.5B model (1,536 wide); fitted to those two models' measurements."""


def wide_call_tokens(width: int) -> int:
    """The fewest tokens of a prompt call that runs on every thread, for a model whose
    embeddings are `width` wide."""
    return max(1, math.ceil(WIDE_CALL_WIDTH / max(1, width)))


@contextmanager
def short_barrier_spin() -> Iterator[None]:
    """Around the first import of llama.cpp: its OpenMP threads spin SPIN_COUNT times at a
    barrier before sleeping, unless the user chose a wait policy or spin count."""
    chosen = SPIN_ENV in os.environ or WAIT_POLICY_ENV in os.environ
    if not chosen:
        os.environ[SPIN_ENV] = SPIN_COUNT
    try:
        yield
    finally:
        if not chosen:
            os.environ.pop(SPIN_ENV, None)


def allowed_cores() -> set[int]:
    """The cores this process may run on."""
    try:
        return set(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return set(range(os.cpu_count() or 1))


@dataclass(frozen=True)
class CpuSample:
    at: float  # monotonic seconds
    busy: float  # CPU seconds used on the watched cores by every process, since boot
    own: float  # CPU seconds used by this process (all its threads)


def _ticks() -> float:
    try:
        return float(os.sysconf("SC_CLK_TCK"))
    except (AttributeError, ValueError, OSError):
        return 100.0


def read_sample(cores: set[int], path: str = STAT_PATH) -> CpuSample | None:
    """The busy time of `cores` from /proc/stat and this process's CPU time, or None when
    the file cannot be read."""
    try:
        with open(path, encoding="ascii") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    busy_ticks = 0
    seen = 0
    for line in lines:
        name, _, rest = line.partition(" ")
        if not name.startswith("cpu") or name == "cpu":
            continue
        try:
            core = int(name[3:])
        except ValueError:
            continue
        if core not in cores:
            continue
        values = [int(v) for v in rest.split()]
        # user nice system idle iowait irq softirq steal (guest time is inside user/nice)
        busy_ticks += sum(values[:3]) + sum(values[5:8])
        seen += 1
    if not seen:
        return None
    return CpuSample(time.monotonic(), busy_ticks / _ticks(), time.process_time())


def others_busy(before: CpuSample, after: CpuSample) -> float | None:
    """Cores' worth of CPU the other processes used between the two samples."""
    wall = after.at - before.at
    if wall < MIN_INTERVAL_S:
        return None
    used = (after.busy - before.busy) - (after.own - before.own)
    return max(0.0, used / wall)


def threads_for(free_cores: float, most: int) -> int:
    """A thread for each free core (counting a core free when others leave it
    1 - HEADROOM), at least 1, at most `most`."""
    return max(1, min(most, math.floor(free_cores + HEADROOM)))


@dataclass
class ThreadGovernor:
    """Chooses the thread count from the free cores, at the start of a run and every
    CHECK_EVERY_S while it decodes. `fixed`: always `most` (a setting the user chose)."""

    most: int
    fixed: bool = False
    wide_from: int | None = None  # prompt calls of this many tokens run on `most` threads
    cores: set[int] = field(default_factory=allowed_cores)
    sample: Callable[[set[int]], CpuSample | None] = read_sample
    clock: Callable[[], float] = time.monotonic
    wait: Callable[[float], None] = time.sleep
    threads: int = 0
    others: float | None = None  # cores' worth the other processes used, last measured
    changes: list[tuple[float, int, float]] = field(default_factory=list)  # (at, threads, others)

    def __post_init__(self) -> None:
        self.most = max(1, self.most)
        self.threads = self.most
        self._last = None if self.fixed else self.sample(self.cores)
        self._checked = self.clock()

    def threads_for_call(self, tokens: int, *, prompt: bool) -> int:
        """Threads for a llama_decode call of `tokens` tokens: `most` for a prompt call of
        at least `wide_from` tokens, else the count the load leaves (`threads`)."""
        if prompt and self.wide_from is not None and tokens >= self.wide_from:
            return self.most
        return self.threads

    def check(self, *, now: bool = False) -> bool:
        """Look at the free cores again (if CHECK_EVERY_S has passed, or `now`: a run
        starts, measured afresh when the last look is older than STALE_AFTER_S); True if
        the thread count changed."""
        if self.fixed or self._last is None or self.most == 1:
            return False
        since = self.clock() - self._checked
        if not now and since < CHECK_EVERY_S:
            return False
        if now and since > STALE_AFTER_S:
            fresh = self.sample(self.cores)
            if fresh is None:
                return False
            self._last = fresh
            self.wait(MIN_INTERVAL_S)
        current = self.sample(self.cores)
        if current is None:
            return False
        others = others_busy(self._last, current)
        if others is None:
            return False
        self._last, self._checked, self.others = current, self.clock(), others
        chosen = threads_for(len(self.cores) - others, self.most)
        if chosen == self.threads:
            return False
        self.threads = chosen
        self.changes.append((round(current.at, 3), chosen, round(others, 2)))
        return True
