"""Repository: the one door to the database for the CLI, the UI and the pipeline.

Every write is one transaction together with the audit row that describes it.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from sqlite_utils import Database

from concord.domain import Case, CaseStatus, Decision, Record
from concord.errors import InputError, NotFoundError, StoreError
from concord.store import case_rows
from concord.store.audit import (
    GENESIS_HASH,
    AuditEntry,
    AuditReport,
    append_audit,
    audit_head,
    iter_audit,
    verify_chain,
)
from concord.store.codec import from_json, system_user, utc_iso, utc_now
from concord.store.connection import open_database
from concord.store.decision_rows import (
    audited_content,
    decision_from_row,
    decision_row,
    same_content,
)
from concord.store.rows import CaseSummary, RecordSummary, Signature, User
from concord.store.sql import insert_row
from concord.store.transaction import write_transaction

_RECORD_SUMMARIES = """
SELECT r.record_id, r.name, r.imported_at,
       c.case_id AS latest_case_id, c.status AS latest_status,
       c.worst_grade, c.human_review,
       (SELECT count(*) FROM case_gates g
         WHERE g.case_id = c.case_id AND g.status = 'triggered') AS triggered_gates
  FROM records r
  LEFT JOIN cases c ON c.rowid = (
       SELECT c2.rowid FROM cases c2 WHERE c2.record_id = r.record_id
        ORDER BY c2.created_at DESC, c2.rowid DESC LIMIT 1)
 ORDER BY r.imported_at, r.rowid
"""

_CASE_SUMMARIES = """
SELECT c.case_id, c.record_id, r.name AS record_name, c.status, c.worst_grade,
       c.human_review, c.created_at
  FROM cases c JOIN records r ON r.record_id = c.record_id
 ORDER BY c.created_at, c.rowid
"""


M = TypeVar("M", bound=BaseModel)
USER_REVOKE = "user revoke"
"""The audit action of a signed revocation of a user's account."""


def _case_status(value: CaseStatus | str) -> CaseStatus:
    try:
        return CaseStatus(value)
    except ValueError:
        known = ", ".join(s.value for s in CaseStatus)
        raise InputError(f"unknown case status {value!r} ({known})") from None


def _record_row(record: Record, user: str) -> dict[str, Any]:
    return {
        "record_id": record.record_id,
        "content_hash": record.content_hash,
        "name": record.name,
        "json": record.model_dump_json(),
        "imported_at": utc_iso(utc_now()),
        "imported_by": user,
    }


def _stored(model: type[M], json_text: str, subject: str) -> M:
    """Validate JSON coming out of SQLite into a domain type."""
    try:
        return model.model_validate_json(json_text)
    except ValidationError as exc:
        first = exc.errors()[0]
        problem = f"stored data is not a valid {model.__name__} ({first['loc']}: {first['msg']})"
        raise StoreError(problem, subject=subject) from exc


class Repository:
    """Users, records, cases, decisions, signatures and the audit trail.

    One instance holds one SQLite connection: open one per thread (WAL lets readers and a
    writer work side by side; writers queue on the busy timeout).
    """

    def __init__(self, db: Database) -> None:
        self.db = db

    @classmethod
    def open(cls, path: Path | None = None) -> Repository:
        """Open the database at `path` (default: the one in CONCORD_HOME)."""
        return cls(open_database(path))

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Repository:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _one(self, sql: str, params: list[Any], missing: str, subject: str) -> dict[str, Any]:
        rows = list(self.db.query(sql, params))
        if not rows:
            raise NotFoundError(missing, subject=subject)
        return rows[0]

    # users -----------------------------------------------------------------------------

    def enrol_user(self, statement: dict[str, Any], signature: str, *, legacy: bool) -> None:
        """Store an enrolment (see `concord.accounts.enrolment`): the users row and an audit
        row holding the whole signed statement, together. `legacy`: the name was created
        before credentials existed and is enrolled in place."""
        row = {
            "name": statement["name"],
            "role": statement["role"],
            "created_at": statement["at"],
            "cert_fingerprint": statement["cert_fingerprint"],
            "skeleton": statement["skeleton"],
            "public_key": statement["public_key"],
            "enrolled_by": statement["enrolled_by"],
        }
        with write_transaction(self.db):
            try:
                if legacy:
                    self.db.execute(
                        "UPDATE users SET role = :role, cert_fingerprint = :cert_fingerprint, "
                        "skeleton = :skeleton, public_key = :public_key, "
                        "enrolled_by = :enrolled_by WHERE name = :name AND public_key IS NULL",
                        row,
                    )
                else:
                    insert_row(self.db.conn, "users", row)
            except sqlite3.IntegrityError as exc:
                raise InputError(
                    "user already exists (or a look-alike of the name does)",
                    subject=statement["name"],
                ) from exc
            append_audit(
                self.db.conn,
                user=statement["enrolled_by"],
                action="user enrol",
                entity=f"user:{statement['name']}",
                new_value={"statement": statement, "signature": signature},
            )

    def renew_user(self, statement: dict[str, Any], signature: str) -> None:
        """Store a renewal of an enrolled user's credential (a password change: new keys,
        see `concord.accounts.enrolment.change_password`): the users row takes the new
        public key and certificate, and the audit chain the whole signed statement, as an
        enrolment (action "user enrol") that supersedes the earlier one from here on."""
        with write_transaction(self.db):
            updated = self.db.execute(
                "UPDATE users SET public_key = :public_key, cert_fingerprint = "
                ":cert_fingerprint, enrolled_by = :enrolled_by WHERE name = :name "
                "AND public_key = :renews",
                {
                    "public_key": statement["public_key"],
                    "cert_fingerprint": statement["cert_fingerprint"],
                    "enrolled_by": statement["enrolled_by"],
                    "name": statement["name"],
                    "renews": statement["renews"],
                },
            )
            if updated.rowcount != 1:
                raise InputError(
                    "the credential changed meanwhile (another password change?)",
                    subject=statement["name"],
                )
            append_audit(
                self.db.conn,
                user=statement["enrolled_by"],
                action="user enrol",
                entity=f"user:{statement['name']}",
                reason="credential renewed (password change)",
                new_value={"statement": statement, "signature": signature},
            )

    def enrolment_history(self) -> dict[str, list[tuple[int, dict[str, Any]]]]:
        """name -> the (seq, statement) of each enrolment and renewal in the audit trail, in
        chain order (whether each is validly signed is `concord audit verify`'s to check)."""
        found: dict[str, list[tuple[int, dict[str, Any]]]] = {}
        for row in self.db.query(
            "SELECT seq, new_value FROM audit WHERE action = 'user enrol' ORDER BY seq"
        ):
            value = from_json(row["new_value"])
            if isinstance(value, dict) and isinstance(value.get("statement"), dict):
                statement = value["statement"]
                found.setdefault(str(statement.get("name")), []).append(
                    (int(row["seq"]), statement)
                )
        return found

    def revoke_user(self, statement: dict[str, Any], signature: str) -> None:
        """Store a revocation (see `concord.accounts.revocation`): an audit row holding the
        whole statement signed by the revoking admin. The audit chain, not a column, is
        where a revocation lives, so removing it breaks the chain."""
        name = str(statement["name"])
        with write_transaction(self.db):
            self.get_user(name)
            append_audit(
                self.db.conn,
                user=str(statement["revoked_by"]),
                action=USER_REVOKE,
                entity=f"user:{name}",
                reason=str(statement["reason"]),
                new_value={"statement": statement, "signature": signature},
            )

    def revocations(self) -> dict[str, list[tuple[dict[str, Any], str]]]:
        """name -> the (statement, signature) pairs of revocations in the audit trail, in
        order; whether one is signed by an admin is for the reader to check."""
        found: dict[str, list[tuple[dict[str, Any], str]]] = {}
        rows = self.db.query(
            "SELECT entity, new_value FROM audit WHERE action = ? ORDER BY seq", [USER_REVOKE]
        )
        for row in rows:
            value = from_json(row["new_value"])
            if not isinstance(value, dict) or not isinstance(value.get("statement"), dict):
                continue
            name = str(row["entity"]).partition(":")[2]
            found.setdefault(name, []).append((value["statement"], str(value.get("signature"))))
        return found

    def get_user(self, name: str) -> User:
        row = self._one("SELECT * FROM users WHERE name = ?", [name], "no such user", name)
        return User.model_validate(row)

    def list_users(self) -> list[User]:
        return [User.model_validate(r) for r in self.db.query("SELECT * FROM users ORDER BY name")]

    # records ---------------------------------------------------------------------------

    def save_record(self, record: Record, user: str) -> tuple[str, bool]:
        """Store an imported record. Returns (record_id, created); a record whose content
        is already stored returns the existing id and False (audited as a duplicate)."""
        with write_transaction(self.db):
            found = self.db.execute(
                "SELECT record_id FROM records WHERE content_hash = ?", [record.content_hash]
            ).fetchone()
            record_id = found[0] if found else record.record_id
            if not found:
                insert_row(self.db.conn, "records", _record_row(record, user))
            append_audit(
                self.db.conn,
                user=user,
                action="import" if not found else "import (duplicate)",
                entity=f"record:{record_id}",
                new_value={"content_hash": record.content_hash, "name": record.name},
            )
        return record_id, not found

    def get_record(self, record_id: str) -> Record:
        row = self._one(
            "SELECT json FROM records WHERE record_id = ?", [record_id], "no such record", record_id
        )
        return _stored(Record, row["json"], record_id)

    def list_records(self) -> list[RecordSummary]:
        return [RecordSummary.model_validate(r) for r in self.db.query(_RECORD_SUMMARIES)]

    # cases -----------------------------------------------------------------------------

    def save_case(self, case: Case, user: str, status: CaseStatus | None = None) -> bool:
        """Store a case with its brief, evidence, gate, scorecard and run rows, in one
        transaction, with the status its run ended in (`Case.initial_status`: run failed or
        needs review) unless one is given. Saving the same case again is a no-op (returns
        False); a different case under a stored case_id is refused: a re-run is a new case."""
        status = _case_status(status if status is not None else case.initial_status)
        with write_transaction(self.db):
            if self._case_exists(case):
                return False
            self._require_record(case.record_id)
            self._insert_case_rows(case, status)
            append_audit(
                self.db.conn,
                user=user,
                action="case save",
                entity=f"case:{case.case_id}",
                new_value={
                    "record_id": case.record_id,
                    "status": str(status),
                    "worst_grade": case.worst_grade,
                    "human_review": case.human_review,
                    "json_sha256": case_rows.case_json_sha256(case),
                },
                model_sha256=case.model_sha256,
                prompt_version=case_rows.prompts_digest(case),
            )
        return True

    def _insert_case_rows(self, case: Case, status: CaseStatus) -> None:
        try:
            insert_row(self.db.conn, "cases", case_rows.case_row(case, str(status)))
            for table, rows_of in case_rows.CHILD_TABLES.items():
                for row in rows_of(case):
                    insert_row(self.db.conn, table, row)
            insert_row(self.db.conn, "runs", case_rows.run_row(case))
        except sqlite3.IntegrityError as exc:  # e.g. two briefs from one agent
            raise StoreError(f"case cannot be stored: {exc}", subject=case.case_id) from exc

    def _case_exists(self, case: Case) -> bool:
        row = self.db.execute("SELECT json FROM cases WHERE case_id = ?", [case.case_id]).fetchone()
        if row is None:
            return False
        if _stored(Case, row[0], case.case_id) != _stored(Case, case.model_dump_json(), "new"):
            raise StoreError(
                "a different case is already stored under this id", subject=case.case_id
            )
        return True

    def _require_record(self, record_id: str) -> dict[str, Any]:
        return self._one(
            "SELECT record_id, name FROM records WHERE record_id = ?",
            [record_id],
            "no such record",
            record_id,
        )

    def get_case(self, case_id: str) -> Case:
        row = self._one(
            "SELECT json FROM cases WHERE case_id = ?", [case_id], "no such case", case_id
        )
        return _stored(Case, row["json"], case_id)

    def case_status(self, case_id: str) -> CaseStatus:
        row = self._one(
            "SELECT status FROM cases WHERE case_id = ?", [case_id], "no such case", case_id
        )
        return CaseStatus(row["status"])

    def list_cases(self) -> list[CaseSummary]:
        return [CaseSummary.model_validate(r) for r in self.db.query(_CASE_SUMMARIES)]

    def set_case_status(
        self, case_id: str, status: CaseStatus | str, user: str, reason: str = ""
    ) -> None:
        status = _case_status(status)
        with write_transaction(self.db):
            old = self.case_status(case_id)
            self.db.execute("UPDATE cases SET status = ? WHERE case_id = ?", [str(status), case_id])
            append_audit(
                self.db.conn,
                user=user,
                action="case status",
                entity=f"case:{case_id}",
                old_value=str(old),
                new_value=str(status),
                reason=reason,
            )

    # decisions -------------------------------------------------------------------------

    def append_decision(self, decision: Decision) -> bool:
        """Append a decision and its audit row together; the audit row holds the decision's
        whole stored row (`decision_rows.audited_content`), so the chain, not the table, is
        the record. Returns False (and writes nothing) when the same decision is already
        stored; a different one under its id is refused. Decisions are recorded through
        `concord.decisions.record_decision`, which signs them and keeps the case status."""
        with write_transaction(self.db):
            if self._decision_exists(decision):
                return False
            row = decision_row(decision)
            insert_row(self.db.conn, "decisions", row)
            append_audit(
                self.db.conn,
                user=decision.user,
                action=f"decide ({decision.action})",
                entity=f"decision:{decision.decision_id}",
                old_value={
                    "case_id": decision.case_id,
                    "target_id": decision.target_id,
                    "value": decision.model_dump(mode="json")["original_value"],
                },
                new_value=audited_content(row),
                reason=decision.reason,
                model_sha256=decision.shown.get("model_sha256", ""),
                prompt_version=decision.shown.get("prompt_sha256", ""),
            )
        return True

    def _decision_exists(self, decision: Decision) -> bool:
        rows = list(
            self.db.query("SELECT * FROM decisions WHERE decision_id = ?", [decision.decision_id])
        )
        if not rows:
            return False
        if not same_content(decision_from_row(rows[0]), decision):
            raise StoreError(
                "a different decision is already stored under this id",
                subject=decision.decision_id,
            )
        return True

    def decisions(self, case_id: str | None = None, target_id: str | None = None) -> list[Decision]:
        """Decisions in the order they were appended, optionally for one case / target."""
        sql = "SELECT * FROM decisions WHERE (:case IS NULL OR case_id = :case)"
        sql += " AND (:target IS NULL OR target_id = :target) ORDER BY rowid"
        rows = self.db.query(sql, {"case": case_id, "target": target_id})
        return [decision_from_row(r) for r in rows]

    # signatures ------------------------------------------------------------------------

    def record_signature(
        self,
        case_id: str,
        user: str,
        meaning: str,
        pdf_sha256: str,
        path: Path | str,
        audit_head: tuple[int, str],
        signed_at: datetime | None = None,
        *,
        certificate_sha256: str = "",
        reviewed: int = 0,
        not_reviewed: int = 0,
    ) -> Signature:
        """Record that `user` signed the case's PDF, and mark the case signed, together.
        `audit_head` is the (seq, hash) printed in the PDF; it must exist in the trail. A
        signature of an amended case supersedes the case's latest earlier signature."""
        moment = utc_iso(signed_at or utc_now(), what="signed_at")
        with write_transaction(self.db):
            old = self.case_status(case_id)
            if not old.signable:
                raise InputError(f"case is '{old.value}': it cannot be signed", subject=case_id)
            self._check_head(*audit_head)
            earlier = self.latest_signature(case_id)
            row = {
                "case_id": case_id,
                "user": user,
                "signed_at": moment,
                "meaning": meaning,
                "pdf_sha256": pdf_sha256,
                "path": str(path),
                "audit_head_seq": audit_head[0],
                "audit_head_hash": audit_head[1],
                "certificate_sha256": certificate_sha256,
                "supersedes": earlier.signature_id if earlier is not None else None,
                "reviewed": reviewed,
                "not_reviewed": not_reviewed,
            }
            insert_row(self.db.conn, "signatures", row)
            self.db.execute(
                "UPDATE cases SET status = ? WHERE case_id = ?", [str(CaseStatus.SIGNED), case_id]
            )
            append_audit(
                self.db.conn,
                user=user,
                action="sign",
                entity=f"case:{case_id}",
                old_value=str(old),
                new_value={**row, "status": str(CaseStatus.SIGNED)},
                reason=meaning,
            )
        signature = self.latest_signature(case_id)
        assert signature is not None
        return signature

    def signatures(self, case_id: str | None = None) -> list[Signature]:
        sql = "SELECT * FROM signatures WHERE (:case IS NULL OR case_id = :case)"
        rows = self.db.query(sql + " ORDER BY signature_id", {"case": case_id})
        return [Signature.model_validate(r) for r in rows]

    def _check_head(self, seq: int, hash_: str) -> None:
        if (seq, hash_) == (0, GENESIS_HASH):
            return
        row = self.db.execute("SELECT hash FROM audit WHERE seq = ?", [seq]).fetchone()
        if row is None or row[0] != hash_:
            raise StoreError(
                "audit head given for the signature is not in the trail", subject=str(seq)
            )

    def latest_signature(self, case_id: str) -> Signature | None:
        rows = list(
            self.db.query(
                "SELECT * FROM signatures WHERE case_id = ? ORDER BY signature_id DESC LIMIT 1",
                [case_id],
            )
        )
        return Signature.model_validate(rows[0]) if rows else None

    # audit -----------------------------------------------------------------------------

    def audit_head(self) -> tuple[int, str]:
        return audit_head(self.db)

    def audit_rows(self, since_seq: int = 0) -> list[AuditEntry]:
        return list(iter_audit(self.db, since_seq=since_seq))

    def verify_audit(self) -> AuditReport:
        return verify_chain(self.db)

    def record_export(
        self, *, kind: str, path: Path | str, rows: int, sha256: str, user: str | None = None
    ) -> None:
        """Audit that data left the database (labels, PDFs ...)."""
        with write_transaction(self.db):
            append_audit(
                self.db.conn,
                user=user or system_user(),
                action=f"export ({kind})",
                entity=f"file:{path}",
                new_value={"rows": rows, "sha256": sha256},
            )

    def audit_event(self, *, user: str, action: str, entity: str, **values: Any) -> AuditEntry:
        """A standalone audited event (e.g. 'login failed', 'model registered')."""
        with write_transaction(self.db):
            return append_audit(self.db.conn, user=user, action=action, entity=entity, **values)
