"""Where the time of a decoding step goes (issue 29), in three short measurements:

    python -m concord.bench.decode_profile [--sections matmul,steps,together] [--model NAME]

- `matmul`: ggml's own matrix product (the kernels llama.cpp runs) of a Q8_0 weight matrix
  the shape of Gemma 3's output layer (640 x 262,144, 178 MB) and of a slice that stays in
  the L2 cache (640 x 4,096), by 1, 2, 4 and 8 activation columns (one column per sequence
  decoded together), on 1 and 2 threads: the cost per column says whether the output layer
  is limited by memory (the slice is much cheaper per row than the whole matrix) or by
  arithmetic (a column costs the same however many share the weights), and each column of
  a product is compared bitwise with the same column multiplied alone.
- `steps`: llama_decode of one decoding step on the bench's 4k-token record, for 1, 2 and 4
  sequences, on 1 and 2 threads, with the output layer (as decoding) and without it
  (`LlamaCppRuntime.time_steps`); wall and CPU milliseconds.
- `together`: four specialists' first briefs on that record decoded one at a time, two at
  a time and four at a time (2 threads, fixed): wall seconds, and the runtime's own
  counters (`RuntimeStats`) of where it went: llama_decode of the decoding steps by how many
  sequences a step held, the forced-text calls of jump-forward decoding (each in its own
  call, as alone), prompt evaluation, and Python choosing tokens; and whether every text is
  the one written alone.

Each section prints the 1-minute load average before it: on a machine others use, wall
times are not results (CPU times say more, but other processes also take the caches).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from concord.agents.profiles import load_profiles
from concord.agents.prompts import build_record_block
from concord.agents.runner import brief_token_cap
from concord.bench import model_measures as mm
from concord.bench.records import bench_record
from concord.bench.run import token_counter
from concord.llm.llama_cpp_runtime import LlamaCppRuntime
from concord.llm.registry import ModelStore, load_runtime
from concord.llm.runtime import GenerationRequest

SECTIONS = ("matmul", "steps", "together")
EMBED = 640  # Gemma 3 270M's hidden size: the output layer's rows are this long
VOCAB = 262_144
L2_ROWS = 4_096
COLUMNS = (1, 2, 4, 8)
Q8_0 = 8  # ggml_type
F32 = 0
Q8_0_BLOCK = 34  # bytes: an fp16 scale and 32 int8 weights
SPECIALISTS = mm.PANEL[1:]


def load_average() -> str:
    try:
        return f"load average {os.getloadavg()[0]:.2f}"
    except OSError:
        return "load average unknown"


def _ms(seconds: float) -> str:
    return f"{1e3 * seconds:7.2f}"


# -- matmul ------------------------------------------------------------------------------


class _InitParams(ctypes.Structure):
    _fields_ = [
        ("mem_size", ctypes.c_size_t),
        ("mem_buffer", ctypes.c_void_p),
        ("no_alloc", ctypes.c_bool),
    ]


def _ggml() -> tuple[Any, Any]:
    """ggml's base and CPU libraries as llama-cpp-python ships them."""
    import llama_cpp

    folder = Path(llama_cpp.__file__).parent / "lib"
    base = ctypes.CDLL(str(folder / "libggml-base.so"), mode=ctypes.RTLD_GLOBAL)
    cpu = ctypes.CDLL(str(folder / "libggml-cpu.so"), mode=ctypes.RTLD_GLOBAL)
    pointer = ctypes.c_void_p
    base.ggml_init.restype, base.ggml_init.argtypes = pointer, [_InitParams]
    base.ggml_free.argtypes = [pointer]
    base.ggml_new_tensor_2d.restype = pointer
    base.ggml_new_tensor_2d.argtypes = [pointer, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
    base.ggml_mul_mat.restype, base.ggml_mul_mat.argtypes = pointer, [pointer] * 3
    base.ggml_new_graph.restype, base.ggml_new_graph.argtypes = pointer, [pointer]
    base.ggml_build_forward_expand.argtypes = [pointer, pointer]
    base.ggml_get_data.restype, base.ggml_get_data.argtypes = pointer, [pointer]
    base.ggml_nbytes.restype, base.ggml_nbytes.argtypes = ctypes.c_size_t, [pointer]
    cpu.ggml_graph_compute_with_ctx.argtypes = [pointer, pointer, ctypes.c_int]
    cpu.ggml_cpu_init()
    return base, cpu


def _matmul(
    base: Any, cpu: Any, rows: int, columns: int, threads: int, repeats: int
) -> tuple[float, float, list[float]]:
    """The fastest wall and CPU seconds of (Q8_0 rows x EMBED) times (EMBED x columns),
    and the product's first column."""
    import numpy as np

    size = rows * EMBED * 2 + columns * (rows + EMBED) * 8 + (64 << 20)
    ctx = base.ggml_init(_InitParams(size, None, False))
    try:
        weights = base.ggml_new_tensor_2d(ctx, Q8_0, EMBED, rows)
        x = base.ggml_new_tensor_2d(ctx, F32, EMBED, columns)
        rng = np.random.default_rng(0)
        raw = np.ctypeslib.as_array(
            ctypes.cast(base.ggml_get_data(weights), ctypes.POINTER(ctypes.c_uint8)),
            shape=(base.ggml_nbytes(weights),),
        )
        raw[:] = rng.integers(0, 256, raw.size, dtype=np.uint8)
        scale = np.frombuffer(np.float16(0.01).tobytes(), np.uint8)
        raw.reshape(-1, Q8_0_BLOCK)[:, :2] = scale  # finite scales: random bytes may be NaN
        values = np.ctypeslib.as_array(
            ctypes.cast(base.ggml_get_data(x), ctypes.POINTER(ctypes.c_float)),
            shape=(columns * EMBED,),
        )
        values[:] = rng.standard_normal(columns * EMBED).astype(np.float32)
        product = base.ggml_mul_mat(ctx, weights, x)
        graph = base.ggml_new_graph(ctx)
        base.ggml_build_forward_expand(graph, product)
        wall = used = float("inf")
        for _ in range(repeats):
            started, cpu_started = time.perf_counter(), time.process_time()
            cpu.ggml_graph_compute_with_ctx(ctx, graph, threads)
            wall = min(wall, time.perf_counter() - started)
            used = min(used, time.process_time() - cpu_started)
        out = np.ctypeslib.as_array(
            ctypes.cast(base.ggml_get_data(product), ctypes.POINTER(ctypes.c_float)),
            shape=(columns, rows),
        )
        return wall, used, [float(v) for v in out[0]]
    finally:
        base.ggml_free(ctx)


def profile_matmul(repeats: int) -> None:
    print(
        f"\n== matmul: Q8_0 weights x activation columns (fastest of {repeats}); {load_average()}"
    )
    base, cpu = _ggml()
    for rows in (L2_ROWS, VOCAB):
        for threads in (1, 2):
            alone: list[float] = []
            for columns in COLUMNS:
                wall, used, first = _matmul(base, cpu, rows, columns, threads, repeats)
                if columns == 1:
                    alone = first
                print(
                    f"  {rows:7d} rows, {threads} thread(s), {columns} column(s): wall "
                    f"{_ms(wall)} ms ({_ms(wall / columns)} a column, "
                    f"{1e9 * wall / columns / rows:6.1f} ns a row and column), CPU "
                    f"{_ms(used)} ms; first column as alone: {first == alone}"
                )


# -- steps -------------------------------------------------------------------------------


def profile_steps(runtime: LlamaCppRuntime, prefix: str, steps: int) -> None:
    print(
        f"\n== steps: llama_decode of one decoding step ({steps} steps each, the first two "
        f"dropped; median and fastest); {load_average()}"
    )
    for threads in (1, 2):
        for sequences in (1, 2, 4):
            if sequences > runtime.parallel:
                continue
            for logits in (True, False):
                times = runtime.time_steps(
                    prefix, sequences, steps, logits=logits, threads=threads
                )[2:]
                if not times:
                    continue
                wall = [w for w, _ in times]
                cpu = [c for _, c in times]
                print(
                    f"  {threads} thread(s), {sequences} sequence(s), "
                    f"{'with' if logits else 'without'} output layer: wall median "
                    f"{_ms(statistics.median(wall))} ms (fastest {_ms(min(wall))}), CPU "
                    f"median {_ms(statistics.median(cpu))} ms; "
                    f"{_ms(statistics.median(wall) / sequences)} ms a token"
                )


# -- together ----------------------------------------------------------------------------


def _requests(record: Any, max_tokens: int | None) -> list[GenerationRequest]:
    profiles = load_profiles()
    out = []
    for name in SPECIALISTS:
        profile = profiles[name]
        cap = brief_token_cap(profile.max_items)
        out.append(mm.agent_request(profile, record, profiles, min(cap, max_tokens or cap)))
    return out


def profile_together(runtime: LlamaCppRuntime, requests: Sequence[GenerationRequest]) -> None:
    print(f"\n== together: {len(requests)} specialists' briefs, {runtime.threads} thread(s)")
    texts: dict[int, list[str]] = {}
    for together in (1, 2, 4):
        if together > runtime.parallel:
            continue
        print(f"  -- {together} at a time; {load_average()}")
        runtime.together = together
        before = mm.runtime_stats(runtime)
        started = time.perf_counter()
        out = [""] * len(requests)
        tokens = 0
        for index, generation in runtime.generate_many(requests):
            out[index] = generation.text
            tokens += generation.completion_tokens
        wall = time.perf_counter() - started
        texts[together] = out
        stats = mm.stats_since(before, mm.runtime_stats(runtime))
        steps = stats.get("step_seconds_by_sequences", {})
        counts = stats.get("steps_by_sequences", {})
        step_seconds = sum(steps.values())
        accounted = (
            step_seconds
            + stats.get("forced_seconds", 0.0)
            + stats.get("prompt_seconds", 0.0)
            + stats.get("prefill_seconds", 0.0)
            + stats.get("restore_seconds", 0.0)
            + stats.get("choose_seconds", 0.0)
        )
        print(
            f"     wall {wall:6.2f} s for {tokens} tokens ({1e3 * wall / max(tokens, 1):.1f} "
            "ms a token)"
        )
        for n in sorted(counts):
            print(
                f"     steps of {n} sequence(s): {counts[n]:4d}, {steps.get(n, 0.0):6.2f} s, "
                f"{1e3 * steps.get(n, 0.0) / counts[n]:6.1f} ms a step"
            )
        print(
            f"     forced-text calls: {stats.get('forced_calls', 0)} "
            f"({stats.get('forced_tokens', 0)} tokens), {stats.get('forced_seconds', 0.0):.2f} s"
        )
        print(
            f"     prompts {stats.get('prompt_seconds', 0.0):.2f} s, restores "
            f"{stats.get('restore_seconds', 0.0):.2f} s, Python choosing tokens "
            f"{stats.get('choose_seconds', 0.0):.2f} s, the rest {wall - accounted:.2f} s"
        )
    same = all(t == texts[1] for t in texts.values())
    print(f"  every text the same whatever decodes together: {same}")


# -- main --------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m concord.bench.decode_profile")
    parser.add_argument("--sections", default=",".join(SECTIONS))
    parser.add_argument("--model", help="a registered model (default: the default model)")
    parser.add_argument("--record-tokens", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=12, help="decoding steps per case")
    parser.add_argument("--repeats", type=int, default=5, help="matmul repeats per case")
    parser.add_argument(
        "--max-tokens", type=int, default=None, help="cap each brief (default: its own cap)"
    )
    parser.add_argument("--threads", type=int, default=2, help="threads for `together`")
    args = parser.parse_args(argv)
    sections = [s.strip() for s in args.sections.split(",") if s.strip()]
    unknown = set(sections) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown section(s): {', '.join(sorted(unknown))}")
    if "matmul" in sections:
        profile_matmul(args.repeats)
    if not {"steps", "together"} & set(sections):
        return 0
    store = ModelStore.open()
    entry = store.resolve(args.model) if args.model else store.default()
    # threads fixed: `together` runs on --threads whatever else runs; `steps` sets its own
    runtime = load_runtime(entry, n_threads=args.threads, adapt_threads=False)
    if not isinstance(runtime, LlamaCppRuntime):
        parser.error("the profile needs the llama.cpp runtime")
    try:
        record = bench_record(args.record_tokens, token_counter(runtime))
        prefix = build_record_block(record.record)
        print(f"\nmodel {entry.name}; record {record.tokens} tokens; {runtime.parallel} sequences")
        if "steps" in sections:
            profile_steps(runtime, prefix, args.steps)
        if "together" in sections:
            runtime.generate(GenerationRequest(prefix=prefix, prompt="Hello", max_tokens=1))
            profile_together(runtime, _requests(record.record, args.max_tokens))
    finally:
        runtime.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
