"""Other work on the machine, made on purpose: processes that each keep one core busy, for
the bench's `contention_slowdown` (a hospital workstation is never idle: antivirus, the
EHR, a browser)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator

# Spins while the process named by its argument is its parent, so a bench that is killed
# leaves no spinner behind (the pid is passed: the parent may be gone before it starts).
SPIN = "import os, sys\nparent = int(sys.argv[1])\nwhile os.getppid() == parent:\n    pass\n"
STOP_GRACE_S = 5.0


@contextlib.contextmanager
def busy_processes(count: int) -> Iterator[list[int]]:
    """`count` processes that each keep a core busy while the block runs; their pids."""
    spinners = [
        subprocess.Popen(
            [sys.executable, "-c", SPIN, str(os.getpid())],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
        for _ in range(max(0, count))
    ]
    try:
        yield [p.pid for p in spinners]
    finally:
        for process in spinners:
            process.kill()
        for process in spinners:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=STOP_GRACE_S)
