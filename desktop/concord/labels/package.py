"""Signed label packages: one annotator's QA and EVAL labels carried from an air-gapped
workstation to a lead's, on a USB stick.

A package is one JSON file::

    {"format": "concord-label-package/1",
     "payload": {"package_id", "annotator", "role", "identity_key", "created_at",
                 "app_version", "installation": {"root_fingerprint", "root_subject"},
                 "sets": [{"kind": "qa"|"eval", "set_id", "name", "content_sha256"}],
                 "labels": [{"decision": {...}, "provenance": {...}}]},
     "signature": B64, "certificate": PEM, "root_certificate": PEM}

`signature` is the annotator's Ed25519 signature of the payload as canonical JSON (sorted
keys, no spaces, UTF-8), made with their identity key; `certificate` is that key's
certificate, issued by their installation's root at enrolment. Each decision inside carries
its own signature by the same key, as recorded on their workstation. The package holds the
annotator's every decision on QA and EVAL sets, undos included (so the lead sees what
stands), and never a clinical case's decisions (their evidence quotes patients' records).

Merging (`merge_package`) refuses, with one line each: a file that is not a package; a
certificate issued by an installation this one does not trust; a signature that does not
verify (the file was changed after it was signed); a label not signed by the annotator's
key; a package already merged, or whose every label is already held; labels for a set this
installation does not hold, or holds in another version (another content hash). A package
that passes is merged whole, in one transaction, each label kept as signed with its
provenance, its package and its rater (`name@installation` for another installation).
"""

from __future__ import annotations

import base64
import hashlib
import json
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519
from pydantic import ValidationError

from concord import __version__
from concord.accounts.session import Session
from concord.atomic_io import write_atomic
from concord.domain import Decision, LabelProvenance, TargetRef
from concord.errors import ConcordError, InputError, NotFoundError
from concord.eval.eval_store import EvalStore, text_sha256
from concord.labels.sets import EVAL, QA, SetVersion, same_name, set_of, set_version
from concord.labels.trust import TrustedRoot, installation_id, trusted_roots
from concord.pki.credentials import public_key_text, verify_signature
from concord.pki.keys import existing_root_ca, identity_certificate
from concord.store import Repository
from concord.store.codec import utc_iso, utc_now
from concord.store.label_store import LabelStore

FORMAT = "concord-label-package/1"


class PackageRefused(ConcordError):
    """A label package that cannot be merged, and why (one line)."""


def canonical(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8"
    )


def _pem(cert: x509.Certificate) -> str:
    return cert.public_bytes(serialization.Encoding.PEM).decode("ascii")


# -------------------------------------------------------------------------------- pack


@dataclass(frozen=True)
class PackResult:
    path: str
    package_id: str
    annotator: str
    labels: int
    sets: list[dict[str, str]]
    sha256: str


def pack_labels(repo: Repository, session: Session, home: Path, out: Path) -> PackResult:
    """Write the signed package of the signed-in user's QA and EVAL labels to `out`."""
    name = session.name
    cert = identity_certificate(home, name)
    if cert is None:
        raise InputError(
            f"{name} has no identity certificate to sign a package with: an admin issues one "
            f"with 'concord users certify \"{name}\" --admin ADMIN'"
        )
    if public_key_text(cert.public_key()) != session.credential.public_key:  # type: ignore[arg-type]
        raise InputError(f"the identity certificate of {name} is not for their key")
    root = existing_root_ca(home)
    if root is None:
        raise InputError("this installation has no root certificate")
    provenance = LabelStore(repo).provenance()
    labels: list[dict[str, Any]] = []
    sets: dict[str, SetVersion] = {}
    for decision in repo.decisions():
        if decision.user != name or decision.target_kind.is_case or not decision.signature:
            continue  # (a decision recorded before keys existed cannot be checked elsewhere)
        set_id = set_of(repo, decision)
        version = set_version(repo, set_id) if set_id else None
        if version is None:
            continue
        sets[version.set_id] = version
        how = provenance.get(decision.decision_id) or LabelProvenance()
        how = how.model_copy(
            update={"set_id": version.set_id, "set_sha256": version.content_sha256}
        )
        labels.append(
            {
                "decision": decision.model_dump(mode="json"),
                "provenance": how.model_dump(mode="json"),
            }
        )
    if not labels:
        raise InputError(f"{name} has no QA or EVAL label to pack")
    package_id = "LP-" + uuid.uuid4().hex
    set_list = [v.json() for v in sets.values()]
    payload: dict[str, Any] = {
        "package_id": package_id,
        "annotator": name,
        "role": session.role.value,
        "identity_key": session.credential.public_key,
        "created_at": utc_iso(utc_now()),
        "app_version": __version__,
        "installation": {
            "root_fingerprint": root.fingerprint_sha256,
            "root_subject": root.subject,
        },
        "sets": set_list,
        "labels": labels,
    }
    document = {
        "format": FORMAT,
        "payload": payload,
        "signature": session.sign(canonical(payload)),
        "certificate": _pem(cert),
        "root_certificate": root.pem.decode("ascii"),
    }
    data = (json.dumps(document, ensure_ascii=False, indent=1) + "\n").encode("utf-8")
    write_atomic(out, data)
    sha256 = hashlib.sha256(data).hexdigest()
    repo.audit_event(
        user=name,
        action="labels pack",
        entity=f"label_package:{package_id}",
        new_value={"file": str(out), "labels": len(labels), "sha256": sha256},
    )
    return PackResult(str(out), payload["package_id"], name, len(labels), payload["sets"], sha256)


# ------------------------------------------------------------------------------ verify


@dataclass(frozen=True)
class VerifiedPackage:
    payload: dict[str, Any]
    certificate: x509.Certificate
    root: TrustedRoot
    labels: list[tuple[Decision, LabelProvenance]]
    sha256: str

    @property
    def annotator(self) -> str:
        return str(self.payload["annotator"])


def _refuse(problem: str) -> PackageRefused:
    return PackageRefused(problem)


def read_package(path: Path) -> tuple[dict[str, Any], bytes]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise _refuse(f"cannot be read ({exc.strerror})") from exc
    try:
        document = json.loads(data)
    except (UnicodeDecodeError, ValueError):
        raise _refuse("not a Concord label package (not JSON)") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise _refuse(f"not a Concord label package (format is not {FORMAT})")
    return document, data


def verify_package(
    document: dict[str, Any], data: bytes, roots: list[TrustedRoot]
) -> VerifiedPackage:
    """Check a package's certificate, signature and every label in it; PackageRefused
    otherwise."""
    payload = document.get("payload")
    if not isinstance(payload, dict):
        raise _refuse("not a Concord label package (no payload)")
    try:
        cert = x509.load_pem_x509_certificate(str(document.get("certificate", "")).encode())
    except ValueError:
        raise _refuse("its certificate cannot be read") from None
    root = None
    for candidate in roots:
        try:
            cert.verify_directly_issued_by(candidate.certificate)
        except (ValueError, TypeError, InvalidSignature):
            continue
        root = candidate
        break
    if root is None:
        issuer = cert.issuer.rfc4514_string()
        raise _refuse(
            f"signed by an installation this one does not trust ({issuer}): an admin adds its "
            "root certificate with 'concord labels trust ROOT.pem --admin ADMIN'"
        )
    key = cert.public_key()
    if not isinstance(key, ed25519.Ed25519PublicKey):
        raise _refuse("its certificate is not for an identity key")
    try:
        key.verify(base64.b64decode(str(document.get("signature", ""))), canonical(payload))
    except (InvalidSignature, ValueError):
        raise _refuse(
            "the package was changed after it was signed (its signature does not verify)"
        ) from None
    annotator = payload.get("annotator")
    names = cert.subject.get_attributes_for_oid(x509.NameOID.COMMON_NAME)
    if not names or names[0].value != annotator:
        signer = str(names[0].value) if names else "?"
        raise _refuse(f"signed by {signer}, not by {annotator}")
    if payload.get("identity_key") != public_key_text(key):
        raise _refuse("its identity key is not the certified one")
    try:
        created = datetime.fromisoformat(str(payload.get("created_at")))
    except ValueError:
        raise _refuse("its creation time cannot be read") from None
    if not cert.not_valid_before_utc <= created <= cert.not_valid_after_utc:
        raise _refuse(f"made on {created:%Y-%m-%d}, outside its certificate's validity")
    labels: list[tuple[Decision, LabelProvenance]] = []
    identity = str(payload["identity_key"])
    for entry in payload.get("labels") or []:
        try:
            decision = Decision.model_validate(entry["decision"])
            how = LabelProvenance.model_validate(entry.get("provenance") or {})
        except (KeyError, TypeError, ValidationError):
            raise _refuse("a label in it cannot be read") from None
        if decision.user != annotator:
            raise _refuse(f"label {decision.decision_id} is {decision.user}'s, not {annotator}'s")
        if not verify_signature(identity, decision.signed_payload(), decision.signature):
            raise _refuse(f"label {decision.decision_id} is not signed by {annotator}'s key")
        if decision.target_kind.is_case:
            raise _refuse(f"label {decision.decision_id} is a clinical case's decision")
        labels.append((decision, how))
    if not labels:
        raise _refuse("it holds no label")
    return VerifiedPackage(payload, cert, root, labels, hashlib.sha256(data).hexdigest())


# ------------------------------------------------------------------------------- merge


@dataclass
class MergeResult:
    file: str
    annotator: str | None = None
    rater: str | None = None
    installation: str | None = None
    merged: int = 0
    duplicates: int = 0
    refused: str | None = None
    sets: list[str] = field(default_factory=list)

    def json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "annotator": self.annotator,
            "rater": self.rater,
            "installation": self.installation,
            "merged": self.merged,
            "duplicates": self.duplicates,
            "sets": self.sets,
            "refused": self.refused,
        }

    def line(self) -> str:
        if self.refused:
            return f"{self.file}: refused: {self.refused}"
        dup = f", {self.duplicates} already held" if self.duplicates else ""
        return f"{self.file}: {self.rater}: merged {self.merged} label(s){dup}"


def _check_sets(repo: Repository, package: VerifiedPackage) -> list[str]:
    """The sets the package's labels are on must be held here in the same version."""
    declared = {s["set_id"]: s for s in package.payload.get("sets") or []}
    used = {how.set_id for _, how in package.labels}
    for set_id in sorted(s for s in used if s is not None):
        meta = declared.get(set_id)
        if meta is None:
            raise _refuse(f"its labels name set {set_id}, which the package does not declare")
        held = set_version(repo, set_id)
        kind = "QA set" if meta.get("kind") == QA else "question set"
        if held is None or held.content_sha256 != meta.get("content_sha256"):
            other = held or same_name(repo, str(meta.get("kind")), str(meta.get("name")))
            if other is not None:
                raise _refuse(
                    f"its labels are for another version of {kind} {meta.get('name')!r} "
                    f"(package {str(meta.get('content_sha256'))[:12]}, here "
                    f"{other.content_sha256[:12]})"
                )
            raise _refuse(
                f"its labels are for {kind} {set_id} ({meta.get('name')}), which this "
                "installation does not hold: import the same file first"
            )
    for decision, how in package.labels:
        if how.set_id is None:
            raise _refuse(f"label {decision.decision_id} names no set")
        if declared[how.set_id].get("kind") == EVAL:
            _check_answer(repo, decision)
    return sorted(s for s in used if s is not None)


def _check_answer(repo: Repository, decision: Decision) -> None:
    answer_id = TargetRef.parse(decision.target_id).subject
    try:
        answer = EvalStore(repo).get_answer(answer_id)
    except NotFoundError:
        raise _refuse(
            f"its grades are on answer {answer_id}, which this installation does not hold"
        ) from None
    expected = decision.shown.get("answer_sha256")
    if expected and text_sha256(answer.text) != expected:
        raise _refuse(f"answer {answer_id} here is another version of the one it graded")


def merge_package(
    repo: Repository, path: Path, lead: Session, home: Path, roots: list[TrustedRoot] | None = None
) -> MergeResult:
    """Verify one package and merge it whole; a refusal is returned, never half merged."""
    result = MergeResult(file=str(path))
    try:
        document, data = read_package(path)
        payload = document.get("payload") or {}
        result.annotator = payload.get("annotator") if isinstance(payload, dict) else None
        store = LabelStore(repo)
        earlier = store.package_by_sha256(hashlib.sha256(data).hexdigest())
        if earlier is not None:
            raise _refuse(
                f"already merged on {earlier['merged_at'][:16].replace('T', ' ')} UTC by "
                f"{earlier['merged_by']}"
            )
        package = verify_package(document, data, roots or trusted_roots(repo, home))
        same = store.package(str(package.payload["package_id"]))
        if same is not None:  # the same signed package, saved again (another file)
            raise _refuse(
                f"already merged on {same['merged_at'][:16].replace('T', ' ')} UTC by "
                f"{same['merged_by']} (package {same['package_id']}, file {same['file']})"
            )
        result.sets = _check_sets(repo, package)
        held = store.known_decision_ids(d.decision_id for d, _ in package.labels)
        new = [(d, how) for d, how in package.labels if d.decision_id not in held]
        result.duplicates = len(package.labels) - len(new)
        if not new:
            raise _refuse("every label in it is already held (merged before or recorded here)")
        result.installation = installation_id(package.root.certificate)
        result.rater = (
            package.annotator if package.root.own else f"{package.annotator}@{result.installation}"
        )
        store.save_package(
            {
                "package_id": package.payload["package_id"],
                "sha256": package.sha256,
                "annotator": package.annotator,
                "rater": result.rater,
                "installation": package.root.fingerprint,
                "certificate": _pem(package.certificate),
                "merged_by": lead.name,
                "merged_at": utc_iso(utc_now()),
                "file": path.name,
            },
            new,
        )
        result.merged = len(new)
    except PackageRefused as exc:
        result.refused = exc.problem
    return result
