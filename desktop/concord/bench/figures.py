"""A benchmark figure: a value, what it was compared with, its target, and whether it met it.

A figure never hides a miss: `met` is computed here from the value and the target, never
passed in. A figure that could not be measured has value None and `met` None, with a note
saying why; it is listed apart from the misses, never as met.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    "<": operator.lt,
    ">": operator.gt,
}


@dataclass(frozen=True)
class Target:
    op: str  # one of >=, <=, <, >
    value: float

    def __post_init__(self) -> None:
        if self.op not in _OPS:
            raise ValueError(f"unknown target operator {self.op!r}")

    def holds(self, value: float) -> bool:
        return _OPS[self.op](value, self.value)

    def text(self, unit: str) -> str:
        symbol = {">=": "≥", "<=": "≤"}.get(self.op, self.op)
        return f"{symbol} {_number(self.value)}{_unit_suffix(unit)}"


@dataclass(frozen=True)
class Figure:
    name: str
    value: float | None
    unit: str
    compared_with: str
    target: Target | None = None
    note: str = ""
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def met(self) -> bool | None:
        """True/False against the target; None when there is no target or no value."""
        if self.target is None or self.value is None:
            return None
        if isinstance(self.value, float) and math.isnan(self.value):
            return False
        return self.target.holds(self.value)

    @property
    def status(self) -> str:
        if self.value is None:
            return "NOT MEASURED"
        met = self.met
        if met is None:
            return "reference"
        return "met" if met else "MISSED"

    def as_json(self) -> dict[str, Any]:
        return {
            "value": _rounded(self.value),
            "unit": self.unit,
            "target": None
            if self.target is None
            else {"op": self.target.op, "value": _rounded(self.target.value)},
            "met": self.met,
            "status": self.status,
            "compared_with": self.compared_with,
            "note": self.note,
            "detail": self.detail,
        }


def ratio(numerator: float, denominator: float) -> float | None:
    """numerator / denominator, or None when the denominator is not positive."""
    return numerator / denominator if denominator > 0 else None


def _rounded(value: float | None) -> float | None:
    if value is None:
        return None
    return round(float(value), 4 if abs(value) < 10 else 2)


def _number(value: float) -> str:
    if value == int(value) and abs(value) >= 1:
        return str(int(value))
    return f"{value:.3g}" if abs(value) < 10 else f"{value:.1f}"


def _unit_suffix(unit: str) -> str:
    if unit == "x":
        return "×"
    if unit == "share":
        return ""
    return f" {unit}"


def format_value(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    if unit == "share":
        return f"{value * 100:.1f}%"
    return f"{_number(value)}{_unit_suffix(unit)}"


def format_target(target: Target | None, unit: str) -> str:
    if target is None:
        return "—"
    if unit == "share":
        symbol = {">=": "≥", "<=": "≤"}.get(target.op, target.op)
        return f"{symbol} {target.value * 100:g}%"
    return target.text(unit)
