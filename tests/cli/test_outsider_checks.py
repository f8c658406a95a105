"""What a signed PDF proves, to this installation and to an outsider (issue 28, items 2, 4, 5).

* A signature the installation's chain does not hold is never VALID here: a revoked
  clinician who signs out of band with their kept key, stating a time before the
  revocation, is refused (the PDF's own signing time is not trusted).
* Nothing added after signing verifies: an incremental /Info or XMP /Metadata update.
* An outsider checks with the root certificate or its fingerprint alone: a data folder
  rebuilt with a new root makes a forged PDF verify there, but not against the genuine root.
"""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path

import pytest
from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter

from concord import paths
from concord.accounts.revocation import revoke_user
from concord.pki.credentials import unseal
from concord.pki.keys import credential_path, existing_root_ca
from concord.report.pdf import render_review_pdf, signature_meaning
from concord.report.sign import sign_pdf
from concord.store import Repository
from tests.cli.test_audit_attacks import verify
from tests.identity import PASSWORD, admin_session
from tests.installation import CLINICIAN, decide_all, make_installation

FAKE_TITLE = "K+ normal - no action"
XMP = (
    b'<?xpacket begin=""?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.'
    b'w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/'
    b'1.1/"><dc:title>K+ normal - no action</dc:title></rdf:Description></rdf:RDF></x:xmpmeta>'
    b'<?xpacket end="w"?>'
)


@pytest.fixture
def signed(installation: Repository, run, tmp_path: Path) -> Path:
    decide_all(run)
    out = tmp_path / "pdfs" / "C-1.pdf"
    done = run("export-pdf", "C-1", "--user", CLINICIAN, "--out", str(out), password=PASSWORD)
    assert done.code == 0, done.err
    return out


def _out_of_band(repo: Repository, out: Path, *, signed_at: dt.datetime) -> Path:
    """What a clinician with their key file and password can do without Concord: render the
    case and sign it with their own key, no signature row, any time they like."""
    home = paths.concord_home()
    credential = unseal(credential_path(home, CLINICIAN), PASSWORD, user=CLINICIAN)
    case = repo.get_case("C-1")
    decisions = repo.decisions(case_id="C-1")
    meaning = signature_meaning(decisions)
    unsigned = out.with_suffix(".unsigned.pdf")
    render_review_pdf(
        case,
        repo.get_record(case.record_id),
        decisions,
        signer_name=CLINICIAN,
        meaning=meaning,
        signed_at=signed_at,
        audit_head=repo.audit_head(),
        out=unsigned,
    )
    sign_pdf(unsigned, out, home=home, credential=credential, meaning=meaning)
    unsigned.unlink()
    return out


def _append(source: Path, out: Path, what: str) -> Path:
    """An incremental update after the signature: a new /Info title or a new XMP stream."""
    writer = IncrementalPdfFileWriter(io.BytesIO(source.read_bytes()))
    if what == "info":
        title = {generic.NameObject("/Title"): generic.TextStringObject(FAKE_TITLE)}
        writer.set_info(writer.add_object(generic.DictionaryObject(title)))
    else:
        stream = generic.StreamObject(
            {
                generic.NameObject("/Type"): generic.NameObject("/Metadata"),
                generic.NameObject("/Subtype"): generic.NameObject("/XML"),
            },
            stream_data=XMP,
        )
        writer.root[generic.NameObject("/Metadata")] = writer.add_object(stream)
        writer.update_root()
    buffer = io.BytesIO()
    writer.write(buffer)
    assert buffer.getvalue().startswith(source.read_bytes())  # really appended
    out.write_bytes(buffer.getvalue())
    return out


def test_a_revoked_clinician_signing_out_of_band_before_the_revocation_is_not_valid(
    installation: Repository, run, tmp_path: Path
) -> None:
    decide_all(run)
    revoke_user(installation, CLINICIAN, "left the trust", admin=admin_session(installation))
    early = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=60)  # as under faketime -60s
    pdf = _out_of_band(installation, tmp_path / "oob.pdf", signed_at=early)
    checked = run("verify-pdf", str(pdf), "--json")
    data = checked.json()
    assert data["intact"] and data["trusted"]  # a good signature, by a registered key ...
    assert checked.code == 1 and data["valid"] is False  # ... that the chain does not hold
    assert "holds no signature for these exact bytes" in data["registered"]["problem"]
    said = run("verify-pdf", str(pdf))
    assert said.out.startswith("NOT VALID") and "registered for this user" in said.out


def test_a_key_used_outside_concord_never_verifies_here_even_unrevoked(
    installation: Repository, run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    decide_all(run)
    pdf = _out_of_band(installation, tmp_path / "oob.pdf", signed_at=dt.datetime.now(dt.UTC))
    data = run("verify-pdf", str(pdf), "--json").json()
    assert data["valid"] is False and not data["currency"]["known"]
    root = existing_root_ca(paths.concord_home())
    assert root is not None
    root_pem = tmp_path / "root.pem"
    root_pem.write_bytes(root.pem)
    # naming this installation's own root changes nothing: its checks still apply
    data = run("verify-pdf", str(pdf), "--root", str(root_pem), "--json").json()
    assert data["valid"] is False and data["registered"]["checked"]
    # an outsider with the root alone sees a good signature by a certified key, and is told
    # that no installation checked it (what the compliance procedure says to do next)
    monkeypatch.setenv("CONCORD_HOME", str(tmp_path / "auditor"))
    outsider = run("verify-pdf", str(pdf), "--root", str(root_pem), "--json").json()
    assert outsider["valid"] and outsider["root_sha256"] == root.fingerprint_sha256
    assert outsider["currency"] == {"checked": False, "why": "no installation here"}


@pytest.mark.parametrize("what", ["info", "xmp"])
def test_an_update_appended_after_signing_is_not_valid(
    signed: Path, run, tmp_path: Path, what: str
) -> None:
    assert run("verify-pdf", str(signed), "--json").json()["valid"]
    tampered = _append(signed, signed.with_name(f"C-1-{what}.pdf"), what)
    checked = run("verify-pdf", str(tampered), "--json")
    data = checked.json()
    assert checked.code == 1 and data["valid"] is False and data["intact"]
    assert "modified after signature" in data["reason"]
    assert "Traceback" not in checked.err and "Traceback" not in checked.out
    report = verify(run, "--pdfs", str(signed.parent))
    assert not report["ok"]
    assert any(
        p["check"] == "pdf" and p["subject"] == str(tampered) and "modified after" in p["detail"]
        for p in report["problems"]
    )


def test_the_root_fingerprint_is_printed_on_the_pdf_and_by_users_list(signed: Path, run) -> None:
    from pypdf import PdfReader

    root = existing_root_ca(paths.concord_home())
    assert root is not None
    text = "".join(page.extract_text() for page in PdfReader(signed).pages).replace("\n", "")
    pairs = [root.fingerprint_sha256[i : i + 2].upper() for i in range(0, 64, 2)]
    assert ":".join(pairs[:16]) in text and ":".join(pairs[16:]) in text
    assert root.fingerprint_sha256 in run("users", "list").out
    assert run("users", "list", "--json").json()["root_sha256"] == root.fingerprint_sha256


def test_a_data_folder_rebuilt_with_a_new_root_fails_the_outsiders_check(
    signed: Path, run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The attacker replaces the whole data folder: a new root, the same user names, and a
    forged record signed as Dr Smith. Against the rebuilt folder the forgery verifies and
    the genuine record does not; against the genuine root (the certificate, or only its
    fingerprint from an anchor printout) it is the other way round."""
    genuine_root = existing_root_ca(paths.concord_home())
    assert genuine_root is not None
    root_pem = tmp_path / "genuine-root.pem"
    root_pem.write_bytes(genuine_root.pem)
    fingerprint = ":".join(
        genuine_root.fingerprint_sha256[i : i + 2].upper() for i in range(0, 64, 2)
    )

    rebuilt = tmp_path / "rebuilt-home"
    rebuilt.mkdir()
    monkeypatch.setenv("CONCORD_HOME", str(rebuilt))
    with Repository.open() as repo:
        make_installation(repo)
    decide_all(run)
    forged = tmp_path / "forged.pdf"
    done = run("export-pdf", "C-1", "--user", CLINICIAN, "--out", str(forged), password=PASSWORD)
    assert done.code == 0, done.err

    here = {p.name: run("verify-pdf", str(p), "--json").json() for p in (signed, forged)}
    assert here["forged.pdf"]["valid"] and not here["C-1.pdf"]["valid"]  # the attack
    for option in (["--root", str(root_pem)], ["--root-fingerprint", fingerprint]):
        genuine = run("verify-pdf", str(signed), *option, "--json")
        fake = run("verify-pdf", str(forged), *option, "--json")
        assert genuine.code == 0 and genuine.json()["valid"], genuine.out
        assert fake.code == 1 and not fake.json()["valid"]
        assert genuine.json()["root_sha256"] == genuine_root.fingerprint_sha256
        # the rebuilt folder's own checks are not applied to a root that is not its own
        assert fake.json()["currency"]["checked"] is False
        assert "not this installation's root" in fake.json()["currency"]["why"]
        assert "Traceback" not in fake.err


def test_a_bad_root_option_is_one_clear_line(signed: Path, run, tmp_path: Path) -> None:
    bad = run("verify-pdf", str(signed), "--root-fingerprint", "abc")
    assert bad.code != 0 and "not a SHA-256 fingerprint" in bad.err
    assert len(bad.err.strip().splitlines()) == 1
    not_cert = tmp_path / "root.pem"
    not_cert.write_text("hello")
    data = run("verify-pdf", str(signed), "--root", str(not_cert), "--json").json()
    assert not data["valid"] and "not an X.509 certificate" in data["reason"]
