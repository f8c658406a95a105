"""Sign a review PDF (PAdES baseline, ETSI.CAdES.detached) with a clinician's own key.

The visible stamp goes into the empty `ClinicianSignature` field that `render_review_pdf`
placed under the signature block on the last page (or, for another PDF, into a new field at
the bottom of its last page). `sign_pdf_bytes` returns the signed bytes, checked with
`verify_pdf_bytes`; the caller decides where they go (`concord.signoff` moves them into place
only once the signature is recorded). The key is the clinician's unlocked credential.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from concord.atomic_io import write_atomic
from concord.errors import InputError, SigningError
from concord.pki.credentials import Credential
from concord.pki.keys import signer_for
from concord.report.pdf import SIGNATURE_FIELD
from concord.report.record_json import ATTACHMENT_NAME
from concord.report.verify import VerifyResult, verify_pdf, verify_pdf_bytes

FALLBACK_BOX = (45, 60, 345, 126)  # bottom-left of the last page, for PDFs Concord did not draw
# The record states when the clinician signs; it must be rendered just before signing.
MAX_MANIFEST_AGE = dt.timedelta(minutes=30)
MAX_CLOCK_AHEAD = dt.timedelta(minutes=2)
STAMP_TEMPLATE = (
    "Electronically signed by: %(name)s\n"
    "Date/time (UTC): %(when)s\n"
    "Meaning: %(meaning)s\n"
    "Key certified by the Concord installation root"
)


@dataclass(frozen=True)
class SignatureInfo:
    path: Path
    signer: str
    signed_at: dt.datetime
    meaning: str
    field_name: str
    certificate_sha256: str
    subfilter: str = "ETSI.CAdES.detached"


def sign_pdf_bytes(
    data: bytes,
    *,
    home: Path,
    credential: Credential,
    meaning: str,
    source: Path | str = "document",
    reason: str | None = None,
    location: str = "",
) -> tuple[bytes, SignatureInfo]:
    """Sign the PDF `data` with the clinician's unlocked credential; nothing is written.

    A Concord review PDF whose printed name or meaning differ from the signer/`meaning` is
    refused (SigningError); so is a result that does not verify.
    """
    if not meaning.strip():
        raise InputError("the meaning of the signature must not be empty")
    signer = signer_for(home, credential)
    certificate = signer.signing_cert
    if certificate is None:  # pragma: no cover - signer_for always sets it
        raise SigningError(f"no certificate in the signing key of {credential.user}")
    name = str(certificate.subject.native.get("common_name", credential.user))
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    stated = _check_manifestation(data, name, meaning, Path(source), now)
    signed_at = stated or now  # the stamp repeats the time printed in the record
    try:
        signed = _sign_bytes(data, signer, name, meaning, reason or meaning, location, signed_at)
    except SigningError:
        raise
    except Exception as exc:
        raise SigningError(
            f"cannot sign the PDF ({type(exc).__name__}: {exc})", subject=source
        ) from exc
    check = verify_pdf_bytes(signed, home, name=str(source))
    if not check.valid:
        raise SigningError(f"the signed PDF did not verify: {check.reason}", subject=source)
    info = SignatureInfo(
        path=Path(source),
        signer=name,
        signed_at=signed_at,
        meaning=meaning,
        field_name=SIGNATURE_FIELD,
        certificate_sha256=certificate.sha256.hex(),
    )
    return signed, info


def sign_pdf(
    unsigned: Path,
    out: Path,
    *,
    home: Path,
    credential: Credential,
    meaning: str,
    reason: str | None = None,
    location: str = "",
) -> SignatureInfo:
    """Sign the PDF at `unsigned` and write it to `out` atomically (nothing on failure)."""
    unsigned, out = Path(unsigned), Path(out)
    try:
        data = unsigned.read_bytes()
    except OSError as exc:
        raise InputError(
            f"cannot read the PDF to sign ({exc.strerror or exc})", subject=unsigned
        ) from exc
    signed, info = sign_pdf_bytes(
        data,
        home=home,
        credential=credential,
        meaning=meaning,
        source=unsigned,
        reason=reason,
        location=location,
    )
    write_atomic(out, signed)
    return SignatureInfo(
        path=out,
        signer=info.signer,
        signed_at=info.signed_at,
        meaning=info.meaning,
        field_name=info.field_name,
        certificate_sha256=info.certificate_sha256,
    )


def _check_manifestation(
    data: bytes, name: str, meaning: str, source: Path, now: dt.datetime
) -> dt.datetime | None:
    """The printed name, meaning and time inside a Concord record must match this signing.

    Returns the signing time stated in the record, or None for a PDF without a record.
    """
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        payloads = PdfReader(io.BytesIO(data)).attachments.get(ATTACHMENT_NAME)
    except (PyPdfError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"not a readable PDF ({exc})", subject=source) from exc
    if not payloads:
        return None
    try:
        manifest = json.loads(payloads[-1]).get("signature", {})
    except (ValueError, AttributeError) as exc:
        raise SigningError("the attached review record is not valid JSON", subject=source) from exc
    if manifest.get("printed_name") != name:
        raise SigningError(
            f"the record names {manifest.get('printed_name')!r} as signer, not {name!r}",
            subject=source,
        )
    if manifest.get("meaning") != meaning:
        raise SigningError(
            f"the record states the meaning {manifest.get('meaning')!r}, not {meaning!r}",
            subject=source,
        )
    try:
        stated = dt.datetime.fromisoformat(str(manifest.get("signed_at")))
    except ValueError as exc:
        raise SigningError("the record has no valid signing time", subject=source) from exc
    if stated.tzinfo is None:
        raise SigningError("the record's signing time has no time zone", subject=source)
    if not now - MAX_MANIFEST_AGE <= stated <= now + MAX_CLOCK_AHEAD:
        raise SigningError(
            f"the record states signing time {manifest.get('signed_at')}, but it is now "
            f"{now:%Y-%m-%dT%H:%M:%SZ}: render the record again just before signing",
            subject=source,
        )
    return stated.astimezone(dt.UTC)


def _stamp_text(value: str) -> str:
    """The stamp uses a PDF standard font (WinAnsi): keep Latin-1, fold the rest."""
    replacements = {"—": "-", "–": "-", "≥": ">=", "≤": "<=", "→": "->", "’": "'", "‘": "'"}
    out = []
    for char in " ".join(value.split()):
        char = replacements.get(char, char)
        if all(0x20 <= ord(c) <= 0x7E or 0xA0 <= ord(c) <= 0xFF for c in char):
            out.append(char)
        else:
            folded = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode()
            out.append(folded or "?")
    return "".join(out)


def _sign_bytes(
    data: bytes,
    signer: Any,
    name: str,
    meaning: str,
    reason: str,
    location: str,
    signed_at: dt.datetime,
) -> bytes:
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.sign import fields, signers
    from pyhanko.stamp import TextStampStyle

    writer = IncrementalPdfFileWriter(io.BytesIO(data), strict=False)
    existing = {
        field_name: filled for field_name, filled, _ref in fields.enumerate_sig_fields(writer.prev)
    }
    new_field: fields.SigFieldSpec | None = None
    if SIGNATURE_FIELD in existing:
        if existing[SIGNATURE_FIELD] is not None:
            raise SigningError("the PDF is already signed")
    else:
        last_page = int(writer.root["/Pages"]["/Count"]) - 1
        new_field = fields.SigFieldSpec(
            sig_field_name=SIGNATURE_FIELD, on_page=last_page, box=FALLBACK_BOX
        )
    meta = signers.PdfSignatureMetadata(
        field_name=SIGNATURE_FIELD,
        md_algorithm="sha256",
        subfilter=fields.SigSeedSubFilter.PADES,
        reason=reason,
        location=location or None,
        name=name,
    )
    pdf_signer = signers.PdfSigner(
        meta,
        signer=signer,
        stamp_style=TextStampStyle(stamp_text=STAMP_TEMPLATE, border_width=1, background=None),
        new_field_spec=new_field,
    )
    output = pdf_signer.sign_pdf(
        writer,
        appearance_text_params={
            "name": _stamp_text(name),
            "when": signed_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "meaning": _stamp_text(meaning),
        },
        output=io.BytesIO(),
    )
    return bytes(output.getvalue())


__all__ = ["SignatureInfo", "VerifyResult", "sign_pdf", "sign_pdf_bytes", "verify_pdf"]
