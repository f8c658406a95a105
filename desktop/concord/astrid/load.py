"""Reading QA items from JSONL or CSV. All or nothing: the first bad row stops the load.

JSONL: one object per line with `question`, `context` (a string or a list of strings),
`answer`, and optional `id`, `scope` (in/out), and labels either flat (`cf`, `cr`, `ra`,
`harmful`, `helpful`, `inappropriate`) or inside a `labels` object.
CSV (UTF-8, header row): the same columns; more chunks in `context_2`, `context_3`, ...,
or a JSON list in `context`. Empty cells are missing values.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from concord.astrid.items import HumanLabels, QaItem, default_item_id
from concord.errors import InputError, validation_problem

REQUIRED_FIELDS = ("question", "context", "answer")
LABEL_FIELDS = ("cf", "cr", "ra", "harmful", "helpful", "inappropriate")
OPTIONAL_FIELDS = ("id", "scope", "labels", *LABEL_FIELDS)
_EXTRA_CONTEXT = re.compile(r"^context_(\d+)$")
_TRUE = {"yes", "y", "true", "1", "high"}
_FALSE = {"no", "n", "false", "0", "low"}
_SCOPES = {
    "in": "in",
    "in-scope": "in",
    "in_scope": "in",
    "out": "out",
    "out-of-scope": "out",
    "out_of_scope": "out",
}
SUFFIXES = (".jsonl", ".csv")


def _flag(value: Any, name: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    text = str(value).strip().lower()
    if text == "":
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"{name} must be yes or no, got {value!r}")


def _cf(value: Any) -> float | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    try:
        return float(value)
    except (TypeError, ValueError):
        flag = _flag(value, "cf")
        return None if flag is None else float(flag)


def _scope(value: Any) -> str | None:
    if value is None or not str(value).strip():
        return None
    key = str(value).strip().lower()
    if key not in _SCOPES:
        raise ValueError(f"scope must be in or out, got {value!r}")
    return _SCOPES[key]


def _inappropriate(value: Any) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    text = str(value).strip().lower()
    if text == "slightly":
        return "slightly"
    flag = _flag(value, "inappropriate")
    return None if flag is None else ("yes" if flag else "no")


def _context(value: Any, extra: list[Any]) -> list[str]:
    if isinstance(value, str) and value.lstrip().startswith("["):
        with contextlib.suppress(ValueError, RecursionError):  # not a JSON list: plain text
            value = json.loads(value)
    chunks = list(value) if isinstance(value, list) else [value]
    chunks += [e for e in extra if e is not None and str(e).strip()]
    if not chunks or any(not isinstance(c, str) for c in chunks):
        raise ValueError("context must be text or a list of texts")
    if not any(c.strip() for c in chunks):
        raise ValueError("context is empty")
    return chunks


def build_item(fields: Mapping[str, Any], extra_context: list[Any] | None = None) -> QaItem:
    """One item from already-split fields; ValueError/ValidationError on a bad value."""
    missing = [
        f
        for f in REQUIRED_FIELDS
        if fields.get(f) is None or (isinstance(fields.get(f), str) and not fields[f].strip())
    ]
    if missing:
        raise ValueError(f"missing or empty {', '.join(missing)}")
    for name in ("question", "answer"):
        if not isinstance(fields[name], str):
            raise ValueError(f"{name} must be text")
    if not isinstance(fields.get("labels") or {}, dict):
        raise ValueError("labels must be an object")
    labels_in = dict(fields.get("labels") or {})
    for name in LABEL_FIELDS:
        if fields.get(name) is not None:
            if name in labels_in:
                raise ValueError(f"label {name} given twice (flat and in labels)")
            labels_in[name] = fields[name]
    unknown = set(labels_in) - set(LABEL_FIELDS)
    if unknown:
        raise ValueError(f"unknown label(s) {', '.join(sorted(unknown))}")
    labels = HumanLabels(
        cf=_cf(labels_in.get("cf")),
        cr=_flag(labels_in.get("cr"), "cr"),
        ra=_flag(labels_in.get("ra"), "ra"),
        harmful=_flag(labels_in.get("harmful"), "harmful"),
        helpful=_flag(labels_in.get("helpful"), "helpful"),
        inappropriate=_inappropriate(labels_in.get("inappropriate")),
    )
    context = _context(fields["context"], extra_context or [])
    raw_id = fields.get("id")
    item_id = (
        str(raw_id).strip()
        if raw_id is not None and str(raw_id).strip()
        else (default_item_id(fields["question"], context, fields["answer"]))
    )
    return QaItem(
        item_id=item_id,
        question=fields["question"],
        context=tuple(context),
        answer=fields["answer"],
        scope=_scope(fields.get("scope")),
        labels=labels,
    )


def _problem(exc: Exception) -> str:
    return validation_problem(exc) if isinstance(exc, ValidationError) else str(exc)


def _read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError("file does not exist", subject=path) from None
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", subject=path) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"not UTF-8 text (byte {exc.start}); save the file as UTF-8", subject=path
        ) from None
    if not text.strip():
        raise InputError("file is empty", subject=path)
    return text


def _jsonl_rows(path: Path, text: str) -> Iterable[tuple[int, dict[str, Any], list[Any]]]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"line {number}: not valid JSON ({exc.msg})", subject=path) from None
        except (RecursionError, ValueError) as exc:  # nested too deeply, huge number literal
            raise InputError(
                f"line {number}: unreadable JSON ({type(exc).__name__})", subject=path
            ) from None
        if not isinstance(row, dict):
            raise InputError(f"line {number}: each line must be a JSON object", subject=path)
        unknown = set(row) - set(REQUIRED_FIELDS) - set(OPTIONAL_FIELDS)
        if unknown:
            raise InputError(
                f"line {number}: unknown field(s) {', '.join(sorted(unknown))}", subject=path
            )
        yield number, row, []


def _csv_rows(path: Path, text: str) -> Iterable[tuple[int, dict[str, Any], list[Any]]]:
    try:
        yield from _csv_rows_unchecked(path, text)
    except csv.Error as exc:  # e.g. a cell over the csv module's field size limit
        raise InputError(f"unreadable CSV ({exc})", subject=path) from None


def _csv_rows_unchecked(path: Path, text: str) -> Iterable[tuple[int, dict[str, Any], list[Any]]]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = [h.strip() for h in (reader.fieldnames or [])]
    missing = [f for f in REQUIRED_FIELDS if f not in header]
    if missing:
        raise InputError(
            f"missing column(s) {', '.join(missing)} (header: {', '.join(header)})", subject=path
        )
    extra_cols = sorted((int(m.group(1)), h) for h in header if (m := _EXTRA_CONTEXT.match(h)))
    known = set(REQUIRED_FIELDS) | set(OPTIONAL_FIELDS) - {"labels"} | {h for _, h in extra_cols}
    unknown = [h for h in header if h not in known]
    if unknown:
        raise InputError(f"unknown column(s) {', '.join(unknown)}", subject=path)
    if len(set(header)) != len(header):
        raise InputError("a column name appears twice in the header", subject=path)
    reader.fieldnames = header
    for row in reader:
        number = reader.line_num
        if None in row:
            raise InputError(f"line {number}: more cells than columns", subject=path)
        fields = {
            k: (v if v is None or v.strip() else None)
            for k, v in row.items()
            if not _EXTRA_CONTEXT.match(k)
        }
        yield number, fields, [row[h] for _, h in extra_cols]


def load_items(path: str | Path) -> list[QaItem]:
    """Every item in a .jsonl or .csv file, or InputError naming the file and line."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise InputError(
            f"QA items must be .jsonl or .csv, not {suffix or 'no suffix'!r}", subject=path
        )
    text = _read_text(path)
    rows = _jsonl_rows(path, text) if suffix == ".jsonl" else _csv_rows(path, text)
    items: list[QaItem] = []
    seen: dict[str, int] = {}
    for number, fields, extra in rows:
        try:
            item = build_item(fields, extra)
        except (ValueError, ValidationError) as exc:
            raise InputError(f"line {number}: {_problem(exc)}", subject=path) from None
        if item.item_id in seen:
            raise InputError(
                f"line {number}: item id {item.item_id!r} already used on line "
                f"{seen[item.item_id]}",
                subject=path,
            )
        seen[item.item_id] = number
        items.append(item)
    if not items:
        raise InputError("no QA items in file", subject=path)
    return items


__all__ = ["LABEL_FIELDS", "REQUIRED_FIELDS", "build_item", "load_items"]
