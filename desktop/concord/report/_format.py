"""Turning domain values into short human text (no markup here)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from concord.domain import Decision, Record, Span
from concord.domain.decision_history import chain_order
from concord.report.values import value_text


def utc(moment: dt.datetime) -> dt.datetime:
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("time must be timezone-aware")
    return moment.astimezone(dt.UTC)


def iso_utc(moment: dt.datetime) -> str:
    """2025-03-14T10:02:11Z"""
    return utc(moment).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def human_utc(moment: dt.datetime) -> str:
    """2025-03-14 10:02:11 UTC"""
    return utc(moment).strftime("%Y-%m-%d %H:%M:%S UTC")


def inputs_text(inputs: dict[str, Any]) -> str:
    """'matched = 2; coverage (value = 0.5, weight = 0.3)' — one level of nesting spelled out."""
    parts = []
    for key, value in inputs.items():
        if isinstance(value, dict) and value:
            inner = ", ".join(f"{k} = {value_text(v)}" for k, v in value.items())
            parts.append(f"{key} ({inner})")
        else:
            parts.append(f"{key} = {value_text(value)}")
    return "; ".join(parts) or "(none)"


def short_hash(value: str, length: int = 12) -> str:
    return value[:length] if value else "—"


def locate(record: Record, span: Span) -> str:
    """'Echo report 02/03, line L7, chars 31–42' (page too, for paged PDFs)."""
    try:
        doc = record.document(span.source_id)
    except KeyError:
        return f"{span.source_id} (unknown document), chars {span.start}–{span.end}"
    parts = [doc.title or doc.source_id]
    page = doc.page_of(span.start)
    if page is not None:
        parts.append(f"page {page}")
    for line in record.lines:
        if line.source_id == span.source_id and line.start <= span.start <= line.end:
            parts.append(f"line {line.line_id}")
            break
    parts.append(f"chars {span.start}–{span.end}")
    return ", ".join(parts)


def decision_history(decisions: Iterable[Decision]) -> dict[str, list[Decision]]:
    """Decisions grouped by target in audit-chain order; the last of each list is in force
    (the chain says which came last, not the decisions' clocks)."""
    groups: dict[str, list[Decision]] = {}
    for d in chain_order(decisions):
        groups.setdefault(d.target_id, []).append(d)
    return groups
