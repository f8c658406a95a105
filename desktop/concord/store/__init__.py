"""SQLite store: migrations, the repository, the hash-chained audit trail, label export."""

from concord.store.audit import AuditEntry, AuditReport, append_audit, verify_chain
from concord.store.connection import open_database
from concord.store.export import export_labels_csv, export_labels_jsonl
from concord.store.migrations import MIGRATIONS, Migration, migrate, schema_version
from concord.store.repository import Repository
from concord.store.rows import (
    CaseSummary,
    ExportResult,
    RecordSummary,
    Signature,
    User,
    UserRole,
)
from concord.store.transaction import write_transaction

__all__ = [
    "MIGRATIONS",
    "AuditEntry",
    "AuditReport",
    "CaseSummary",
    "ExportResult",
    "Migration",
    "RecordSummary",
    "Repository",
    "Signature",
    "User",
    "UserRole",
    "append_audit",
    "export_labels_csv",
    "export_labels_jsonl",
    "migrate",
    "open_database",
    "schema_version",
    "verify_chain",
    "write_transaction",
]
