"""Signing a reviewed case into a PAdES-signed PDF review record, and checking one.

Joins the store (decisions, audit head, signatures) and the report (PDF, signature). Only a
signed-in clinician signs, with the key their password unlocked; a case must be reviewed (or
amended) with every required judgement decided by a clinician. A clinician who decided none
of the case's judgements may sign it as a second reviewer: the signature's meaning says so
("Second review — countersigns judgements decided by other clinicians"), in the PDF, its
stamp and its attached record. The PDF goes to a temporary
file beside `out` and is moved into place only after the signature row and its audit entry
are committed; on any failure it is removed and nothing new appears at `out`.

A crash (power, kill) between the commit and the move would leave the case signed and its PDF
only in a hidden temporary file. So before the commit an intent is written to
``CONCORD_HOME/pending-signatures/<pdf sha256>.json`` (where the PDF is and where it goes),
and removed once the PDF is in place; on the next start the CLI and the app call
`recover_interrupted_signings`, which completes a committed signing (moves the PDF into place)
or rolls back one that never committed (removes the temporary file), and says which.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from concord import paths
from concord.accounts.revocation import require_active
from concord.accounts.session import Session, require_role, revocation_note, revocation_of
from concord.atomic_io import write_atomic
from concord.domain import CaseStatus, UserRole
from concord.errors import ConcordError, InputError, NotFoundError, StoreError
from concord.pki.credentials import verify_signature
from concord.pki.keys import existing_root_ca
from concord.report.pdf import render_review_pdf, signature_meaning
from concord.report.sections import PriorSignature
from concord.report.sign import sign_pdf_bytes
from concord.report.verify import VerifyResult, verify_pdf
from concord.resources import case_resources
from concord.review import missing_dispositions, outstanding, review_counts
from concord.site import site_note
from concord.store import Repository, Signature
from concord.store.audit import signed_bytes
from concord.store.transaction import disk_is_full, is_disk_full_error

SILENT_PDF_REFUSAL = (
    "the case is a silent run (its model and resources are not accepted for patients): "
    "silent results are never put in a review PDF"
)


@dataclass(frozen=True)
class SignedRecord:
    path: Path
    meaning: str
    signed_at: datetime
    audit_head_seq: int
    audit_head_hash: str
    signature_id: int
    supersedes: int | None
    reviewed: int
    not_reviewed: int


def _check_signable(repo: Repository, case_id: str) -> None:
    status = repo.case_status(case_id)
    if status.signable:
        return
    why = {
        CaseStatus.RUN_FAILED: "the run failed: re-run the case (a new case) and review it",
        CaseStatus.SIGNED: "it is already signed and nothing was decided since",
        CaseStatus.NEEDS_REVIEW: "it is not reviewed yet",
    }.get(status, f"it is '{status.value}'")
    raise InputError(f"the case cannot be signed: {why}", subject=case_id)


def sign_case(
    repo: Repository,
    session: Session,
    case_id: str,
    *,
    out: Path,
    rules: Any = None,
    home: Path | None = None,
) -> SignedRecord:
    """Render the review record, sign it as the session's clinician, record the signature
    (the case becomes signed), then move the PDF into place."""
    require_role(session, UserRole.CLINICIAN, doing="sign")
    require_active(repo, session)
    home = Path(home) if home is not None else paths.concord_home()
    case = repo.get_case(case_id)
    if case.silent:
        raise InputError(SILENT_PDF_REFUSAL, subject=case_id)
    used = case_resources(repo, case)
    head = repo.audit_head()  # first: a decision after it is refused when recording
    decisions = repo.decisions(case_id=case_id)
    no_disposition = missing_dispositions(case, decisions)
    if no_disposition:  # whatever the status: a failed run's red flags are red flags too
        titles = {g.gate_id: g.title or g.gate_id for g in case.gates}
        named = ", ".join(f"{titles.get(g, g)} ({g})" for g in no_disposition)
        raise InputError(
            f"red flag(s) without a clinician's disposition: {named}; record one per red flag "
            "(proceed, postpone, refer or not relevant here, with a reason) before signing",
            subject=case_id,
        )
    remaining = outstanding(case, decisions)
    if remaining and repo.case_status(case_id) != CaseStatus.RUN_FAILED:
        raise InputError(
            f"{len(remaining)} required judgement(s) not yet decided by a clinician "
            f"(first: {remaining[0].id})",
            subject=case_id,
        )
    _check_signable(repo, case_id)
    record = repo.get_record(case.record_id)
    meaning = signature_meaning(decisions, signer=session.name)
    signed_at = datetime.now(UTC)
    earlier = repo.latest_signature(case_id)
    prior = (
        PriorSignature(
            signature_id=earlier.signature_id,
            signer=earlier.user,
            signed_at=earlier.signed_at,
            pdf_sha256=earlier.pdf_sha256,
            audit_head_seq=earlier.audit_head_seq,
        )
        if earlier is not None
        else None
    )
    reviewed, not_reviewed = review_counts(case, decisions)
    out = Path(out)
    with tempfile.TemporaryDirectory(prefix="concord-sign-") as tmp:
        unsigned = Path(tmp) / "unsigned.pdf"
        try:
            render_review_pdf(
                case,
                record,
                decisions,
                signer_name=session.name,
                meaning=meaning,
                signed_at=signed_at,
                audit_head=head,
                out=unsigned,
                rules=rules if rules is not None else used.screen.definitions,
                supersedes=prior,
                root_fingerprint=_root_fingerprint(home),
                scoring=used.scoring,
                site_note=site_note(repo, case),
            )
            data = unsigned.read_bytes()
        except OSError as exc:
            raise _file_error(exc, Path(tmp)) from exc
    signed, info = sign_pdf_bytes(
        data, home=home, credential=session.credential, meaning=meaning, source=out
    )
    temp = _write_temp(out, signed)
    digest = hashlib.sha256(signed).hexdigest()
    try:
        intent = _write_intent(home, case_id=case_id, out=out, temp=temp, sha256=digest)
    except BaseException as exc:
        temp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise _file_error(exc, home) from exc
        raise
    try:
        signature = repo.record_signature(
            case_id,
            session.name,
            meaning,
            digest,
            str(out),
            head,
            signed_at=signed_at,
            certificate_sha256=info.certificate_sha256,
            reviewed=reviewed,
            not_reviewed=not_reviewed,
            signer=session,
        )
    except BaseException:
        temp.unlink(missing_ok=True)
        intent.unlink(missing_ok=True)
        raise
    try:
        os.replace(temp, out)
    except OSError as exc:
        raise StoreError(
            f"the signature is recorded but the PDF could not be moved into place "
            f"({exc.strerror or exc}); it is kept at {temp}",
            subject=out,
        ) from exc
    intent.unlink(missing_ok=True)
    return SignedRecord(
        path=out,
        meaning=meaning,
        signed_at=signed_at,
        audit_head_seq=head[0],
        audit_head_hash=head[1],
        signature_id=signature.signature_id,
        supersedes=signature.supersedes,
        reviewed=reviewed,
        not_reviewed=not_reviewed,
    )


def _root_fingerprint(home: Path) -> str:
    root = existing_root_ca(home)
    if root is None:
        raise InputError("this installation has no root certificate: nobody can sign yet")
    return root.fingerprint_sha256


def _file_error(exc: OSError, where: Path) -> ConcordError:
    if is_disk_full_error(exc) or disk_is_full(where):
        return StoreError("the disk is full; nothing was written", subject=where)
    return StoreError(f"cannot write ({exc.strerror or exc}); nothing was written", subject=where)


def _write_temp(out: Path, data: bytes) -> Path:
    """The signed bytes in a temporary file beside `out`, synced; removed on failure."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    except OSError as exc:
        raise _file_error(exc, out.parent) from exc
    temp = Path(name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise _file_error(exc, out.parent) from exc
    return temp


PENDING_DIR = "pending-signatures"
"""Intents of signings under way, in CONCORD_HOME (see the module doc)."""


def _write_intent(home: Path, *, case_id: str, out: Path, temp: Path, sha256: str) -> Path:
    folder = home / PENDING_DIR
    folder.mkdir(parents=True, exist_ok=True)
    intent = folder / f"{sha256}.json"
    content = {"version": 1, "case_id": case_id, "out": str(out), "temp": str(temp)}
    write_atomic(intent, json.dumps({**content, "pdf_sha256": sha256}).encode("utf-8"))
    return intent


def _sha256_of(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def recover_interrupted_signings(repo: Repository, home: Path | None = None) -> list[str]:
    """Finish what a crash interrupted (see the module doc). Returns one line per signing,
    saying where its PDF is; [] when nothing was pending (one directory listing)."""
    folder = (Path(home) if home is not None else paths.concord_home()) / PENDING_DIR
    if not folder.is_dir():
        return []
    notes: list[str] = []
    for intent in sorted(folder.glob("*.json")):
        try:
            data = json.loads(intent.read_text(encoding="utf-8"))
            case_id, out, temp = str(data["case_id"]), Path(data["out"]), Path(data["temp"])
            digest = str(data["pdf_sha256"])
        except (OSError, ValueError, KeyError, TypeError):
            notes.append(f"{intent}: an unreadable record of an interrupted signing; left as is")
            continue
        committed = next((s for s in repo.signatures(case_id) if s.pdf_sha256 == digest), None)
        if committed is None:
            temp.unlink(missing_ok=True)
            notes.append(
                f"case {case_id}: a signing was interrupted before the signature was recorded; "
                f"nothing was signed (the case is '{repo.case_status(case_id)}'), the temporary "
                "file was removed"
            )
        elif _sha256_of(out) == digest:
            temp.unlink(missing_ok=True)
        elif _sha256_of(temp) == digest:
            os.replace(temp, out)
            notes.append(
                f"case {case_id}: the signing by {committed.user} (signature "
                f"{committed.signature_id}) was interrupted after it was recorded; its signed "
                f"PDF is now in place at {out}"
            )
        else:
            notes.append(
                f"case {case_id}: the signature {committed.signature_id} by {committed.user} is "
                f"recorded but its PDF is at neither {out} nor {temp}: restore it from a backup "
                f"(SHA-256 {digest})"
            )
            continue  # keep the intent: the PDF is still missing
        intent.unlink(missing_ok=True)
    return notes


def verify_signed_record(
    path: Path,
    repo: Repository | None,
    home: Path,
    *,
    trust_root: bytes | None = None,
    root_fingerprint: str | None = None,
) -> dict[str, Any]:
    """`concord verify-pdf --json`: the signature check against a root (the installation's,
    or the one the verifier names with `trust_root` / `root_fingerprint`), and, where that
    root is this installation's and it has a database, the installation's own checks:

    * recorded: the installation holds a signature row for these exact bytes, by the signer.
      A signature the chain does not hold is never VALID here, whatever time the PDF states
      (a kept key used outside Concord, a revoked clinician's key, a record from a rebuilt
      data folder);
    * registered: the signer's certificate is the one registered for that user (a
      certificate minted with the root key for someone's name is not), and their account
      was not revoked before the recorded signature;
    * currency: the PDF is still the case's current record (not superseded, nothing
      decided since).
    """
    result = verify_pdf(path, home, trust_root=trust_root, root_fingerprint=root_fingerprint)
    data = result.to_json()
    installation = existing_root_ca(home) if home is not None else None
    data["installation_root_sha256"] = installation.fingerprint_sha256 if installation else None
    outsider = trust_root is not None or root_fingerprint is not None
    if (
        repo is None
        or installation is None
        or (outsider and result.root_sha256 != installation.fingerprint_sha256)
    ):
        why = (
            "no installation here"
            if repo is None or installation is None
            else "the root given is not this installation's root: only the signature was "
            "checked against it"
        )
        data["registered"] = {"checked": False, "why": why}
        data["currency"] = {"checked": False, "why": why}
        return data
    mine = _signature_row(path, repo)
    registered = _registration(result, repo, mine)
    data["registered"] = registered
    if result.valid and (registered["problem"] or not registered["fingerprint_matches"]):
        data["valid"] = False
        data["reason"] = f"{path}: {registered['problem']}"
    data["currency"] = _currency(mine, repo)
    return data


def _signature_row(path: Path, repo: Repository) -> Signature | None:
    """The installation's signature row for these exact bytes, if any."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return next((s for s in repo.signatures() if s.pdf_sha256 == digest), None)


def _currency(mine: Signature | None, repo: Repository) -> dict[str, Any]:
    """Whether this signed PDF is still the case's record: the signature the installation
    holds for these exact bytes, the case's status now, later signatures that supersede it,
    and decisions the chain holds after the audit head the PDF printed (chain order, never
    the clocks: a decision made on a clock set back still comes after the signature)."""
    if mine is None:
        return {
            "checked": True,
            "known": False,
            "current": False,
            "problem": "no signature of this installation is for these exact bytes",
        }
    after = [s for s in repo.signatures(mine.case_id) if s.signature_id > mine.signature_id]
    later = [s for s in after if _attributed(repo, s)]
    forged = [s.signature_id for s in after if s not in later]
    # after it in the chain: beyond the audit head the PDF printed (whatever the clocks say)
    since = repo.decisions_after(mine.case_id, mine.audit_head_seq)
    status = repo.case_status(mine.case_id)
    problem = ""
    if later:
        newest = later[-1]
        problem = (
            f"superseded by the signature of {newest.signed_at.isoformat(timespec='seconds')} "
            f"by {newest.user}"
        )
    elif since:
        problem = (
            f"{len(since)} decision(s) recorded after this signature; the case is now '{status}'"
        )
    return {
        "checked": True,
        "known": True,
        "case_id": mine.case_id,
        "signature_id": mine.signature_id,
        "case_status": str(status),
        "superseded_by": [s.signature_id for s in later],
        "unattributed_signatures": forged,
        "decisions_after_signing": len(since),
        "current": not later and not since,
        "problem": problem,
    }


def _attributed(repo: Repository, signature: Signature) -> bool:
    """Whether the chain's `sign` row of a signature is signed by its signer's key (rows from
    before rows were signed count as theirs; `audit verify` checks those against the chain).
    A signatures row and a sign row an insider wrote in a clinician's name do not supersede
    a genuine PDF."""
    rows = repo.db.query(
        "SELECT * FROM audit WHERE entity = ? AND action = 'sign' AND new_value LIKE ? "
        "ORDER BY seq LIMIT 1",
        [f"case:{signature.case_id}", f'%"pdf_sha256":"{signature.pdf_sha256}"%'],
    )
    data = next(iter(rows), None)
    if data is None:
        return False
    if int(data.get("row_version") or 1) < 2:
        return True
    payload = signed_bytes(data)
    try:
        key = repo.get_user(signature.user).public_key
    except NotFoundError:
        return False
    return bool(
        key and payload and verify_signature(key, payload, str(data.get("signature") or ""))
    )


def _registration(result: VerifyResult, repo: Repository, mine: Signature | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "checked": True,
        "user": result.signer,
        "registered_fingerprint": None,
        "certificate_sha256": result.certificate_sha256,
        "fingerprint_matches": False,
        "problem": "",
    }
    if result.signer is None:
        out["problem"] = "the signature names no signer"
        return out
    problems = []
    try:
        user = repo.get_user(result.signer)
    except NotFoundError:
        out["problem"] = f"the signer {result.signer!r} is not a user of this installation"
        return out
    out["registered_fingerprint"] = user.cert_fingerprint
    # A password change gives a clinician a new certificate: a PDF is checked against the
    # one registered when it was signed (the installation's row for it records which), one
    # without a row against the one registered now.
    history = [
        str(st.get("cert_fingerprint"))
        for _seq, st in repo.enrolment_history().get(user.name, [])
        if st.get("cert_fingerprint")
    ]
    expected = (
        mine.certificate_sha256
        if mine is not None and mine.certificate_sha256 in history
        else user.cert_fingerprint
    )
    if expected is None:
        problems.append(f"{user.name} has no registered signing certificate")
    elif expected != result.certificate_sha256:
        problems.append(
            f"the signing certificate is not the one registered for {user.name} "
            f"(registered {expected[:16]}…, used {(result.certificate_sha256 or '?')[:16]}…)"
        )
    else:
        out["fingerprint_matches"] = True
    if mine is None:
        problems.append(
            "this installation holds no signature for these exact bytes: it was signed "
            "outside Concord, on another installation, or changed since"
        )
    elif mine.user != result.signer:
        problems.append(
            f"the installation recorded this signature for {mine.user!r}, but the PDF is "
            f"signed by {result.signer!r}"
        )
    out["problem"] = "; ".join(problems)
    return _revoked(out, repo, user.name, mine)


def _revoked(
    out: dict[str, Any], repo: Repository, name: str, row: Signature | None
) -> dict[str, Any]:
    """Whether the signer's account was revoked; a signature made after it is not theirs to
    give (a session kept open, or a kept key used outside Concord): it fails as an
    unregistered one does. When it was made is the installation's signature row for these
    bytes; the signing time written in the PDF is never trusted (whoever holds a key writes
    any time they like), so a PDF the installation holds no row for already fails above."""
    statement = revocation_of(repo, name)
    out["revoked"] = revocation_note(statement) if statement else None
    if statement is None or row is None:
        return out
    try:
        revoked_at = datetime.fromisoformat(str(statement.get("at")))
    except ValueError:
        return out
    if row.signed_at >= revoked_at:
        out["problem"] = f"signed after {name}'s account was {out['revoked']}"
    return out
