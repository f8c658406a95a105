"""export-pdf, verify-pdf."""

from __future__ import annotations

import argparse
from pathlib import Path

from concord import paths
from concord.cli._common import add_json_flag, emit_json, password, services
from concord.report.verify import verify_pdf
from concord.signoff import sign_case


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export-pdf", help="sign a reviewed case as a PAdES PDF review record")
    p.add_argument("case_id", metavar="CASE_ID")
    p.add_argument("--user", required=True, help="the signing clinician")
    p.add_argument("--out", required=True, type=Path, metavar="FILE")
    add_json_flag(p)
    p.set_defaults(func=cmd_export_pdf)

    p = sub.add_parser("verify-pdf", help="verify a signed review record (offline)")
    p.add_argument("file", type=Path, metavar="FILE")
    add_json_flag(p)
    p.set_defaults(func=cmd_verify_pdf)


def cmd_export_pdf(args: argparse.Namespace) -> int:
    svc = services()
    secret = password(f"Password for {args.user}: ")
    signed = sign_case(svc.repo, args.case_id, user=args.user, password=secret, out=args.out)
    data = {
        "path": str(signed.path),
        "meaning": signed.meaning,
        "signed_at": signed.signed_at.isoformat(),
        "audit_head": {"seq": signed.audit_head_seq, "hash": signed.audit_head_hash},
    }
    if args.json:
        emit_json(data)
    else:
        print(f"signed {signed.path}  ({signed.meaning}, {data['signed_at']})")
    return 0


def cmd_verify_pdf(args: argparse.Namespace) -> int:
    result = verify_pdf(args.file, paths.concord_home())
    data = result.to_json()
    if args.json:
        emit_json(data)
    else:
        state = "VALID" if result.valid else "NOT VALID"
        print(
            f"{state}: intact={result.intact} trusted={result.trusted} signer={result.signer} "
            f"signed_at={result.signed_at}" + (f" ({result.reason})" if result.reason else "")
        )
    return 0 if result.valid else 1
