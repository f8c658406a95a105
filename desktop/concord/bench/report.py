"""The benchmark result as JSON and as a table; misses are listed, never dropped."""

from __future__ import annotations

from typing import Any

from concord.bench.figures import Figure, format_target, format_value
from concord.bench.run import BenchResult


def missed(figures: tuple[Figure, ...]) -> list[str]:
    return [f.name for f in figures if f.met is False]


def not_measured(figures: tuple[Figure, ...]) -> list[str]:
    return [f.name for f in figures if f.value is None]


def to_json(result: BenchResult) -> dict[str, Any]:
    record = result.record
    return {
        "quick": result.options.quick,
        "model": {
            "name": result.model.name,
            "sha256": result.model.sha256,
            "file_mb": None
            if result.model.file_bytes is None
            else round(result.model.file_bytes / 1e6, 1),
            **result.model.settings,
        },
        "record": {
            "name": record.record.name,
            "tokens": record.tokens,
            "counted_by": record.counted_by,
            "target_tokens": result.options.record_tokens,
            "lines": len(record.record.lines),
            "chars": sum(len(d.text) for d in record.record.documents),
        },
        "figures": {f.name: f.as_json() for f in result.figures},
        "missed": missed(result.figures),
        "not_measured": not_measured(result.figures),
        "all_met": all(f.met is not False for f in result.figures)
        and not not_measured(result.figures),
        "context": result.context,
        "seconds": round(result.seconds, 1),
    }


TABLE_HEADERS = ["figure", "value", "target", "status", "compared with"]


def table_rows(result: BenchResult) -> list[list[str]]:
    return [
        [
            f.name,
            format_value(f.value, f.unit),
            format_target(f.target, f.unit),
            f.status,
            f.compared_with + (f" [{f.note}]" if f.note else ""),
        ]
        for f in result.figures
    ]


def summary_lines(result: BenchResult) -> list[str]:
    record = result.record
    lines = [
        f"model {result.model.name} ({_mb(result.model.file_bytes)}); record "
        f"{record.tokens} tokens ({record.counted_by}); "
        f"{'quick run' if result.options.quick else 'full run'} in {result.seconds:.0f} s",
    ]
    gone = missed(result.figures)
    lines.append("MISSED: " + ", ".join(gone) if gone else "every measured figure met its target")
    absent = not_measured(result.figures)
    if absent:
        lines.append("not measured: " + ", ".join(absent))
    return lines


def _mb(size: int | None) -> str:
    return "size unknown" if size is None else f"{size / 1e6:.0f} MB"
