"""File → Export labels… and the Agreement page's export: the same export as
`concord export-labels --out FILE.jsonl --csv FILE.csv`, written from the database thread."""

from __future__ import annotations

from pathlib import Path

from concord.store import ExportResult, Repository, export_labels_csv, export_labels_jsonl


def export_labels(repo: Repository, path: Path, user: str) -> list[ExportResult]:
    """Every label with its provenance: `path` as JSONL and the same name with .csv."""
    jsonl = path if path.suffix.lower() == ".jsonl" else path.with_suffix(".jsonl")
    return [
        export_labels_jsonl(repo, jsonl, user),
        export_labels_csv(repo, jsonl.with_suffix(".csv"), user),
    ]
