"""Review records: PDF rendering, the installation's keys, PAdES signing and verification."""

from concord.report.keys import (
    RootCA,
    certificate_fingerprint,
    ensure_root_ca,
    issue_user_certificate,
    load_signer,
    root_certificate,
    user_certificate,
)
from concord.report.pdf import render_review_pdf, signature_meaning
from concord.report.sign import SignatureInfo, sign_pdf
from concord.report.verify import VerifyResult, verify_pdf

__all__ = [
    "RootCA",
    "SignatureInfo",
    "certificate_fingerprint",
    "VerifyResult",
    "ensure_root_ca",
    "issue_user_certificate",
    "load_signer",
    "render_review_pdf",
    "root_certificate",
    "sign_pdf",
    "signature_meaning",
    "user_certificate",
    "verify_pdf",
]
