"""The peer for `vs_naive_speedup`: the same agent requests the way a Python user of
llama-cpp-python would run them, with no state handling of Concord's.

One `Llama` object, and for each agent `create_completion` on the agent's whole prompt
(the same tokens Concord's runtime builds) with `LlamaGrammar.from_json_schema` of its
schema, greedy, one after another. llama-cpp-python's own prompt-prefix matching is left
on, as a user gets it. The weights are loaded as Concord loads them, not repacked
(`use_extra_bufts` off, which llama-cpp-python's `Llama` has no argument for): a native
build's repacked kernels crashed `Llama` with SIGILL on this machine (its CPU lists AMX; the
virtual machine does not grant it), and both sides then multiply the same weights with the
same kernels. It runs in a child process (`python -m concord.bench.naive`, a JSON
job on stdin, the result on stdout) so that its model and cache do not count in the
benchmark's memory, and only the generations are timed.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from concord.errors import ModelError


@dataclass(frozen=True)
class NaiveCall:
    """One agent's request, as tokens (the runtime's own prompt) and its JSON schema."""

    agent: str
    tokens: list[int]
    schema: dict[str, Any]
    max_tokens: int


@dataclass(frozen=True)
class NaiveResult:
    seconds: float  # all generations, one after another
    per_call_seconds: tuple[float, ...]
    completion_tokens: int
    valid_json: int  # answers that parse as JSON
    calls: int
    texts: tuple[str, ...] = ()  # each answer, in the order of the calls
    cut_off: tuple[bool, ...] = ()  # each answer stopped by its token cap


def run_naive(
    model_path: Path, n_ctx: int, n_threads: int, calls: Sequence[NaiveCall], timeout: float
) -> NaiveResult:
    """Run `calls` through plain llama-cpp-python in a child process."""
    job = {
        "model_path": str(model_path),
        "n_ctx": n_ctx,
        "n_threads": n_threads,
        "calls": [asdict(c) for c in calls],
    }
    try:
        done = subprocess.run(
            [sys.executable, "-m", "concord.bench.naive"],
            input=json.dumps(job).encode("utf-8"),
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise ModelError(f"the plain llama-cpp-python run took over {timeout:g} s") from exc
    if done.returncode != 0:
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
        how = f"exit code {done.returncode}"
        if done.returncode < 0:
            how = f"signal {signal.Signals(-done.returncode).name}"
        raise ModelError(f"the plain llama-cpp-python run failed ({how}): {' '.join(tail)}")
    data = json.loads(done.stdout)
    return NaiveResult(
        seconds=float(data["seconds"]),
        per_call_seconds=tuple(data["per_call_seconds"]),
        completion_tokens=int(data["completion_tokens"]),
        valid_json=int(data["valid_json"]),
        calls=len(calls),
        texts=tuple(str(t) for t in data.get("texts", ())),
        cut_off=tuple(bool(c) for c in data.get("cut_off", ())),
    )


def _valid_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _without_repacking() -> None:
    """Make `Llama` load the weights without repacking them (see the module doc)."""
    import llama_cpp.llama_cpp as low

    default = low.llama_model_default_params

    def params() -> Any:
        chosen = default()
        chosen.use_extra_bufts = False
        return chosen

    low.llama_model_default_params = params


def _child(job: dict[str, Any]) -> dict[str, Any]:
    from llama_cpp import Llama
    from llama_cpp.llama_grammar import LlamaGrammar

    _without_repacking()
    llm = Llama(
        model_path=job["model_path"],
        n_ctx=job["n_ctx"],
        n_threads=job["n_threads"],
        n_threads_batch=job["n_threads"],
        verbose=False,
    )
    per_call: list[float] = []
    texts: list[str] = []
    cut_off: list[bool] = []
    tokens = valid = 0
    for call in job["calls"]:
        grammar = LlamaGrammar.from_json_schema(json.dumps(call["schema"]), verbose=False)
        started = time.perf_counter()
        out = llm.create_completion(
            prompt=call["tokens"], grammar=grammar, max_tokens=call["max_tokens"], temperature=0.0
        )
        per_call.append(time.perf_counter() - started)
        choice = out["choices"][0]  # type: ignore[index]
        tokens += int(out["usage"]["completion_tokens"])  # type: ignore[index]
        valid += _valid_json(choice["text"])
        texts.append(choice["text"])
        cut_off.append(choice["finish_reason"] == "length")
    llm.close()
    return {
        "seconds": sum(per_call),
        "per_call_seconds": per_call,
        "completion_tokens": tokens,
        "valid_json": valid,
        "texts": texts,
        "cut_off": cut_off,
    }


if __name__ == "__main__":
    print(json.dumps(_child(json.load(sys.stdin))))
