"""The bench's busy processes: one core each while the block runs, none left after it, and
none left behind by a bench that is killed."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from concord.bench.load import busy_processes


def _fields(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def _running(pid: int) -> bool:
    """Alive and not a zombie."""
    try:
        state = _fields(pid)[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def test_each_busy_process_spins_until_the_block_ends() -> None:
    with busy_processes(2) as pids:
        assert len(set(pids)) == 2 and all(_running(pid) for pid in pids)
        time.sleep(0.5)
        assert all(int(_fields(pid)[11]) > 0 for pid in pids)  # user CPU ticks: they spin
    assert not any(_running(pid) for pid in pids)


def test_a_bench_that_is_killed_leaves_no_busy_process_behind() -> None:
    script = (
        "import os\nfrom concord.bench.load import busy_processes\n"
        "with busy_processes(1) as pids:\n    print(pids[0], flush=True)\n    os._exit(0)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=120,
    )
    pid = int(done.stdout.strip())
    deadline = time.monotonic() + 10
    while _running(pid):
        assert time.monotonic() < deadline, "the spinner outlived its parent"
        time.sleep(0.05)
