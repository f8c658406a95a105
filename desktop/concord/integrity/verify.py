"""Verify the whole review record: the hash chain, and everything else against it.

The audit chain is the record; the tables are what the application reads quickly. Each check
compares one of them with the chain, so an edit that bypasses the application (triggers
dropped with the stock sqlite3 tool) shows up as a difference:

* chain: every row's hash and link recompute (`store.audit.verify_chain`);
* users: each enrolment and each revocation statement is signed by an admin in force when
  it was made (the first enrolment by the first admin itself), every users row is the
  statement in force, and nobody decided or signed after their account was revoked;
* decisions: each row equals the full content its audit row holds; every audited decision
  still has its row; each is signed by its decider's enrolled key, with the role they had;
* cases: each row's JSON hashes to the value audited when it was saved, and its status is
  the last one the chain set;
* signatures: each row is the one audited, and the audit head it printed is in the chain;
* anchors: every head written outside the database is in the chain (truncation, a
  recomputed chain, a wiped table);
* PDFs (``--pdfs DIR``): every validly signed record's audit head is in the chain and every
  decision it carries is in the database unchanged.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from concord.domain import Decision
from concord.integrity.report import IntegrityReport, Problem
from concord.integrity.trail import Trail, read_trail
from concord.pki.credentials import statement_bytes, verify_signature
from concord.store import Repository
from concord.store.anchor import anchor_files, read_anchor
from concord.store.decision_rows import decision_from_row, decision_row


def verify_installation(
    repo: Repository,
    *,
    home: Path,
    extra_anchors: Iterable[Path] = (),
    pdf_dir: Path | None = None,
) -> IntegrityReport:
    """Run every check in one consistent read of the database."""
    with repo.db.atomic():
        chain = repo.verify_audit()
        trail = read_trail(repo)
        problems: list[Problem] = []
        if chain.first_bad_seq is not None:
            problems.append(
                Problem(
                    check="chain",
                    seq=chain.first_bad_seq,
                    detail="hash chain broken",
                    chain_damaged=True,
                )
            )
        keys, revoked, user_problems, users = _check_users(repo, trail)
        problems += user_problems
        decision_problems, decisions, legacy = _check_decisions(repo, trail, keys)
        problems += decision_problems + _after_revocation(trail, revoked)
        problems += _check_settings(repo, keys, revoked)
        case_problems, cases = _check_cases(repo, trail)
        problems += case_problems
        signature_problems, signatures = _check_signatures(repo, trail)
        problems += signature_problems
        files = [*anchor_files(repo.db), *extra_anchors]
        anchor_problems, heads = _check_anchors(trail, files)
        problems += anchor_problems
        pdf_problems, pdfs = _check_pdfs(repo, trail, pdf_dir, home) if pdf_dir else ([], 0)
        problems += pdf_problems
    seqs = [p.seq for p in problems if p.seq is not None and p.chain_damaged]
    return IntegrityReport(
        ok=not problems,
        rows=chain.rows,
        first_bad_seq=min(seqs) if seqs else None,
        problems=problems,
        checked={
            "users": users,
            "decisions": decisions,
            "cases": cases,
            "signatures": signatures,
            "anchor_heads": heads,
            "pdfs": pdfs,
        },
        anchors=[str(f) for f in files if f.exists()],
        legacy_decisions=legacy,
    )


# ------------------------------------------------------------------------------ users


KeyHistory = dict[str, list[tuple[int, dict[str, Any]]]]
"""name -> (seq, enrolment statement) of each valid enrolment or renewal, in chain order."""


def _in_force_at(history: KeyHistory, name: str, seq: int) -> dict[str, Any] | None:
    """The statement of `name` in force at chain position `seq` (the last one before it)."""
    found = None
    for at, statement in history.get(name, ()):
        if at < seq:
            found = statement
    return found


def _check_users(
    repo: Repository, trail: Trail
) -> tuple[KeyHistory, dict[str, int], list[Problem], int]:
    """(each user's valid enrolment statements with their seq, name -> seq of its valid
    revocation, problems, users checked). Enrolments (a renewal by a password change is one)
    and revocations are read in chain order: each must be signed by an admin enrolled, and
    not revoked, before it, with the key that admin held then."""
    problems: list[Problem] = []
    in_force: dict[str, dict[str, Any]] = {}
    history: KeyHistory = {}
    revoked: dict[str, int] = {}
    events = [
        (seq, actor, statement, signature, "")
        for seq, actor, statement, signature in trail.enrolments
    ]
    events += [
        (seq, actor, statement, signature, name)
        for seq, actor, name, statement, signature in trail.revocations
    ]
    for seq, actor, statement, signature, revokes in sorted(events, key=lambda e: e[0]):
        name = revokes or str(statement.get("name"))
        what = "revocation" if revokes else "enrolment"
        signer = in_force.get(actor) if actor not in revoked else None
        first = not revokes and not in_force and actor == name and statement.get("role") == "admin"
        if signer is None and first:
            key = statement.get("public_key")
        elif signer is not None and signer.get("role") == "admin":
            key = signer.get("public_key")
        else:
            doing = "enrolled" if not revokes else "revoked"
            problems.append(
                Problem(
                    check="users",
                    seq=seq,
                    subject=name,
                    detail=f"{doing} by {actor!r}, who is not an enrolled admin in force",
                )
            )
            continue
        signed_by = statement.get("revoked_by") if revokes else statement.get("enrolled_by")
        if (
            signed_by != actor
            or (revokes and statement.get("name") != name)
            or not verify_signature(str(key), statement_bytes(statement), signature)
        ):
            problems.append(
                Problem(
                    check="users",
                    seq=seq,
                    subject=name,
                    detail=f"the {what} statement is not signed by {actor}'s key",
                )
            )
            continue
        if revokes:
            revoked.setdefault(name, seq)
        else:
            in_force[name] = statement
            history.setdefault(name, []).append((seq, statement))
    users = repo.list_users()
    for user in users:
        found = in_force.get(user.name)
        if found is None:
            if user.public_key is not None or user.name not in trail.legacy_users:
                problems.append(
                    Problem(
                        check="users",
                        subject=user.name,
                        detail="user row with no valid enrolment in the audit trail",
                    )
                )
            continue
        statement = found
        row = {
            "role": user.role.value,
            "public_key": user.public_key,
            "cert_fingerprint": user.cert_fingerprint,
            "skeleton": user.skeleton,
            "enrolled_by": user.enrolled_by,
        }
        changed = [k for k, v in row.items() if statement.get(k) != v]
        if changed:
            problems.append(
                Problem(
                    check="users",
                    subject=user.name,
                    detail="users row differs from its audited enrolment: " + ", ".join(changed),
                )
            )
    names = {u.name for u in users}
    for name in in_force:
        if name not in names:
            problems.append(
                Problem(check="users", subject=name, detail="enrolled user missing from users")
            )
    return history, revoked, problems, len(users)


def _after_revocation(trail: Trail, revoked: dict[str, int]) -> list[Problem]:
    """Decisions and signatures the chain holds after their maker's account was revoked."""
    problems = []
    acts = [
        (seq, str(new.get("user")), f"decision:{did}", "decided")
        for did, (seq, _old, new) in trail.decisions.items()
        if isinstance(new, dict)
    ]
    acts += [
        (seq, user, f"signature at seq {seq}", "signed") for seq, user in trail.signers.items()
    ]
    for seq, user, subject, did in sorted(acts):
        since = revoked.get(user)
        if since is not None and seq > since:
            problems.append(
                Problem(
                    check="users",
                    seq=seq,
                    subject=subject,
                    detail=f"{did} by {user} after their account was revoked (audit row {since})",
                )
            )
    return problems


# ------------------------------------------------------------------------------ decisions


def _check_decisions(
    repo: Repository, trail: Trail, keys: KeyHistory
) -> tuple[list[Problem], int, int]:
    problems: list[Problem] = []
    legacy = 0
    rows = list(repo.db.query("SELECT * FROM decisions ORDER BY rowid"))
    seen: set[str] = set()
    for raw in rows:
        decision = decision_from_row(raw)
        did = decision.decision_id
        seen.add(did)
        audited = trail.decisions.get(did)
        if audited is None:
            problems.append(
                Problem(
                    check="decisions",
                    subject=did,
                    detail="decision in the table but not in the audit trail",
                )
            )
            continue
        seq, old, new = audited
        signed_era = trail.boundary is not None and seq > trail.boundary
        if signed_era:
            stored = decision_row(decision)
            content = new if isinstance(new, dict) else {}
            changed = sorted(
                k for k in set(stored) | set(content) if stored.get(k) != content.get(k)
            )
            if changed:
                problems.append(
                    Problem(
                        check="decisions",
                        seq=seq,
                        subject=did,
                        detail="decisions row differs from the audited decision: "
                        + ", ".join(changed),
                    )
                )
                continue
            problems += _check_decision_signature(decision, seq, keys)
        else:
            legacy += 1
            if not _legacy_matches(decision, old, new):
                problems.append(
                    Problem(
                        check="decisions",
                        seq=seq,
                        subject=did,
                        detail="decisions row differs from the audited decision",
                    )
                )
    for did, (seq, _old, _new) in trail.decisions.items():
        if did not in seen:
            problems.append(
                Problem(
                    check="decisions",
                    seq=seq,
                    subject=did,
                    detail="audited decision missing from the decisions table",
                )
            )
    return problems, len(rows), legacy


def _check_decision_signature(decision: Decision, seq: int, keys: KeyHistory) -> list[Problem]:
    statement = _in_force_at(keys, decision.user, seq)
    if statement is None:
        return [
            Problem(
                check="decisions",
                seq=seq,
                subject=decision.decision_id,
                detail=f"decided by {decision.user!r}, who is not an enrolled user",
            )
        ]
    if decision.role is None or decision.role.value != statement.get("role"):
        return [
            Problem(
                check="decisions",
                seq=seq,
                subject=decision.decision_id,
                detail=f"recorded role {decision.role} is not {decision.user}'s enrolled role",
            )
        ]
    if not verify_signature(
        str(statement.get("public_key")), decision.signed_payload(), decision.signature
    ):
        return [
            Problem(
                check="decisions",
                seq=seq,
                subject=decision.decision_id,
                detail=f"not signed by {decision.user}'s key (forged or altered)",
            )
        ]
    return []


def _legacy_matches(decision: Decision, old: Any, new: Any) -> bool:
    """Decisions audited before migration 4 kept the target and both values only."""
    data = decision.model_dump(mode="json")
    if not isinstance(old, dict):
        return False
    return (
        old.get("case_id") == decision.case_id
        and old.get("target_id") == decision.target_id
        and old.get("value") == data["original_value"]
        and new == data["new_value"]
    )


# ------------------------------------------------------------------------------ cases


def _check_cases(repo: Repository, trail: Trail) -> tuple[list[Problem], int]:
    problems: list[Problem] = []
    rows = list(repo.db.query("SELECT case_id, status, json FROM cases"))
    for row in rows:
        case_id = str(row["case_id"])
        saved = trail.case_saves.get(case_id)
        if saved is None:
            problems.append(
                Problem(check="cases", subject=case_id, detail="case not in the audit trail")
            )
            continue
        seq, content = saved
        digest = content.get("json_sha256")
        actual = hashlib.sha256(str(row["json"]).encode("utf-8")).hexdigest()
        if digest is not None and digest != actual:
            problems.append(
                Problem(
                    check="cases",
                    seq=seq,
                    subject=case_id,
                    detail="the stored case (briefs, scores, gates) differs from the one audited",
                )
            )
        status_seq, status = trail.case_status[case_id]
        if status != row["status"]:
            problems.append(
                Problem(
                    check="cases",
                    seq=status_seq,
                    subject=case_id,
                    detail=f"status is '{row['status']}' but the audit trail says '{status}'",
                )
            )
    present = {str(r["case_id"]) for r in rows}
    for case_id, (seq, _content) in trail.case_saves.items():
        if case_id not in present:
            problems.append(
                Problem(
                    check="cases",
                    seq=seq,
                    subject=case_id,
                    detail="audited case missing from the cases table",
                )
            )
    return problems, len(rows)


# ------------------------------------------------------------------------------ signatures

_SIGNATURE_FIELDS = (
    "case_id",
    "user",
    "signed_at",
    "meaning",
    "pdf_sha256",
    "audit_head_seq",
    "audit_head_hash",
)


def _same_signature(row: dict[str, Any], case_id: str, audited: dict[str, Any]) -> bool:
    if "signed_at" in audited:
        return all(audited.get(k) == row[k] for k in _SIGNATURE_FIELDS)
    # audited before migration 4: the PDF hash and meaning only
    return case_id == row["case_id"] and audited.get("pdf_sha256") == row["pdf_sha256"]


def _check_signatures(repo: Repository, trail: Trail) -> tuple[list[Problem], int]:
    problems: list[Problem] = []
    rows = list(repo.db.query("SELECT * FROM signatures ORDER BY signature_id"))
    audited = [(seq, case, new) for seq, case, new in trail.signs if isinstance(new, dict)]
    matched: set[int] = set()
    for row in rows:
        subject = f"signature:{row['signature_id']}"
        found = next((seq for seq, case, new in audited if _same_signature(row, case, new)), None)
        if found is None:
            problems.append(
                Problem(
                    check="signatures",
                    subject=subject,
                    detail="signature row differs from every audited signature, or is not "
                    "in the audit trail",
                )
            )
        else:
            matched.add(found)
        head_seq, head_hash = int(row["audit_head_seq"]), str(row["audit_head_hash"])
        if head_seq and trail.hashes.get(head_seq) != head_hash:
            problems.append(
                Problem(
                    check="signatures",
                    seq=head_seq,
                    subject=subject,
                    detail=f"the audit head printed at signing (seq {head_seq}) is no longer "
                    "in the chain: the trail was rewritten or truncated",
                    chain_damaged=True,
                )
            )
    for seq, _case, new in audited:
        if seq not in matched:
            problems.append(
                Problem(
                    check="signatures",
                    seq=seq,
                    subject=f"case:{new.get('case_id')}",
                    detail="audited signature missing from the signatures table",
                )
            )
    return problems, len(rows)


# ------------------------------------------------------------------------------ anchors


def _missing_head(trail: Trail, seq: int, head: str, where: str) -> Problem | None:
    found = trail.hashes.get(seq)
    if found == head:
        return None
    if found is None:
        detail = (
            f"{where} holds head seq {seq}, but the chain ends at seq {trail.last_seq}: rows "
            "were removed (truncated or wiped)"
        )
        return Problem(
            check="anchor", seq=min(seq, trail.last_seq + 1), detail=detail, chain_damaged=True
        )
    return Problem(
        check="anchor",
        seq=seq,
        detail=f"{where} holds a different hash for seq {seq}: the chain was rewritten",
        chain_damaged=True,
    )


def _check_anchors(trail: Trail, files: list[Path]) -> tuple[list[Problem], int]:
    problems: list[Problem] = []
    count = 0
    for path in files:
        heads, bad = read_anchor(path)
        problems += [Problem(check="anchor", subject=str(path), detail=b) for b in bad]
        for head in heads:
            count += 1
            problem = _missing_head(trail, head.seq, head.hash, f"{path}:{head.line}")
            if problem is not None:
                problems.append(problem)
    return problems, count


# ------------------------------------------------------------------------------ PDFs


def _check_pdfs(
    repo: Repository, trail: Trail, folder: Path, home: Path
) -> tuple[list[Problem], int]:
    from concord.report.verify import attached_record, verify_pdf

    problems: list[Problem] = []
    files = sorted(p for p in Path(folder).rglob("*") if p.suffix.lower() == ".pdf")
    stored = {d.decision_id: decision_row(d) for d in repo.decisions()}
    for path in files:
        result = verify_pdf(path, home)
        if not result.valid:
            problems.append(
                Problem(
                    check="pdf", subject=str(path), detail=f"not a valid record: {result.reason}"
                )
            )
            continue
        manifest = attached_record(path.read_bytes()) or {}
        head = manifest.get("audit_head") or {}
        seq, digest = head.get("seq"), head.get("hash")
        if isinstance(seq, int) and seq > 0:
            problem = _missing_head(trail, seq, str(digest), str(path))
            if problem is not None:
                problems.append(problem.model_copy(update={"check": "pdf", "subject": str(path)}))
        for data in manifest.get("decisions", []):
            try:
                decision = Decision.model_validate(data)
            except ValueError:
                problems.append(
                    Problem(check="pdf", subject=str(path), detail="unreadable decision")
                )
                continue
            if stored.get(decision.decision_id) != decision_row(decision):
                problems.append(
                    Problem(
                        check="pdf",
                        seq=trail.decisions.get(decision.decision_id, (None,))[0],
                        subject=str(path),
                        detail=f"decision {decision.decision_id} signed in this record is "
                        "missing from the database or differs from it",
                    )
                )
    return problems, len(files)


# ------------------------------------------------------------------------------ settings


def _check_settings(repo: Repository, keys: KeyHistory, revoked: dict[str, int]) -> list[Problem]:
    """Installation settings (`accounts.settings`): each statement must be signed by an admin
    in force when it was made, with the key they held then (the reader ignores any other
    statement, and this reports it)."""
    problems = []
    rows = repo.db.query("SELECT seq, user, entity, new_value FROM audit WHERE action = 'setting'")
    for row in rows:
        seq = int(row["seq"])
        value = _json_value(row["new_value"])
        statement: Any = value.get("statement") if isinstance(value, dict) else None
        signature = str(value.get("signature")) if isinstance(value, dict) else ""
        admin = str(statement.get("set_by")) if isinstance(statement, dict) else ""
        enrolment = _in_force_at(keys, admin, seq)
        ok = (
            isinstance(statement, dict)
            and enrolment is not None
            and enrolment.get("role") == "admin"
            and not (admin in revoked and revoked[admin] < seq)
            and admin == str(row["user"])
            and verify_signature(
                str(enrolment.get("public_key")), statement_bytes(statement), signature
            )
        )
        if not ok:
            problems.append(
                Problem(
                    check="settings",
                    seq=seq,
                    subject=str(row["entity"]),
                    detail=f"setting not signed by an admin in force ({admin!r}): ignored",
                )
            )
    return problems


def _json_value(text: Any) -> Any:
    from concord.store.codec import from_json

    try:
        return from_json(text)
    except ValueError:
        return None
