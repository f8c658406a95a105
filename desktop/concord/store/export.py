"""Labels export: every decision exactly once (local ones in append order, then those merged
from other workstations' label packages), with how it was given, as JSONL or CSV, written
atomically."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any

from concord.atomic_io import write_text_atomically
from concord.domain import Decision, LabelProvenance, Severity, TargetRef, TargetRefError
from concord.domain.decision import SIGNED_FIELDS_V1
from concord.domain.decision_history import standing_decisions
from concord.store.codec import to_json, utc_iso
from concord.store.label_store import LabelStore
from concord.store.repository import Repository
from concord.store.rows import ExportResult

DECISION_FIELDS = (*SIGNED_FIELDS_V1, "signature", "payload_version", "seq")
"""The export's columns: the fields a version-1 decision signs, then how it was signed and
its place in the chain."""
PROVENANCE_FIELDS = (
    "bulk",
    "golden_shown",
    "seconds_on_item",
    "judge_run",
    "set_id",
    "set_sha256",
)
LABEL_FIELDS = (*DECISION_FIELDS, *PROVENANCE_FIELDS, "unsafe", "rater", "origin")
"""Columns of a label, in file order. `original_value` is what the judge showed,
`new_value` the human value, `shown` the hashes of model, prompt and inputs shown, `blind`
whether the judge's value was hidden, `role` the decider's role (an annotator's label never
counts for a clinical sign-off), `signature` the decider's Ed25519 signature of the decision,
`payload_version` which fields it covers (`Decision.SIGNED_FIELDS`), `seq` the decision's
place in the audit chain (the order of the file; a later decision on the same target
supersedes an earlier one). How it was given: `bulk` (accepted with others by one key),
`golden_shown` (EVAL: the expert answers were on screen), `seconds_on_item`, `judge_run`
(the run or reward model shown), `set_id` / `set_sha256` (the QA or EVAL set and its
content hash): null where not applicable or not recorded (decisions from before provenance
was kept). `unsafe`: the severity of the rater's own harm mark covering this label's answer
or sentence, else null. `rater`: who gave it as this installation names them
(`name@installation` for a label merged from another installation), `origin`: "local" or
"package:<id>"."""

_CSV_JSON_FIELDS = ("original_value", "new_value", "shown", "spans")


def _covers(mark: TargetRef, target_id: str) -> bool:
    """Does a harm mark cover the judgement `target_id` (same answer; same sentence)?"""
    try:
        ref = TargetRef.parse(target_id)
    except TargetRefError:
        return False
    if ref.subject != mark.subject or ref.kind.is_case:
        return False
    if mark.sentence_number is None:
        return True
    return ref.sentence_number == mark.sentence_number


def _unsafe(decisions: Iterable[tuple[Decision, str]]) -> Callable[[Decision, str], str | None]:
    """For a (decision, rater): the most severe standing harm mark of theirs covering it."""
    marks: dict[tuple[str, str], list[tuple[TargetRef, Severity]]] = {}
    pairs = list(decisions)
    raters = {d.decision_id: r for d, r in pairs}
    for d in standing_decisions([d for d, _ in pairs]):
        if d.target_kind.is_harm and d.new_value in {s.value for s in Severity}:
            key = (raters[d.decision_id], d.case_id)
            marks.setdefault(key, []).append((TargetRef.parse(d.target_id), Severity(d.new_value)))

    def find(decision: Decision, rater: str) -> str | None:
        found = [
            severity
            for (who, _case), held in marks.items()
            if who == rater
            for mark, severity in held
            if _covers(mark, decision.target_id)
        ]
        return min(found, key=lambda s: s.rank).value if found else None

    return find


def label(
    decision: Decision,
    provenance: LabelProvenance | None = None,
    *,
    rater: str | None = None,
    origin: str = "local",
    unsafe: str | None = None,
) -> dict[str, Any]:
    data = decision.model_dump(mode="json")
    data["at"] = utc_iso(decision.at)
    row = {name: data[name] for name in DECISION_FIELDS}
    how = provenance.model_dump(mode="json") if provenance is not None else {}
    row.update({name: how.get(name) for name in PROVENANCE_FIELDS})
    row.update(unsafe=unsafe, rater=rater or decision.user, origin=origin)
    return row


def all_labels(repo: Repository) -> list[dict[str, Any]]:
    """Every decision held, local then merged, each once, as an export row."""
    store = LabelStore(repo)
    provenance = store.provenance()
    local = [(d, provenance.get(d.decision_id), d.user, "local") for d in repo.decisions()]
    merged = [
        (m.decision, m.provenance, m.rater, f"package:{m.package_id}")
        for m in store.merged_labels()
    ]
    rows = [*local, *merged]
    unsafe = _unsafe((d, rater) for d, _p, rater, _o in rows)
    return [
        label(d, p, rater=rater, origin=origin, unsafe=unsafe(d, rater))
        for d, p, rater, origin in rows
    ]


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
            writer.writerow({k: "" if v is None else v for k, v in flat.items()})

    return write


def _export(
    repo: Repository, path: Path, kind: str, writer: Callable[..., Any], user: str | None
) -> ExportResult:
    labels = all_labels(repo)
    sha256 = write_text_atomically(Path(path), writer(labels))
    repo.record_export(kind=kind, path=path, rows=len(labels), sha256=sha256, user=user)
    return ExportResult(path=str(path), rows=len(labels), sha256=sha256)


def export_labels_jsonl(repo: Repository, path: Path, user: str | None = None) -> ExportResult:
    """One decision per line, every decision exactly once, local in append order then merged;
    provenance keys are null where not applicable."""
    return _export(repo, path, "labels jsonl", _write_jsonl, user)


def export_labels_csv(repo: Repository, path: Path, user: str | None = None) -> ExportResult:
    """Same columns as the JSONL; structured values (values, shown, spans) as JSON text, and
    an empty cell for null."""
    return _export(repo, path, "labels csv", _write_csv, user)
