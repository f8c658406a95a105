"""What a validation records about the machine: the model process's peak memory and the
load the machine was under (timings on a shared machine are read with it)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any


def _pid_of(runtime: Any) -> int | None:
    """The model process's id, through wrappers (`TimeoutRuntime.inner` ...)."""
    seen = 0
    while runtime is not None and seen < 8:
        pid = getattr(runtime, "pid", None)
        if isinstance(pid, int):
            return pid
        runtime = getattr(runtime, "inner", None)
        seen += 1
    return None


def _vm_hwm_mb(pid: int) -> float | None:
    try:
        text = Path(f"/proc/{pid}/status").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024 / 1e6
    return None


def _self_peak_mb() -> float | None:
    try:
        import resource
    except ImportError:  # Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak * (1 if sys.platform == "darwin" else 1024) / 1e6


def peak_memory_mb(runtime: Any) -> float | None:
    """Peak resident memory in MB of the process holding the model: the child llama.cpp
    process where the runtime has one (its VmHWM), else this process."""
    pid = _pid_of(runtime)
    if pid is not None:
        found = _vm_hwm_mb(pid)
        if found is not None:
            return round(found, 1)
    own = _self_peak_mb()
    return None if own is None else round(own, 1)


def machine_state() -> dict[str, Any]:
    """Cores and the 1/5/15-minute load averages, where the OS reports them."""
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        load = []
    return {"cpus": os.cpu_count(), "load_average": load}
