"""Resource snapshots and validation reports in the database; acceptances live in the audit
chain (`concord.site.acceptance`). Each write is one transaction with its audit row."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from concord.domain import RESOURCE_PARTS, ResourceVersions
from concord.errors import InputError, NotFoundError, StoreError
from concord.site.figures import ModelReport, ResourcesReport
from concord.store import Repository, append_audit, write_transaction
from concord.store.codec import from_json, to_json, utc_iso, utc_now
from concord.store.sql import insert_row

Report = ModelReport | ResourcesReport
SNAPSHOT_ACTION = "resources snapshot"
VALIDATION_ACTION = "site validate"


def report_json(report: Report) -> str:
    return report.model_dump_json()


def report_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class SiteStore:
    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        self.db = repo.db

    # resource snapshots ---------------------------------------------------------------

    def has_snapshot(self, part: str, sha256: str) -> bool:
        row = self.db.execute(
            "SELECT 1 FROM resource_snapshots WHERE part = ? AND sha256 = ?", [part, sha256]
        ).fetchone()
        return row is not None

    def save_snapshots(
        self, versions: ResourceVersions, files: Mapping[str, Mapping[str, str]], user: str
    ) -> int:
        """Store each part's files under its version unless already stored; returns how
        many were new. The text must hash to the version (`resources.files_sha256`)."""
        new = 0
        with write_transaction(self.db):
            for part in RESOURCE_PARTS:
                sha = getattr(versions, part)
                if self.has_snapshot(part, sha):
                    continue
                text = to_json(dict(files[part]))
                insert_row(
                    self.db.conn,
                    "resource_snapshots",
                    {"part": part, "sha256": sha, "files": text, "stored_at": utc_iso(utc_now())},
                )
                append_audit(
                    self.db.conn,
                    user=user,
                    action=SNAPSHOT_ACTION,
                    entity=f"resources:{part}:{sha}",
                    new_value={"files": sorted(files[part]), "text_sha256": report_sha256(text)},
                )
                new += 1
        return new

    def snapshot(self, part: str, sha256: str) -> dict[str, str]:
        row = self.db.execute(
            "SELECT files FROM resource_snapshots WHERE part = ? AND sha256 = ?", [part, sha256]
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no stored {part} version {sha256[:12]}", subject=part)
        files = from_json(row[0])
        if not isinstance(files, dict):
            raise StoreError(f"stored {part} version {sha256[:12]} is unreadable")
        return {str(k): str(v) for k, v in files.items()}

    def snapshots(self, versions: ResourceVersions) -> dict[str, dict[str, str]]:
        return {part: self.snapshot(part, getattr(versions, part)) for part in RESOURCE_PARTS}

    # validation reports ---------------------------------------------------------------

    def save_report(self, report: Report) -> str:
        """Store a report and its audit row (holding its SHA-256); returns that hash."""
        text = report_json(report)
        digest = report_sha256(text)
        model = (
            report.candidate.model_sha256
            if isinstance(report, ModelReport)
            else (report.model_sha256)
        )
        row = {
            "validation_id": report.validation_id,
            "kind": report.kind,
            "created_at": utc_iso(report.created_at),
            "created_by": report.created_by,
            "model_sha256": model,
            "passed": int(report.passed),
            "json": text,
        }
        with write_transaction(self.db):
            try:
                insert_row(self.db.conn, "validations", row)
            except sqlite3.IntegrityError as exc:
                raise StoreError(
                    "a validation is already stored under this id", subject=report.validation_id
                ) from exc
            append_audit(
                self.db.conn,
                user=report.created_by,
                action=VALIDATION_ACTION,
                entity=f"validation:{report.validation_id}",
                new_value={
                    "kind": report.kind,
                    "passed": report.passed,
                    "report_sha256": digest,
                },
                model_sha256=model,
            )
        return digest

    def report_text(self, validation_id: str) -> str:
        row = self.db.execute(
            "SELECT json FROM validations WHERE validation_id = ?", [validation_id]
        ).fetchone()
        if row is None:
            raise NotFoundError("no such validation", subject=validation_id)
        return str(row[0])

    def report(self, validation_id: str) -> Report:
        text = self.report_text(validation_id)
        data = from_json(text)
        kind = data.get("kind") if isinstance(data, dict) else None
        model: type[ModelReport] | type[ResourcesReport] = (
            ResourcesReport if kind == "resources" else ModelReport
        )
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            raise StoreError(f"stored validation is unreadable: {exc.errors()[0]['msg']}") from exc

    def list_reports(self) -> list[dict[str, Any]]:
        rows = self.db.query(
            "SELECT validation_id, kind, created_at, created_by, model_sha256, passed "
            "FROM validations ORDER BY created_at, rowid"
        )
        return [dict(r) | {"passed": bool(r["passed"])} for r in rows]

    def audited_report_sha256(self, validation_id: str) -> str | None:
        row = self.db.execute(
            "SELECT new_value FROM audit WHERE action = ? AND entity = ? ORDER BY seq LIMIT 1",
            [VALIDATION_ACTION, f"validation:{validation_id}"],
        ).fetchone()
        value = from_json(row[0]) if row else None
        return str(value.get("report_sha256")) if isinstance(value, dict) else None


def require_report(store: SiteStore, validation_id: str) -> Report:
    """The stored report, refused when it no longer hashes to what its audit row holds."""
    text = store.report_text(validation_id)
    audited = store.audited_report_sha256(validation_id)
    if audited is None or audited != report_sha256(text):
        raise InputError(
            "the stored validation report differs from the one audited", subject=validation_id
        )
    return store.report(validation_id)
