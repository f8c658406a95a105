"""users add, audit verify."""

from __future__ import annotations

import argparse

from concord.cli._common import add_json_flag, emit_json, password, services


def register(sub: argparse._SubParsersAction) -> None:
    users = sub.add_parser("users", help="users and their signing keys")
    usub = users.add_subparsers(dest="users_command", required=True, metavar="ACTION")
    p = usub.add_parser("add", help="create a user (clinicians also get a signing key)")
    p.add_argument("name", metavar="NAME")
    p.add_argument("--role", required=True, choices=["clinician", "annotator", "admin"])
    add_json_flag(p)
    p.set_defaults(func=cmd_users_add)

    p = usub.add_parser("list", help="list users")
    add_json_flag(p)
    p.set_defaults(func=cmd_users_list)

    audit = sub.add_parser("audit", help="the append-only, hash-chained audit trail")
    asub = audit.add_subparsers(dest="audit_command", required=True, metavar="ACTION")
    p = asub.add_parser("verify", help="recompute the hash chain")
    add_json_flag(p)
    p.set_defaults(func=cmd_audit_verify)


def cmd_users_add(args: argparse.Namespace) -> int:
    from concord.signoff import create_user

    svc = services()
    secret = password(f"New password for {args.name}: ") if args.role == "clinician" else None
    info = create_user(svc.repo, args.name, args.role, secret)
    if args.json:
        emit_json(info)
    else:
        extra = f"; certificate {info['fingerprint'][:16]}…" if info.get("fingerprint") else ""
        print(f"user {args.name} ({args.role}) created{extra}")
    return 0


def cmd_users_list(args: argparse.Namespace) -> int:
    users = services().repo.list_users()
    if args.json:
        emit_json({"users": [u.model_dump(mode="json") for u in users]})
    else:
        for u in users:
            print(f"{u.name:24} {u.role}")
    return 0


def cmd_audit_verify(args: argparse.Namespace) -> int:
    report = services().repo.verify_audit()
    data = {"ok": report.ok, "rows": report.rows, "first_bad_seq": report.first_bad_seq}
    if args.json:
        emit_json(data)
    else:
        print(
            "audit chain intact"
            if report.ok
            else f"AUDIT CHAIN BROKEN at seq {report.first_bad_seq}",
            f"({report.rows} rows)",
        )
    return 0 if report.ok else 1
