"""Labels export: every decision exactly once, as JSONL or CSV, written atomically."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from concord.atomic_io import write_text_atomically
from concord.domain import Decision
from concord.store.codec import to_json, utc_iso
from concord.store.repository import Repository
from concord.store.rows import ExportResult

LABEL_FIELDS = (
    "decision_id",
    "case_id",
    "target_id",
    "target_kind",
    "action",
    "original_value",
    "new_value",
    "reason",
    "user",
    "at",
    "shown",
    "blind",
    "spans",
    "role",
    "signature",
    "payload_version",
    "seq",
)
"""Columns of a label, in file order. `original_value` is what the judge showed,
`new_value` the human value, `shown` the hashes of model, prompt and inputs shown, `role` the
decider's role (an annotator's label never counts for a clinical sign-off), `signature` the
decider's Ed25519 signature of the decision, `payload_version` which fields it covers
(`Decision.SIGNED_FIELDS`), `seq` the decision's place in the audit chain (the order of the
file; a later decision on the same target supersedes an earlier one)."""

_CSV_JSON_FIELDS = ("original_value", "new_value", "shown", "spans")


def label(decision: Decision) -> dict[str, Any]:
    data = decision.model_dump(mode="json")
    data["at"] = utc_iso(decision.at)
    return {field: data[field] for field in LABEL_FIELDS}


def _write_jsonl(labels: list[dict[str, Any]]) -> Callable[[IO[str]], None]:
    def write(handle: IO[str]) -> None:
        for row in labels:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")

    return write


def _write_csv(labels: list[dict[str, Any]]) -> Callable[[IO[str]], None]:
    def write(handle: IO[str]) -> None:
        writer = csv.DictWriter(handle, fieldnames=LABEL_FIELDS)
        writer.writeheader()
        for row in labels:
            flat = {k: to_json(v) if k in _CSV_JSON_FIELDS else v for k, v in row.items()}
            writer.writerow(flat)

    return write


def _export(
    repo: Repository, path: Path, kind: str, writer: Callable[..., Any], user: str | None
) -> ExportResult:
    labels = [label(d) for d in repo.decisions()]
    sha256 = write_text_atomically(Path(path), writer(labels))
    repo.record_export(kind=kind, path=path, rows=len(labels), sha256=sha256, user=user)
    return ExportResult(path=str(path), rows=len(labels), sha256=sha256)


def export_labels_jsonl(repo: Repository, path: Path, user: str | None = None) -> ExportResult:
    """One decision per line, every decision exactly once, in append order."""
    return _export(repo, path, "labels jsonl", _write_jsonl, user)


def export_labels_csv(repo: Repository, path: Path, user: str | None = None) -> ExportResult:
    """Same columns as the JSONL; structured values (values, shown, spans) as JSON text."""
    return _export(repo, path, "labels csv", _write_csv, user)
