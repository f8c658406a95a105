"""Whitespace normalisation: what EXACT forgives."""

from __future__ import annotations

import re

_TOKEN = re.compile(r"\S+")


def normalize_whitespace(text: str) -> str:
    """Runs of whitespace -> one space; no leading or trailing whitespace."""
    return " ".join(_TOKEN.findall(text))
