"""backup, restore: the database through SQLite's backup API (never a file copy)."""

from __future__ import annotations

import argparse
from pathlib import Path

from concord import paths
from concord.cli._common import NOT_SIGNED_IN, add_json_flag, claimed_user, emit_json
from concord.store.backup import DatabaseCheck, backup_database, restore_database


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("backup", help="write a consistent, checked copy of the database")
    p.add_argument("file", type=Path, metavar="FILE")
    p.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    add_json_flag(p)
    p.set_defaults(func=cmd_backup)

    p = sub.add_parser(
        "restore", help="replace the database with a backup, after checking its integrity"
    )
    p.add_argument("file", type=Path, metavar="FILE")
    p.add_argument(
        "--force",
        action="store_true",
        help="replace the database even if it holds audit rows the backup lacks, or is unreadable",
    )
    p.add_argument("--user", help="who is restoring (default: $CONCORD_USER or login name)")
    add_json_flag(p)
    p.set_defaults(func=cmd_restore)


def _summary(check: DatabaseCheck) -> dict[str, object]:
    return {
        "path": check.path,
        "schema_version": check.schema_version,
        "audit_rows": check.audit_rows,
        "audit_head_seq": check.audit_head[0],
        "audit_head_hash": check.audit_head[1],
        "decisions": check.decisions,
        "sha256": check.sha256,
    }


def cmd_backup(args: argparse.Namespace) -> int:
    check = backup_database(paths.database_path(), args.file, overwrite=args.force)
    if args.json:
        emit_json(_summary(check))
    else:
        print(
            f"backup written to {check.path}: {check.decisions} decision(s), "
            f"audit chain of {check.audit_rows} row(s) intact, sha256 {check.sha256[:16]}…"
        )
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    # A restore replaces a database that may be damaged, so nobody is signed in against it:
    # the claimed name is recorded as such.
    result = restore_database(
        args.file, paths.database_path(), force=args.force, user=claimed_user(args) + NOT_SIGNED_IN
    )
    if args.json:
        emit_json({**_summary(result.restored), "safety_copy": result.safety_copy})
    else:
        kept = f"; previous database kept as {result.safety_copy}" if result.safety_copy else ""
        print(
            f"restored {args.file}: {result.restored.decisions} decision(s), audit chain of "
            f"{result.restored.audit_rows} row(s) intact{kept}"
        )
    return 0
