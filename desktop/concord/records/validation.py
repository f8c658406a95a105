"""Turning a pydantic ValidationError into one readable line."""

from __future__ import annotations

from pydantic import ValidationError

_MAX_INPUT_CHARS = 40


def summarise_validation_error(exc: ValidationError) -> str:
    """The first problem as 'field.path: message', plus how many others there were."""
    errors = exc.errors(include_url=False)
    if not errors:
        return "invalid structure"
    first = errors[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "top level"
    line = f"{where}: {first.get('msg', 'invalid')}"
    if len(errors) > 1:
        line += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    return line
