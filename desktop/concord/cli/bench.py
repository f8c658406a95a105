"""concord bench: the performance benchmark, one process, one loaded model.

The model is loaded in this process (`load_runtime`), unlike `concord run`, which loads it
in a child process: the figures are the model's and the pipeline's, without the JSON round
trip to that child (one per model call). It decodes on the threads the command line uses
(every core, fewer while other processes use them: `concord.llm.cpu_share`).

Qt is needed only for `ui_max_stall_ms`; its probe is imported here, lazily, when PySide6
is installed, so the core benchmark (`concord.bench`) never imports Qt.
"""

from __future__ import annotations

import argparse
import importlib.util
from dataclasses import replace

from concord import paths
from concord.bench.machine import runtime_settings
from concord.bench.model_measures import StallProbe
from concord.bench.report import TABLE_HEADERS, summary_lines, table_rows, to_json
from concord.bench.run import BenchInputs, BenchOptions, ModelInfo, run_bench
from concord.cli._common import add_json_flag, emit_json, say, services
from concord.cli._tables import table
from concord.llm.default_model import install_default
from concord.llm.llama_cpp_runtime import default_threads
from concord.llm.registry import ModelEntry, load_runtime
from concord.llm.runtime import Runtime
from concord.records import load_record


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="performance benchmark with the default model")
    p.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: a 1k-token record, few output tokens, one specialist",
    )
    p.add_argument(
        "--model", help="registered model for every figure (default: the bundled default model)"
    )
    p.add_argument(
        "--busy",
        type=int,
        metavar="N",
        help="busy processes beside the panel for contention_slowdown (default: one per "
        "core; 0 switches it off)",
    )
    p.add_argument(
        "--no-ui-probe",
        action="store_true",
        help="do not measure ui_max_stall_ms (it is then reported as not measured)",
    )
    add_json_flag(p)
    p.set_defaults(func=cmd_bench)


def stall_probe(disabled: bool = False) -> tuple[StallProbe | None, str]:
    """The Qt event-loop probe, or None and the reason it is unavailable."""
    if disabled:
        return None, "switched off with --no-ui-probe"
    if importlib.util.find_spec("PySide6") is None:
        return None, "PySide6 is not installed"
    try:
        from concord.ui.bench_probe import run_with_event_loop
    except ImportError as exc:  # e.g. Qt's system libraries are missing
        return None, f"Qt cannot be loaded ({exc})"
    return run_with_event_loop, ""


def load_in_process(entry: ModelEntry) -> Runtime:
    """The model in this process (hash verified), not in the child process `Services`
    uses: the benchmark switches prefix reuse off and on, counts tokens with the model's
    tokenizer, and measures this process's memory. Threads as the command line's."""
    return load_runtime(entry, n_threads=default_threads(keep_a_core=False))


def cmd_bench(args: argparse.Namespace) -> int:
    svc = services()
    runtime: Runtime | None = None
    try:
        entry = svc.model_entry(args.model) if args.model else install_default(svc.models)
        say(f"model: {entry.name} sha256 {entry.sha256[:16]}… (loading)")
        runtime = load_in_process(entry)
        probe, probe_missing = stall_probe(args.no_ui_probe)
        demo = [
            load_record(p) for p in sorted(paths.resources_dir().joinpath("demo").glob("*.json"))
        ]
        result = run_bench(
            runtime,
            ModelInfo(
                entry.name,
                entry.sha256,
                entry.size,
                runtime_settings(entry, runtime),
                path=entry.path,
            ),
            BenchInputs(svc.profiles, svc.screen, svc.lexicon, svc.config, demo),
            _options(args),
            probe=probe,
            probe_missing=probe_missing,
            say=say,
        )
    finally:
        if runtime is not None:
            runtime.close()
        svc.close()
    if args.json:
        emit_json(to_json(result))
    else:
        print("\n".join(summary_lines(result)))
        print()
        print(table(TABLE_HEADERS, table_rows(result)))
    return 0


def _options(args: argparse.Namespace) -> BenchOptions:
    options = BenchOptions.for_run(args.quick)
    if args.busy is None:
        return options
    return replace(options, contention=args.busy > 0, busy_processes=max(0, args.busy))
