"""Evidence packs as JSONL: one EvidenceLine object per line (the interchange format)."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from concord.domain import EvidenceLine
from concord.errors import InputError
from concord.records.files import read_text
from concord.records.validation import summarise_validation_error


def read_evidence_jsonl(path: Path | str) -> list[EvidenceLine]:
    """Every evidence line in the file, in order; blank lines are skipped and an empty file
    gives []. Raises InputError naming the file and the 1-based line number of a bad line."""
    path = Path(path)
    lines: list[EvidenceLine] = []
    for number, raw in enumerate(read_text(path, allow_empty=True).split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
            lines.append(EvidenceLine.model_validate(data))
        except json.JSONDecodeError as exc:
            raise InputError(
                f"line {number}: malformed JSON at column {exc.colno}: {exc.msg}", subject=path
            ) from exc
        except ValidationError as exc:
            problem = summarise_validation_error(exc)
            raise InputError(
                f"line {number}: not an evidence line: {problem}", subject=path
            ) from exc
        except (RecursionError, ValueError) as exc:
            raise InputError(
                f"line {number}: unreadable JSON ({type(exc).__name__})", subject=path
            ) from exc
    return lines
