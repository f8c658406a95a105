"""Values of judgements and decisions as short text for people, the same in the signed PDF
and in the desktop: "MISS (major)", not a JSON object."""

from __future__ import annotations

from typing import Any


def number(value: float, digits: int = 2) -> str:
    text = f"{value:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def value_text(value: Any) -> str:
    """A decision or trace value as a short, unambiguous string. A disagreement's value
    ({"kind", "severity"}) reads "MISS (major)"; other mappings "key: value, …"; lists are
    comma-separated; None (no value, e.g. a withdrawn decision) is "—"."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return number(value, 3)
    if isinstance(value, int | str):
        return str(value)
    if isinstance(value, dict):
        if set(value) == {"kind", "severity"}:
            return f"{value_text(value['kind'])} ({value_text(value['severity'])})"
        return ", ".join(f"{key}: {value_text(item)}" for key, item in value.items()) or "—"
    if isinstance(value, list | tuple | set | frozenset):
        return ", ".join(value_text(item) for item in value) or "—"
    return str(value)
