"""Verify a signed review PDF against a root certificate, offline.

The trust root is the installation's root certificate (`home`), a root certificate given
by the verifier (`trust_root`, e.g. `concord verify-pdf FILE --root root-ca.pem`), or the
root whose SHA-256 fingerprint the verifier holds (`root_fingerprint`: the root is then
taken from the certificates embedded in the signature, and used only if its fingerprint is
the one given). Every review PDF prints that fingerprint, and so does `concord users list`:
an auditor compares it with the one on the installation's anchor printout, never with the
one the PDF itself prints.

A document is `valid` only when every signature in it is intact (the signed bytes hash to
what was signed), cryptographically valid, trusted (the signer's certificate chains to the
trust root; no OCSP/CRL fetching), and nothing but signature-preserving long-term
validation data (a DSS, a document timestamp) was appended after the last signed revision.
pyHanko's difference analysis decides what an appended revision changes, under
`CONCORD_DIFF_POLICY`: its default policy minus the rules that accept a changed document
information dictionary (/Info: title, subject, keywords) or XMP /Metadata stream, which a
reader shows as the document's own and which Concord never changes after signing. So an
appended page, a changed annotation, an edited form field, a new /Title or new XMP all make
it invalid. Concord records carry one clinician signature; a second signature added later
counts as a modification of the first.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import logging
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

from concord.errors import ConcordError
from concord.pki.keys import existing_root_ca
from concord.report.record_json import ATTACHMENT_NAME

PDF_HEADER = b"%PDF-"
_HEADER_WINDOW = 1024  # PDF readers accept the header anywhere in the first 1 KiB


@dataclass(frozen=True)
class VerifyResult:
    valid: bool
    intact: bool
    trusted: bool
    signer: str | None = None
    signed_at: dt.datetime | None = None
    reason: str = ""
    signatures: int = 0
    coverage: str | None = None
    modification_level: str | None = None
    meaning: str | None = None
    certificate_sha256: str | None = None
    root_sha256: str | None = None
    """SHA-256 fingerprint of the root certificate the signature was checked against."""

    def to_json(self) -> dict[str, Any]:
        """The `concord verify-pdf --json` shape (plus the extra fields)."""
        data = asdict(self)
        data["signed_at"] = (
            self.signed_at.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            if self.signed_at
            else None
        )
        return data


def _fail(reason: str, **fields: Any) -> VerifyResult:
    base: dict[str, Any] = {"valid": False, "intact": False, "trusted": False}
    base.update(fields)
    return VerifyResult(reason=reason, **base)


def verify_pdf(
    path: Path,
    home: Path | None = None,
    *,
    trust_root: bytes | None = None,
    root_fingerprint: str | None = None,
) -> VerifyResult:
    """Verify the PDF at `path`. The trust root is `trust_root` (PEM/DER), else the embedded
    root whose SHA-256 is `root_fingerprint`, else `home`'s root CA.

    Never raises for a bad document: problems are reported with valid=False and a reason.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return _fail(f"{path}: file not found")
    except OSError as exc:
        return _fail(f"{path}: cannot be read ({exc.strerror or exc})")
    return verify_pdf_bytes(
        data, home, trust_root=trust_root, root_fingerprint=root_fingerprint, name=str(path)
    )


def verify_pdf_bytes(
    data: bytes,
    home: Path | None = None,
    *,
    trust_root: bytes | None = None,
    root_fingerprint: str | None = None,
    name: str = "document",
) -> VerifyResult:
    if PDF_HEADER not in data[:_HEADER_WINDOW]:
        return _fail(f"{name}: not a PDF file")

    from pyhanko.pdf_utils.reader import PdfFileReader

    _quiet_pyhanko()
    try:
        reader = PdfFileReader(io.BytesIO(data), strict=False)
        signatures = list(reader.embedded_signatures)
    except Exception as exc:
        return _fail(f"{name}: not a readable PDF ({type(exc).__name__}: {exc})")
    if not signatures:
        return _fail(f"{name}: the PDF has no signature")
    try:
        if root_fingerprint is not None and trust_root is None:
            root_der = _embedded_root(signatures, root_fingerprint)
        else:
            root_der = _trust_root_der(home, trust_root)
    except (ConcordError, ValueError) as exc:
        return _fail(f"{name}: {exc}", signatures=len(signatures))

    statuses = []
    for signature in signatures:
        try:
            statuses.append(_validate(signature, root_der))
        except Exception as exc:
            return _fail(
                f"{name}: signature {signature.field_name!r} cannot be validated "
                f"({type(exc).__name__}: {exc})",
                signatures=len(signatures),
            )
    return _summarise(data, signatures, statuses, name, hashlib.sha256(root_der).hexdigest())


@cache
def _quiet_pyhanko() -> None:
    """pyHanko logs each refused difference and each untrusted chain with its traceback;
    the result's `reason` reports them in one line, so its log stays out of the terminal."""
    quiet = logging.getLogger("pyhanko")
    quiet.addHandler(logging.NullHandler())
    quiet.propagate = False


def normalise_fingerprint(text: str) -> str:
    """A SHA-256 fingerprint as lower-case hex, from the forms people copy: with or without
    colons or spaces, in either case ("AB:CD:..." from openssl, "abcd..." from Concord)."""
    cleaned = "".join(c for c in text if c not in ": \t\n").lower()
    if len(cleaned) != 64 or any(c not in "0123456789abcdef" for c in cleaned):
        raise ValueError(f"{text!r} is not a SHA-256 fingerprint (64 hex digits)")
    return cleaned


def _embedded_root(signatures: list[Any], fingerprint: str) -> bytes:
    """The certificate embedded in a signature whose SHA-256 is `fingerprint` (the verifier's
    own copy of the root's fingerprint): the signer's chain must end in it."""
    wanted = normalise_fingerprint(fingerprint)
    for signature in signatures:
        for choice in signature.signed_data["certificates"] or ():
            cert = choice.chosen
            if getattr(cert, "sha256", b"").hex() == wanted:
                return bytes(cert.dump())
    raise ValueError(
        f"no certificate with the SHA-256 fingerprint {wanted} travels with the signature: "
        "the signer's certificate was not issued by that root"
    )


def _trust_root_der(home: Path | None, trust_root: bytes | None) -> bytes:
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding

    if trust_root is not None:
        try:
            if b"-----BEGIN CERTIFICATE-----" in trust_root:
                cert = x509.load_pem_x509_certificate(trust_root)
            else:
                cert = x509.load_der_x509_certificate(trust_root)
        except ValueError:
            raise ValueError("the given root is not an X.509 certificate (PEM or DER)") from None
        return cert.public_bytes(Encoding.DER)
    if home is None:
        raise ValueError("no trust root given (need CONCORD_HOME or a root certificate)")
    root = existing_root_ca(home)
    if root is None:
        raise ValueError(f"this installation ({home}) has no root certificate to verify against")
    return root.der


@cache
def concord_diff_policy() -> Any:
    """pyHanko's default difference policy without the two rules that accept a changed
    /Info dictionary or XMP /Metadata stream as harmless (`ModificationLevel.LTA_UPDATES`);
    with them gone such a change is unexplained (`ModificationLevel.OTHER`). Everything
    else is pyHanko's: the catalog (now with /Metadata compared strictly), xref and object
    streams, DSS updates (long-term validation data), and the form rules."""
    from pyhanko.sign.diff_analysis import (
        FormUpdatingRule,
        GenericFieldModificationRule,
        ModificationLevel,
        SigFieldCreationRule,
        SigFieldModificationRule,
        StandardDiffPolicy,
    )
    from pyhanko.sign.diff_analysis.constants import ROOT_EXEMPT_STRICT_COMPARISON
    from pyhanko.sign.diff_analysis.policies import DSSCompareRule
    from pyhanko.sign.diff_analysis.rules.file_structure_rules import (
        CatalogModificationRule,
        ObjectStreamRule,
        XrefStreamRule,
    )

    lta = ModificationLevel.LTA_UPDATES
    return StandardDiffPolicy(
        global_rules=[
            CatalogModificationRule(
                ignored_keys=frozenset(ROOT_EXEMPT_STRICT_COMPARISON) - {"/Metadata"}
            ),
            XrefStreamRule().as_qualified(lta),
            ObjectStreamRule().as_qualified(lta),
            DSSCompareRule().as_qualified(lta),
        ],
        form_rule=FormUpdatingRule(
            field_rules=[
                SigFieldCreationRule(),
                SigFieldModificationRule(),
                GenericFieldModificationRule(),
            ]
        ),
    )


def _validate(signature: Any, root_der: bytes) -> Any:
    from asn1crypto import x509 as asn1_x509
    from pyhanko.sign.validation import validate_pdf_signature
    from pyhanko_certvalidator import ValidationContext

    context = ValidationContext(
        trust_roots=[asn1_x509.Certificate.load(root_der)],
        allow_fetching=False,
        revocation_mode="soft-fail",
    )
    return validate_pdf_signature(
        signature, signer_validation_context=context, diff_policy=concord_diff_policy()
    )


def _summarise(
    data: bytes, signatures: list[Any], statuses: list[Any], name: str, root_sha256: str
) -> VerifyResult:
    from pyhanko.sign.diff_analysis import ModificationLevel
    from pyhanko.sign.validation import SignatureCoverageLevel

    last = statuses[-1]
    cert = last.signing_cert
    signer = _common_name(cert)
    signed_at = last.signer_reported_dt
    intact = all(s.intact for s in statuses)
    crypto_ok = all(s.valid for s in statuses)
    trusted = all(s.trusted for s in statuses)

    problems: list[str] = []
    if not intact:
        problems.append("the signed bytes were changed after signing (digest mismatch)")
    elif not crypto_ok:
        problems.append("the signature value does not verify")
    if crypto_ok and not trusted:
        problems.append(
            f"the signer's certificate does not chain to the root {root_sha256[:16]}… "
            "it was checked against"
        )
    for sig, status in zip(signatures, statuses, strict=True):
        coverage = status.coverage
        level = status.modification_level
        if coverage == SignatureCoverageLevel.ENTIRE_FILE:
            continue
        harmless = coverage == SignatureCoverageLevel.ENTIRE_REVISION and level in (
            ModificationLevel.NONE,
            ModificationLevel.LTA_UPDATES,
        )
        if not harmless:
            what = level.name.lower().replace("_", " ") if level is not None else "unknown"
            diff = status.diff_result
            if isinstance(diff, Exception) and str(diff):
                what += f": {str(diff).splitlines()[0][:200]}"
            problems.append(
                f"the document was modified after signature {sig.field_name!r} "
                f"(coverage {coverage.name if coverage else 'unknown'}, changes: {what})"
            )

    meaning = None
    manifest = attached_record(data)
    if manifest is not None:
        signature_block = manifest.get("signature", {})
        meaning = signature_block.get("meaning")
        printed = signature_block.get("printed_name")
        if printed is not None and signer is not None and printed != signer:
            problems.append(
                f"the printed name on the record ({printed!r}) is not the signer ({signer!r})"
            )

    valid = intact and crypto_ok and trusted and not problems
    return VerifyResult(
        valid=valid,
        intact=intact,
        trusted=trusted,
        signer=signer,
        signed_at=signed_at.astimezone(dt.UTC) if signed_at else None,
        reason="" if valid else f"{name}: " + "; ".join(problems or ["signature is not valid"]),
        signatures=len(statuses),
        coverage=last.coverage.name if last.coverage else None,
        modification_level=last.modification_level.name if last.modification_level else None,
        meaning=meaning,
        certificate_sha256=cert.sha256.hex() if cert is not None else None,
        root_sha256=root_sha256,
    )


def _common_name(cert: Any) -> str | None:
    if cert is None:
        return None
    try:
        value = cert.subject.native.get("common_name")
    except (ValueError, AttributeError):
        return None
    return str(value) if value is not None else None


def attached_record(data: bytes) -> dict[str, Any] | None:
    """The attached review-record.json, if present and parseable."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        attachments = PdfReader(io.BytesIO(data)).attachments
        payloads = attachments.get(ATTACHMENT_NAME)
        if not payloads:
            return None
        parsed = json.loads(payloads[-1])
    except (PyPdfError, ValueError, KeyError, TypeError):
        return None
    return parsed if isinstance(parsed, dict) else None
