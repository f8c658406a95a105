"""PAdES signing and offline verification of review PDFs."""

from __future__ import annotations

import datetime as dt
import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter

from concord.errors import SigningError
from concord.pki.credentials import Credential
from concord.pki.keys import root_certificate
from concord.report.pdf import MEANING_OVERRIDES, render_review_pdf
from concord.report.sign import sign_pdf
from concord.report.verify import verify_pdf
from tests.report.report_fixtures import (
    SIGNER,
    build_case,
    build_decisions,
    build_record,
    credential_of,
    make_installation,
)

HEAD = (42, "3f" * 32)


def _unsigned(out: Path, *, signer: str = SIGNER, meaning: str = MEANING_OVERRIDES) -> Path:
    record = build_record()
    case = build_case(record)
    render_review_pdf(
        case,
        record,
        build_decisions(case),
        signer_name=signer,
        meaning=meaning,
        signed_at=dt.datetime.now(dt.UTC),
        audit_head=HEAD,
        out=out,
    )
    return out


def _byte_range(path: Path) -> tuple[int, int, int, int]:
    value = PdfReader(path).get_fields()["ClinicianSignature"]["/V"].get_object()
    a, b, c, d = (int(v) for v in value["/ByteRange"])
    return a, b, c, d


@pytest.fixture(scope="module")
def signed_pdf(
    pki_home: Path, credential: Credential, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    folder = tmp_path_factory.mktemp("signed")
    unsigned = _unsigned(folder / "unsigned.pdf")
    out = folder / "signed.pdf"
    info = sign_pdf(
        unsigned,
        out,
        home=pki_home,
        credential=credential,
        meaning=MEANING_OVERRIDES,
        location="Pre-assessment clinic",
    )
    assert info.signer == SIGNER and info.path == out
    return out


@pytest.fixture()
def signed_copy(signed_pdf: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "copy.pdf"
    shutil.copyfile(signed_pdf, copy)
    return copy


def test_sign_then_verify_is_valid_intact_trusted(signed_pdf: Path, pki_home: Path) -> None:
    result = verify_pdf(signed_pdf, pki_home)
    assert result.valid, result.reason
    assert result.intact and result.trusted
    assert result.signer == SIGNER
    assert result.meaning == MEANING_OVERRIDES
    assert result.signed_at is not None
    assert abs(result.signed_at - dt.datetime.now(dt.UTC)) < dt.timedelta(minutes=10)
    assert result.coverage == "ENTIRE_FILE"
    payload = result.to_json()
    assert {"valid", "intact", "trusted", "signer", "signed_at"} <= payload.keys()
    assert payload["signed_at"].endswith("Z")


def test_verify_with_only_the_root_certificate(signed_pdf: Path, pki_home: Path) -> None:
    result = verify_pdf(signed_pdf, trust_root=root_certificate(pki_home))
    assert result.valid, result.reason


def test_signature_is_pades_with_visible_stamp_on_last_page(signed_pdf: Path) -> None:
    reader = PdfReader(signed_pdf)
    field = reader.get_fields()["ClinicianSignature"]
    value = field["/V"].get_object()
    assert value["/SubFilter"] == "/ETSI.CAdES.detached"
    annots = [a.get_object() for a in reader.pages[-1].get("/Annots", [])]
    widget = next(a for a in annots if a.get("/T") == "ClinicianSignature")
    x1, y1, x2, y2 = (float(v) for v in widget["/Rect"])
    assert x2 - x1 > 100 and y2 - y1 > 30  # visible, not a zero-size field
    assert "/AP" in widget


def test_flipped_byte_inside_signed_range_is_detected(signed_copy: Path, pki_home: Path) -> None:
    data = bytearray(signed_copy.read_bytes())
    target = data.find(b"Pre-operative risk review record")  # document info, signed
    start1, len1, start2, len2 = _byte_range(signed_copy)
    assert start1 <= target < start1 + len1 or start2 <= target < start2 + len2
    data[target] ^= 0x01
    signed_copy.write_bytes(bytes(data))
    result = verify_pdf(signed_copy, pki_home)
    assert not result.valid
    assert not result.intact
    assert result.reason


def test_page_appended_in_an_incremental_update_fails(
    signed_copy: Path, pki_home: Path, tmp_path: Path
) -> None:
    writer = PdfWriter(signed_copy, incremental=True)
    writer.add_blank_page()
    buffer = io.BytesIO()
    writer.write(buffer)
    original = signed_copy.read_bytes()
    updated = buffer.getvalue()
    assert updated.startswith(original)  # really an incremental update
    tampered = tmp_path / "appended.pdf"
    tampered.write_bytes(updated)
    assert len(PdfReader(tampered).pages) == len(PdfReader(signed_copy).pages) + 1
    result = verify_pdf(tampered, pki_home)
    assert not result.valid
    assert "modified after signature" in result.reason


def test_certificate_from_a_foreign_root_is_not_trusted(tmp_path: Path, pki_home: Path) -> None:
    foreign_home = tmp_path / "other-hospital"
    foreign_home.mkdir()
    make_installation(foreign_home)
    out = tmp_path / "foreign.pdf"
    sign_pdf(
        _unsigned(tmp_path / "u.pdf"),
        out,
        home=foreign_home,
        credential=credential_of(foreign_home),
        meaning=MEANING_OVERRIDES,
    )
    assert verify_pdf(out, foreign_home).valid  # valid where it was made...
    result = verify_pdf(out, pki_home)  # ...but not under this installation's root
    assert result.intact
    assert not result.trusted
    assert not result.valid
    assert "root" in result.reason


def test_record_naming_another_signer_is_refused(
    tmp_path: Path, pki_home: Path, credential: Credential
) -> None:
    unsigned = _unsigned(tmp_path / "u.pdf", signer="Dr Someone Else")
    out = tmp_path / "signed.pdf"
    with pytest.raises(SigningError, match="names 'Dr Someone Else' as signer"):
        sign_pdf(unsigned, out, home=pki_home, credential=credential, meaning=MEANING_OVERRIDES)
    assert not out.exists()


def test_signing_twice_is_refused(
    signed_pdf: Path, pki_home: Path, tmp_path: Path, credential: Credential
) -> None:
    out = tmp_path / "again.pdf"
    with pytest.raises(SigningError, match="already signed"):
        sign_pdf(
            signed_pdf,
            out,
            home=pki_home,
            credential=credential,
            meaning=MEANING_OVERRIDES,
        )
    assert not out.exists()


def test_unsigned_pdf_is_reported_without_signature(tmp_path: Path, pki_home: Path) -> None:
    result = verify_pdf(_unsigned(tmp_path / "u.pdf"), pki_home)
    assert not result.valid and "no signature" in result.reason


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"hello, not a pdf", "not a PDF"), (b"%PDF-1.7\n garbage \n%%EOF", "not a readable PDF")],
)
def test_non_pdf_input_gives_a_clear_reason(
    tmp_path: Path, pki_home: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "x.pdf"
    path.write_bytes(content)
    result = verify_pdf(path, pki_home)
    assert not result.valid and not result.intact and not result.trusted
    assert message in result.reason
    assert "\n" not in result.reason


def test_missing_file_gives_a_clear_reason(tmp_path: Path, pki_home: Path) -> None:
    result = verify_pdf(tmp_path / "absent.pdf", pki_home)
    assert not result.valid and "file not found" in result.reason


def test_independent_validator_pdfsig_accepts_the_signature(signed_pdf: Path) -> None:
    pdfsig = shutil.which("pdfsig")
    if pdfsig is None:
        pytest.skip("pdfsig not installed (Debian/Ubuntu package: poppler-utils)")
    run = subprocess.run([pdfsig, str(signed_pdf)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "Signature is Valid." in run.stdout, run.stdout
    assert "Total document signed" in run.stdout, run.stdout
    assert "ETSI.CAdES.detached" in run.stdout


def test_pdfsig_rejects_a_tampered_file(signed_copy: Path) -> None:
    pdfsig = shutil.which("pdfsig")
    if pdfsig is None:
        pytest.skip("pdfsig not installed (Debian/Ubuntu package: poppler-utils)")
    original = signed_copy.read_bytes()
    data = bytearray(original)
    target = data.find(b"Pre-operative risk review record")
    assert target >= 0, "the text to tamper with is not in the file"
    ranges = re.search(rb"/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]", original)
    assert ranges is not None
    a, b, c, d = (int(x) for x in ranges.groups())
    assert a <= target < a + b or c <= target < c + d, "the tamper must hit signed bytes"
    data[target] ^= 0x01
    signed_copy.write_bytes(bytes(data))
    assert signed_copy.read_bytes() != original and len(signed_copy.read_bytes()) == len(original)
    run = subprocess.run([pdfsig, str(signed_copy)], capture_output=True, text=True, timeout=60)
    assert "Signature #1" in run.stdout, run.stdout  # pdfsig read the signature...
    assert "Signature is Valid." not in run.stdout, run.stdout  # ...and refused it
