"""export-pdf, verify-pdf."""

from __future__ import annotations

import argparse
from pathlib import Path

from concord import paths
from concord.cli._common import add_json_flag, emit_json, services, sign_in_as
from concord.errors import InputError
from concord.report.verify import normalise_fingerprint
from concord.signoff import sign_case, verify_signed_record


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export-pdf", help="sign a reviewed case as a PAdES PDF review record")
    p.add_argument("case_id", metavar="CASE_ID")
    p.add_argument("--user", required=True, help="the signing clinician")
    p.add_argument("--out", required=True, type=Path, metavar="FILE")
    add_json_flag(p)
    p.set_defaults(func=cmd_export_pdf)

    p = sub.add_parser("verify-pdf", help="verify a signed review record (offline)")
    p.add_argument("file", type=Path, metavar="FILE")
    root = p.add_mutually_exclusive_group()
    root.add_argument(
        "--root",
        type=Path,
        metavar="CERT",
        help="check against this root certificate (PEM or DER) instead of the installation's",
    )
    root.add_argument(
        "--root-fingerprint",
        metavar="HEX",
        help="check against the root whose SHA-256 fingerprint this is (64 hex digits, "
        "colons allowed), e.g. from the installation's anchor printout",
    )
    add_json_flag(p)
    p.set_defaults(func=cmd_verify_pdf)


def cmd_export_pdf(args: argparse.Namespace) -> int:
    svc = services()
    session = sign_in_as(svc, args.user)
    signed = sign_case(svc.repo, session, args.case_id, out=args.out, rules=svc.screen.definitions)
    data = {
        "path": str(signed.path),
        "meaning": signed.meaning,
        "signed_at": signed.signed_at.isoformat(),
        "audit_head": {"seq": signed.audit_head_seq, "hash": signed.audit_head_hash},
        "signature_id": signed.signature_id,
        "supersedes": signed.supersedes,
        "reviewed": signed.reviewed,
        "not_reviewed": signed.not_reviewed,
    }
    if args.json:
        emit_json(data)
    else:
        print(f"signed {signed.path}  ({signed.meaning}, {data['signed_at']})")
    return 0


def cmd_verify_pdf(args: argparse.Namespace) -> int:
    home = paths.concord_home(create=False)
    trust_root = None
    if args.root is not None:
        try:
            trust_root = args.root.read_bytes()
        except OSError as exc:
            raise InputError(
                f"cannot read the root certificate ({exc.strerror or exc})", subject=args.root
            ) from exc
    if args.root_fingerprint is not None:
        try:
            normalise_fingerprint(args.root_fingerprint)
        except ValueError as exc:
            raise InputError(str(exc)) from None
    repo = services().repo if paths.database_path().exists() else None
    data = verify_signed_record(
        args.file, repo, home, trust_root=trust_root, root_fingerprint=args.root_fingerprint
    )
    if args.json:
        emit_json(data)
    else:
        state = "VALID" if data["valid"] else "NOT VALID"
        registered = data["registered"]
        who = (
            " (certificate registered for this user)"
            if registered.get("fingerprint_matches")
            else ""
        )
        print(
            f"{state}: intact={data['intact']} trusted={data['trusted']} "
            f"signer={data['signer']}{who} signed_at={data['signed_at']}"
            + (f" ({data['reason']})" if data["reason"] else "")
        )
        if data["root_sha256"]:
            print(f"checked against the root with SHA-256 fingerprint {data['root_sha256']}")
        currency = data["currency"]
        if currency.get("known"):
            if currency["current"]:
                print(f"CURRENT: the latest signed record of case {currency['case_id']}")
            else:
                print(f"NOT CURRENT: case {currency['case_id']}: {currency['problem']}")
        elif currency.get("checked"):
            print(f"NOT KNOWN HERE: {currency['problem']}")
        else:
            print(f"installation checks not made: {currency['why']}")
    return 0 if data["valid"] else 1
