"""Audit anchors: the chain's head, written outside the database after every commit.

An anchor file is append-only text, one line per committed write: ``seq hash at``. Each write
is fsync'ed. `concord audit verify` checks every anchored (seq, hash) against the chain: a
chain that was truncated (even with `sqlite_sequence` wound back), rewritten from an edited
row on, or wiped, no longer contains the anchored heads.

Anchors are written beside the database (``concord.sqlite.anchors``) and to every file listed
by the administrator in ``CONCORD_HOME/anchors.json`` -- ``{"anchors": ["/mnt/worm/ws12"]}``
-- which a site points at storage the workstation's users cannot rewrite (a write-once
share, a log host). A head file on the workstation itself only helps against someone who
edits the database and forgets it; the README says what each placement buys.

The list itself is kept in the chain: the first write after ``anchors.json`` changes (a file
added, dropped, or the whole file deleted) appends an ``anchors configured`` row holding the
new list (`note_anchor_config`), so `audit verify` can tell that an anchor was dropped, and
that a listed one is missing or stopped growing (its last head is behind the chain's).

File format (STYLE rule 14): version 1 is the line ``seq hash at``; a file Concord creates
starts with the line ``# concord-anchors/1``, and a file without it is version 1 too.
"""

from __future__ import annotations

import json
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path

from sqlite_utils import Database

from concord import paths
from concord.store.audit import append_audit, has_signed_rows
from concord.store.codec import from_json, system_user, utc_iso, utc_now

ANCHOR_SUFFIX = ".anchors"
CONFIG_FILE = "anchors.json"
ANCHOR_CONFIG_ACTION = "anchors configured"
"""The audit action that records the configured anchor files when they change."""
FORMAT_LINE = "# concord-anchors/1"
_FORMAT = re.compile(r"^# concord-anchors/(\d+)$")
_audited_config: dict[str, list[str]] = {}
"""database file -> the anchor list the chain last recorded (read once per process)."""
_LINE = re.compile(r"^(\d+) ([0-9a-f]{64}) (\S+)$")
_log = logging.getLogger(__name__)
_written: dict[str, int] = {}
"""anchor file -> highest seq this process appended (skip repeating an unchanged head)."""


@dataclass(frozen=True)
class AnchoredHead:
    path: str
    line: int
    seq: int
    hash: str
    at: str


def database_path(db: Database) -> Path | None:
    row = db.conn.execute("PRAGMA database_list").fetchone()
    return Path(row[2]) if row and row[2] else None


def configured_anchor_files() -> list[Path]:
    """Extra anchor files from ``CONCORD_HOME/anchors.json`` (none when absent)."""
    config = paths.concord_home(create=False) / CONFIG_FILE
    if not config.is_file():
        return []
    try:
        listed = json.loads(config.read_text(encoding="utf-8")).get("anchors", [])
    except (OSError, ValueError, AttributeError) as exc:
        _log.warning("%s: cannot be read (%s); no extra audit anchors written", config, exc)
        return []
    return [Path(p) for p in listed if isinstance(p, str) and p]


def anchor_files(db: Database) -> list[Path]:
    """The anchor beside the database, then the configured ones."""
    database = database_path(db)
    beside = [database.with_name(database.name + ANCHOR_SUFFIX)] if database else []
    return beside + configured_anchor_files()


def record_head(db: Database) -> None:
    """Append the committed head to every anchor file. Called after COMMIT: the database
    write has happened whatever befalls the anchor, so a failure here is logged, not raised
    (the anchor then lags the chain, which verification allows)."""
    row = db.conn.execute("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1").fetchone()
    if row is None:
        return
    seq, head = int(row[0]), str(row[1])
    line = f"{seq} {head} {utc_iso(utc_now())}\n".encode("ascii")
    for path in anchor_files(db):
        key = str(path)
        if _written.get(key, 0) >= seq:
            continue
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                if os.fstat(fd).st_size == 0:
                    os.write(fd, FORMAT_LINE.encode("ascii") + b"\n")
                os.write(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            _log.warning("%s: audit anchor not written (%s)", path, exc.strerror or exc)
            continue
        _written[key] = seq


def read_anchor(path: Path) -> tuple[list[AnchoredHead], list[str]]:
    """(heads, problems) of one anchor file; a missing file has neither."""
    try:
        text = path.read_text(encoding="ascii", errors="replace")
    except FileNotFoundError:
        return [], []
    except OSError as exc:
        return [], [f"{path}: cannot be read ({exc.strerror or exc})"]
    heads: list[AnchoredHead] = []
    problems: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        match = _LINE.match(raw.strip())
        version = _FORMAT.match(raw.strip())
        if version is not None and int(version[1]) != 1:
            problems.append(
                f"{path}:{number}: anchor format {version[1]} is newer than this Concord"
            )
            break
        if match is None and version is None:
            if raw.strip():
                problems.append(f"{path}:{number}: not an anchor line")
            continue
        if match is None:
            continue
        heads.append(AnchoredHead(str(path), number, int(match[1]), match[2], match[3]))
    return heads, problems


def _last_audited_config(db: Database, key: str) -> list[str]:
    if key not in _audited_config:
        row = db.conn.execute(
            "SELECT new_value FROM audit WHERE action = ? ORDER BY seq DESC LIMIT 1",
            [ANCHOR_CONFIG_ACTION],
        ).fetchone()
        value = from_json(row[0]) if row else None
        files = value.get("files") if isinstance(value, dict) else None
        _audited_config[key] = [str(f) for f in files] if isinstance(files, list) else []
    return _audited_config[key]


def note_anchor_config(db: Database) -> None:
    """Inside a write transaction: if the anchor files listed in ``anchors.json`` differ from
    the list the chain last recorded, record the new list (who ran the write, the OS login:
    the file is the administrator's, not a Concord user's)."""
    if not has_signed_rows(db.conn):
        return  # before migration 5 (or while migrating): nothing is recorded yet
    database = database_path(db)
    key = str(database) if database else ""
    files = [str(p) for p in configured_anchor_files()]
    if files == _last_audited_config(db, key):
        return
    append_audit(
        db.conn,
        user=system_user(),
        action=ANCHOR_CONFIG_ACTION,
        entity=f"file:{paths.concord_home(create=False) / CONFIG_FILE}",
        new_value={"files": files},
    )
    _audited_config[key] = files


def forget_audited_config(db: Database) -> None:
    """After a rolled-back write, read the recorded list again next time."""
    database = database_path(db)
    _audited_config.pop(str(database) if database else "", None)
