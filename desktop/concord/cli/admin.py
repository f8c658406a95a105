"""users add / list / revoke / passwd, audit verify."""

from __future__ import annotations

import argparse
from pathlib import Path

from concord import paths
from concord.cli._common import (
    ADMIN_PASSWORD_ENV,
    add_json_flag,
    emit_json,
    password,
    services,
    sign_in_as,
)

ADMIN_HELP = "the admin doing it (password from the prompt or CONCORD_ADMIN_PASSWORD)"


def register(sub: argparse._SubParsersAction) -> None:
    users = sub.add_parser("users", help="users, their credentials and signing keys")
    usub = users.add_subparsers(dest="users_command", required=True, metavar="ACTION")
    p = usub.add_parser(
        "add",
        help="enrol a user (the first is the admin; later ones need --admin); clinicians "
        "also get a signing certificate, clinicians and annotators an identity certificate",
    )
    p.add_argument("name", metavar="NAME")
    p.add_argument("--role", required=True, choices=["clinician", "annotator", "admin"])
    p.add_argument(
        "--admin",
        metavar="ADMIN",
        help=ADMIN_HELP,
    )
    add_json_flag(p)
    p.set_defaults(func=cmd_users_add)

    p = usub.add_parser("list", help="list users")
    add_json_flag(p)
    p.set_defaults(func=cmd_users_list)

    p = usub.add_parser(
        "revoke",
        help="end a user's account for good (they can no longer sign in, decide or sign; "
        "what they did before stays valid)",
    )
    p.add_argument("name", metavar="NAME")
    p.add_argument("--admin", metavar="ADMIN", required=True, help=ADMIN_HELP)
    p.add_argument("--reason", required=True, help="why (kept in the audit trail)")
    add_json_flag(p)
    p.set_defaults(func=cmd_users_revoke)

    p = usub.add_parser(
        "certify",
        help="issue the root certificate of a user's identity key (for users enrolled before "
        "identity certificates: annotators need one to sign label packages)",
    )
    p.add_argument("name", metavar="NAME")
    p.add_argument("--admin", metavar="ADMIN", required=True, help=ADMIN_HELP)
    add_json_flag(p)
    p.set_defaults(func=cmd_users_certify)

    p = usub.add_parser(
        "passwd",
        help="change your password: new keys and, for a clinician, a new certificate "
        "(old one from CONCORD_PASSWORD, new from CONCORD_NEW_PASSWORD); an admin issues a "
        "non-admin's new credentials with --admin",
    )
    p.add_argument("name", metavar="NAME")
    p.add_argument("--admin", metavar="ADMIN", help=ADMIN_HELP)
    p.set_defaults(func=cmd_users_passwd)

    settings = sub.add_parser(
        "settings", help="installation settings an admin signs (lock timeout, server list)"
    )
    ssub = settings.add_subparsers(dest="settings_command", required=True, metavar="ACTION")
    p = ssub.add_parser(
        "set",
        help="set lock_minutes (1-60) or llama_servers (URL,URL), signed by an admin",
    )
    p.add_argument("key", choices=["lock_minutes", "llama_servers"])
    p.add_argument("value", metavar="VALUE")
    p.add_argument("--admin", metavar="ADMIN", required=True, help=ADMIN_HELP)
    add_json_flag(p)
    p.set_defaults(func=cmd_settings_set)
    p = ssub.add_parser("show", help="the settings in force and who signed them")
    add_json_flag(p)
    p.set_defaults(func=cmd_settings_show)

    audit = sub.add_parser("audit", help="the append-only, hash-chained audit trail")
    asub = audit.add_subparsers(dest="audit_command", required=True, metavar="ACTION")
    p = asub.add_parser(
        "verify",
        help="recompute the hash chain and check the tables, anchors and signed PDFs against it",
    )
    p.add_argument(
        "--anchor",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="also check the heads in this anchor file (e.g. the copy kept off the workstation)",
    )
    p.add_argument(
        "--pdfs", type=Path, metavar="DIR", help="check the heads printed in these signed PDFs"
    )
    add_json_flag(p)
    p.set_defaults(func=cmd_audit_verify)


def cmd_users_add(args: argparse.Namespace) -> int:
    from concord.accounts.enrolment import enrol_user

    svc = services()
    admin = sign_in_as(svc, args.admin, ADMIN_PASSWORD_ENV) if args.admin else None
    secret = password(f"New password for {args.name}: ")
    info = enrol_user(svc.repo, args.name, args.role, secret, admin=admin)
    if args.json:
        emit_json(
            {
                "name": info.name,
                "role": info.role.value,
                "fingerprint": info.fingerprint,
                "public_key": info.public_key,
                "enrolled_by": info.enrolled_by,
            }
        )
    else:
        extra = f"; certificate {info.fingerprint[:16]}…" if info.fingerprint else ""
        print(f"user {info.name} ({info.role.value}) enrolled by {info.enrolled_by}{extra}")
    return 0


def cmd_users_certify(args: argparse.Namespace) -> int:
    from concord.accounts.enrolment import certify_identity

    svc = services()
    admin = sign_in_as(svc, args.admin, ADMIN_PASSWORD_ENV)
    fingerprint = certify_identity(svc.repo, args.name, admin=admin)
    if args.json:
        emit_json({"name": args.name, "identity_certificate": fingerprint})
    else:
        print(f"identity certificate of {args.name} issued: SHA-256 {fingerprint}")
    return 0


def cmd_users_list(args: argparse.Namespace) -> int:
    from concord.accounts.session import revocation_note, revoked_accounts
    from concord.pki.keys import existing_root_ca

    repo = services().repo
    users, revoked = repo.list_users(), revoked_accounts(repo)
    root = existing_root_ca(paths.concord_home())
    fingerprint = root.fingerprint_sha256 if root is not None else None
    if args.json:
        emit_json(
            {
                "root_sha256": fingerprint,
                "users": [
                    {**u.model_dump(mode="json"), "revoked": revoked.get(u.name)} for u in users
                ],
            }
        )
    else:
        print(f"installation root SHA-256: {fingerprint or '(no root yet)'}")
        for u in users:
            state = "" if u.enrolled else "  (no credential: re-enrol with users add --admin)"
            if u.name in revoked:
                state = f"  REVOKED ({revocation_note(revoked[u.name])})"
            print(f"{u.name:24} {u.role.value}{state}")
    return 0


def cmd_users_revoke(args: argparse.Namespace) -> int:
    from concord.accounts.revocation import revoke_user

    svc = services()
    admin = sign_in_as(svc, args.admin, ADMIN_PASSWORD_ENV)
    done = revoke_user(svc.repo, args.name, args.reason, admin=admin)
    if args.json:
        emit_json(
            {"name": done.name, "revoked_by": done.revoked_by, "reason": done.reason, "at": done.at}
        )
    else:
        print(f"account of {done.name} revoked by {done.revoked_by}: {done.reason}")
    return 0


def cmd_users_passwd(args: argparse.Namespace) -> int:
    from concord.accounts.enrolment import change_password

    svc = services()
    session = sign_in_as(svc, args.name)
    admin = sign_in_as(svc, args.admin, ADMIN_PASSWORD_ENV) if args.admin else None
    new = password(f"New password for {args.name}: ", "CONCORD_NEW_PASSWORD")
    done = change_password(svc.repo, session, new, admin=admin)
    extra = f"; new certificate {done.fingerprint[:16]}…" if done.fingerprint else ""
    print(f"password of {session.name} changed: new keys issued by {done.enrolled_by}{extra}")
    return 0


def cmd_settings_set(args: argparse.Namespace) -> int:
    from concord.accounts.settings import set_setting

    svc = services()
    admin = sign_in_as(svc, args.admin, ADMIN_PASSWORD_ENV)
    done = set_setting(svc.repo, admin, args.key, args.value)
    if args.json:
        emit_json({"key": done.key, "value": done.value, "set_by": done.set_by, "at": done.at})
    else:
        print(f"{done.key} = {done.value} (signed by {done.set_by})")
    return 0


def cmd_settings_show(args: argparse.Namespace) -> int:
    from concord.accounts.settings import (
        CHECKS,
        DEFAULT_LOCK_MINUTES,
        LOCK_MINUTES,
        setting_in_force,
    )

    repo = services().repo
    shown = {}
    for key in sorted(CHECKS):
        found = setting_in_force(repo, key)
        default: object = DEFAULT_LOCK_MINUTES if key == LOCK_MINUTES else []
        shown[key] = (
            {"value": found.value, "set_by": found.set_by, "at": found.at}
            if found is not None
            else {"value": default, "set_by": None, "at": None}
        )
    if args.json:
        emit_json(shown)
    else:
        for key, item in shown.items():
            who = f"signed by {item['set_by']}" if item["set_by"] else "default"
            print(f"{key} = {item['value']} ({who})")
    return 0


def cmd_audit_verify(args: argparse.Namespace) -> int:
    from concord.integrity import verify_installation

    report = verify_installation(
        services().repo,
        home=paths.concord_home(),
        extra_anchors=args.anchor,
        pdf_dir=args.pdfs,
    )
    if args.json:
        emit_json(report.model_dump(mode="json"))
    elif report.ok:
        checked = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in report.checked.items())
        print(f"audit trail intact ({report.rows} rows; checked {checked})")
    else:
        where = f" at seq {report.first_bad_seq}" if report.first_bad_seq is not None else ""
        print(f"AUDIT TRAIL NOT INTACT{where} ({report.rows} rows):")
        for problem in report.problems:
            seq = f" [seq {problem.seq}]" if problem.seq is not None else ""
            subject = f" {problem.subject}:" if problem.subject else ""
            print(f"  {problem.check}{seq}{subject} {problem.detail}")
    return 0 if report.ok else 1
