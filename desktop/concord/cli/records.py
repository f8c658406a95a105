"""import, screen, verify-extracts."""

from __future__ import annotations

import argparse
from pathlib import Path

from concord.cli._common import add_json_flag, current_user, emit_json, say, services
from concord.evidence.align import read_evidence_jsonl, verify_lines
from concord.records import load_record
from concord.resources import Resources
from concord.screen.record_screen import screen_to_json
from concord.workbench.imports import import_paths


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "import",
        help="import records (files, FHIR bundles, scans, or folders of patients); prints ids",
    )
    p.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    p.add_argument("--user", help="who is importing (default: $CONCORD_USER or login name)")
    add_json_flag(p)
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("screen", help="deterministic record screen (quality gates)")
    p.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    add_json_flag(p)
    p.set_defaults(func=cmd_screen)

    p = sub.add_parser("verify-extracts", help="align evidence-pack lines to a record")
    p.add_argument("record", type=Path, metavar="RECORD")
    p.add_argument("evidence", type=Path, metavar="EVIDENCE.jsonl")
    add_json_flag(p)
    p.set_defaults(func=cmd_verify_extracts)


def cmd_import(args: argparse.Namespace) -> int:
    if any(path.is_dir() for path in args.paths):
        return _import_folders(args)
    # Load everything first: one bad file means nothing is imported.
    records = [load_record(path) for path in args.paths]
    svc = services()
    user = current_user(args, svc)
    out = []
    for path, record in zip(args.paths, records, strict=True):
        record_id, created = svc.repo.save_record(record, user)
        out.append({"path": str(path), "record_id": record_id, "created": created})
    if args.json:
        emit_json({"records": out})
    else:
        for row in out:
            note = "" if row["created"] else "  (already imported)"
            print(f"{row['record_id']}  {row['path']}{note}")
    return 0


def _import_folders(args: argparse.Namespace) -> int:
    """Folders of patients: each patient imported whole or skipped with its reason (the same
    import as the desktop's); progress on stderr; a summary of what was imported and skipped.
    Exit 1 if anything was skipped."""
    svc = services()
    result = import_paths(
        svc.repo,
        args.paths,
        current_user(args, svc),
        lambda step: say(f"[{step.done}/{step.total}] {step.outcome}") if step.outcome else None,
    )
    if args.json:
        emit_json(
            {
                "records": [
                    {"path": r.path, "record_id": r.record_id, "created": r.created}
                    for r in result.imported
                ],
                "skipped": [{"path": s.path, "problem": s.problem} for s in result.skipped],
            }
        )
    else:
        for row in result.imported:
            note = "" if row.created else "  (already imported)"
            print(f"{row.record_id}  {row.path}{note}")
        print(f"{len(result.imported)} patient(s) imported, {len(result.skipped)} skipped")
        for skip in result.skipped:
            print(f"  skipped: {skip.problem}")
    return 1 if result.skipped else 0


def cmd_screen(args: argparse.Namespace) -> int:
    screen = Resources.installed().screen
    records = [(path, load_record(path)) for path in args.paths]
    results = [screen_to_json(str(path), screen.screen(record)) for path, record in records]
    if args.json:
        emit_json({"records": results})
        return 0
    for result in results:
        print(result["path"])
        if not result["gates"]:
            print("  no gate fired")
        for gate in result["gates"]:
            quotes = "; ".join(repr(e["text"]) for e in gate["evidence"][:3])
            print(f"  {gate['status'].upper():9} {gate['severity']:8} {gate['gate_id']}: {quotes}")
    return 0


def cmd_verify_extracts(args: argparse.Namespace) -> int:
    record = load_record(args.record)
    lines = read_evidence_jsonl(args.evidence)
    alignments = verify_lines(record, lines)
    rows = [
        {
            "index": n,
            "status": a.status.value,
            "verified": a.verified,
            "source_id": a.source_id,
            "start": a.start,
            "end": a.end,
            "score": round(a.score, 1),
            "flags": [flag.value for flag in a.flags],
            "diff": [change.model_dump() for change in a.diff],
            "extract_text": line.extract_text,
        }
        for n, (line, a) in enumerate(zip(lines, alignments, strict=True))
    ]
    if args.json:
        emit_json({"lines": rows})
        return 0
    for n, (line, a) in enumerate(zip(lines, alignments, strict=True)):
        flags = f" [{', '.join(a.flags)}]" if a.flags else ""
        print(f"{n:3} {a.status.value:6} {a.score:5.1f}{flags}  {line.extract_text}")
        for change in a.diff:
            was, now = change.record or "(nothing)", change.quote or "(nothing)"
            print(f"      record {was!r} -> quote {now!r}")
    return 0
