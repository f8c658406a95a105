"""Reading one of Concord's JSON resource files (a gate, the unit table, the context words)
into its model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from concord.errors import InputError, first_validation_error

M = TypeVar("M", bound=BaseModel)


def read_resource_file(path: Path, model: type[M], what: str) -> M:
    """`path` parsed as JSON and validated as `model`. Any problem raises InputError naming
    the file: "cannot read gate file: ..." or "invalid gate file at rules.0.concept: ..."."""
    try:
        return model.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read {what}: {exc}", subject=path) from exc
    except ValidationError as exc:
        where, problem = first_validation_error(exc)
        where = where or "top level"
        raise InputError(f"invalid {what} at {where}: {problem}", subject=path) from exc
