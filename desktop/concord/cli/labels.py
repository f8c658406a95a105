"""labels pack / merge / trust / trusted / gold, and agreement: labels across workstations."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from concord import paths
from concord.cli._common import (
    ADMIN_PASSWORD_ENV,
    add_json_flag,
    emit_json,
    say,
    services,
    sign_in_as,
)
from concord.cli._tables import table


def register(sub: argparse._SubParsersAction) -> None:
    labels = sub.add_parser(
        "labels", help="signed label packages between air-gapped workstations, gold items"
    )
    lsub = labels.add_subparsers(dest="labels_command", required=True, metavar="ACTION")
    p = lsub.add_parser(
        "pack", help="write the signed package of one annotator's QA and EVAL labels"
    )
    p.add_argument("--out", required=True, type=Path, metavar="FILE")
    p.add_argument("--user", required=True, help="whose labels (their password signs them)")
    add_json_flag(p)
    p.set_defaults(func=cmd_pack)

    p = lsub.add_parser(
        "merge", help="verify label packages and merge them, with each annotator's provenance"
    )
    p.add_argument("files", nargs="+", type=Path, metavar="FILE")
    p.add_argument("--user", required=True, help="the lead merging them (signs in)")
    add_json_flag(p)
    p.set_defaults(func=cmd_merge)

    p = lsub.add_parser(
        "trust", help="an admin trusts another installation's root certificate for packages"
    )
    p.add_argument("certificate", type=Path, metavar="ROOT.pem")
    p.add_argument(
        "--admin",
        required=True,
        metavar="ADMIN",
        help="password from the prompt or CONCORD_ADMIN_PASSWORD",
    )
    p.add_argument("--name", default="", help="a name for that installation (e.g. ward-3)")
    add_json_flag(p)
    p.set_defaults(func=cmd_trust)

    p = lsub.add_parser("trusted", help="the installations whose packages are accepted")
    add_json_flag(p)
    p.set_defaults(func=cmd_trusted)

    p = lsub.add_parser(
        "gold", help="seed QA items as gold (honeypots): annotators are scored on them"
    )
    p.add_argument("set_id", metavar="SET_ID")
    p.add_argument("items", nargs="+", metavar="ITEM")
    p.add_argument("--user", required=True, help="the lead seeding them: their labels are gold")
    add_json_flag(p)
    p.set_defaults(func=cmd_gold)

    p = sub.add_parser(
        "agreement",
        help="judge vs human (blind and not apart, bulk left out), between annotators "
        "(kappa with 95%% intervals), per annotator, gold items, unsafe marks",
    )
    add_json_flag(p)
    p.set_defaults(func=cmd_agreement)


def cmd_pack(args: argparse.Namespace) -> int:
    from concord.labels.package import pack_labels

    svc = services()
    session = sign_in_as(svc, args.user)
    result = pack_labels(svc.repo, session, paths.concord_home(), args.out)
    if args.json:
        emit_json(result.__dict__)
    else:
        sets = ", ".join(s["set_id"] for s in result.sets)
        print(f"{result.path}: {result.labels} label(s) of {result.annotator} ({sets}), signed")
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    from concord.labels.package import merge_package
    from concord.labels.trust import trusted_roots

    svc = services()
    lead = sign_in_as(svc, args.user)
    home = paths.concord_home()
    roots = trusted_roots(svc.repo, home)
    results = [merge_package(svc.repo, path, lead, home, roots) for path in args.files]
    if args.json:
        emit_json({"packages": [r.json() for r in results]})
        for r in results:
            if r.refused:
                say(f"concord: {r.line()}")
    else:
        for r in results:
            print(r.line())
    return 1 if any(r.refused for r in results) else 0


def cmd_trust(args: argparse.Namespace) -> int:
    from concord.labels.trust import installation_id, load_root_certificate, trust_root

    svc = services()
    admin = sign_in_as(svc, args.admin, ADMIN_PASSWORD_ENV)
    cert = load_root_certificate(args.certificate)
    fingerprint, added = trust_root(svc.repo, cert, name=args.name, admin=admin)
    if args.json:
        emit_json(
            {
                "fingerprint": fingerprint,
                "installation": installation_id(cert),
                "subject": cert.subject.rfc4514_string(),
                "added": added,
            }
        )
    else:
        note = "trusted" if added else "already trusted"
        print(f"{cert.subject.rfc4514_string()} (SHA-256 {fingerprint}): {note}")
    return 0


def cmd_trusted(args: argparse.Namespace) -> int:
    from concord.labels.trust import trusted_roots

    roots = trusted_roots(services().repo, paths.concord_home())
    rows: list[dict[str, Any]] = [
        {
            "fingerprint": r.fingerprint,
            "name": r.name,
            "subject": r.certificate.subject.rfc4514_string(),
            "own": r.own,
            "added_by": r.added_by,
        }
        for r in roots
    ]
    if args.json:
        emit_json({"roots": rows})
    else:
        for r in rows:
            who = "this installation" if r["own"] else f"added by {r['added_by']}"
            print(f"{r['name']:12} {r['fingerprint'][:32]}…  {r['subject']}  ({who})")
    return 0


def cmd_gold(args: argparse.Namespace) -> int:
    from concord.astrid.store import AstridStore
    from concord.errors import NotFoundError
    from concord.store.label_store import LabelStore

    svc = services()
    session = sign_in_as(svc, args.user)
    held = {i.item_id for i in AstridStore(svc.repo).items(args.set_id)}
    for item in args.items:
        if item not in held:
            raise NotFoundError("no such item in this QA set", subject=f"{args.set_id}/{item}")
    added = LabelStore(svc.repo).seed_gold(args.set_id, args.items, session.name)
    if args.json:
        emit_json({"set_id": args.set_id, "seeded": added, "seeded_by": session.name})
    else:
        print(f"{args.set_id}: {len(added)} item(s) seeded as gold by {session.name}")
    return 0


def _kappa(row: dict[str, Any]) -> str:
    if row.get("kappa") is None:
        return "n/a"
    ci = row.get("ci95")
    return f"{row['kappa']:.2f}" + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "")


def cmd_agreement(args: argparse.Namespace) -> int:
    from concord.workbench.agreement import agreement_report_named

    report = agreement_report_named(services().repo)
    if args.json:
        emit_json(report.json())
        return 0
    print("Judge vs human (blind = the judge's value was not seen; bulk accepts left out)")
    print(
        table(
            ["metric", "judge", "blind", "n", "accuracy", "kappa [95% CI]", "bulk left out"],
            [
                [
                    r["metric"],
                    r["model"],
                    "blind" if r["blind"] else "shown",
                    str(r["n"]),
                    "-" if r["accuracy"] is None else f"{r['accuracy']:.2f}",
                    _kappa(r),
                    str(r["bulk_left_out"]),
                ]
                for r in report.judge
            ],
        )
    )
    print("\nBetween annotators")
    print(
        table(
            ["metric", "annotators", "n", "agreement", "kappa [95% CI]"],
            [
                [
                    r["metric"],
                    ", ".join(r["annotators"]),
                    str(r["n"]),
                    f"{r['agreement']:.2f}",
                    _kappa(r),
                ]
                for r in report.annotators
            ],
        )
    )
    print("\nPer annotator")
    print(
        table(
            ["rater", "labels", "items", "blind", "bulk", "acceptance", "s / item"],
            [
                [
                    r["rater"],
                    str(r["labels"]),
                    str(r["items"]),
                    str(r["blind"]),
                    str(r["bulk"]),
                    "-" if r["acceptance_rate"] is None else f"{r['acceptance_rate']:.0%}",
                    "-" if r["seconds_per_item"] is None else f"{r['seconds_per_item']:.1f}",
                ]
                for r in report.per_annotator
            ],
        )
    )
    if report.gold:
        print("\nGold items (scored against the seeding lead's labels, else the set file's)")
        print(
            table(
                ["rater", "gold items", "labels", "correct", "accuracy"],
                [
                    [
                        g["rater"],
                        str(g["gold_items"]),
                        str(g["n"]),
                        str(g["correct"]),
                        "-" if g["accuracy"] is None else f"{g['accuracy']:.2f}",
                    ]
                    for g in report.gold
                ],
            )
        )
    if report.unsafe:
        print("\nMarked unsafe (most severe first)")
        print(
            table(
                ["severity", "set / case", "item", "sentence", "rater"],
                [
                    [
                        m["severity"],
                        m["scope"],
                        m["item"],
                        "" if m["sentence"] is None else f"S{m['sentence']}",
                        m["rater"],
                    ]
                    for m in report.unsafe
                ],
            )
        )
    for warning in report.warnings:
        print(f"WARNING: {warning}", file=sys.stderr)
    return 0
