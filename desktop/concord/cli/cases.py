"""run, cases, show, decide, export-labels."""

from __future__ import annotations

import argparse
from pathlib import Path

from concord.adjudication.judgements import case_judgements
from concord.adjudication.support import as_scored
from concord.adjudication.targets import case_targets
from concord.cli._common import add_json_flag, current_user, emit_json, say, services, sign_in_as
from concord.cli._tables import MODE_TEXT, case_summary, table
from concord.cli.batch import add_batch_options, run_batch_if_asked
from concord.decisions import record_decision
from concord.domain import Case, CaseMode, Decision, LabelProvenance, Record, TargetKind, TargetRef
from concord.domain.decision_history import standing_decisions
from concord.pipeline import PanelSettings, RunEvent
from concord.records import load_record
from concord.resources import case_resources
from concord.review import DISPOSITION_VALUES, make_decision, outstanding, review_tally
from concord.services import Services
from concord.site import site_note
from concord.store import export_labels_csv, export_labels_jsonl
from concord.store.clock import case_clock_steps
from concord.workbench.red_flags import ImportScreen, red_flags
from concord.workbench.run_failure import failure_text
from concord.workbench.triage import WorklistRow, triage_order
from concord.workbench.worklist import load_worklist


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="run the agent panel and adjudication on a record, or on "
        "a folder of records over llama.cpp servers (--batch)",
    )
    p.add_argument("target", metavar="PATH|RECORD_ID", nargs="?")
    p.add_argument(
        "--batch",
        type=Path,
        metavar="DIR",
        help="every record file in DIR, spread over --servers (no PATH|RECORD_ID)",
    )
    add_batch_options(p)
    p.add_argument("--model", help="registered model name or GGUF path (default model if omitted)")
    p.add_argument("--judges", type=int, default=1, help="judge runs proposing matches (0 = none)")
    p.add_argument("--max-specialists", type=int, default=4)
    p.add_argument("--operation", help="planned operation (else the record's, else the surgeon's)")
    p.add_argument("--user")
    add_json_flag(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("cases", help="list cases")
    add_json_flag(p)
    p.set_defaults(func=cmd_cases)

    p = sub.add_parser("show", help="show a stored case with its decidable judgements")
    p.add_argument("case_id", metavar="CASE_ID")
    add_json_flag(p)
    p.set_defaults(func=cmd_show)

    p = sub.add_parser(
        "decide", help="accept or override one judgement, or give a red flag its disposition"
    )
    p.add_argument("case_id", metavar="CASE_ID")
    p.add_argument("--target", required=True, metavar="ID")
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument("--accept", action="store_true")
    group.add_argument("--override", metavar="VALUE")
    group.add_argument(
        "--disposition",
        choices=DISPOSITION_VALUES,
        help="what to do about a red flag (--target gate/GATE_ID): proceed (addressed in the "
        "plan), postpone, refer, or not-relevant here",
    )
    p.add_argument(
        "--reason",
        default="",
        help="why: required for --override and --disposition; an --accept given without "
        "one is recorded as 'accepted as shown'",
    )
    p.add_argument("--user", required=True)
    p.add_argument("--decision-id", help="caller-chosen id: retrying the same write is a no-op")
    add_json_flag(p)
    p.set_defaults(func=cmd_decide)

    p = sub.add_parser("export-labels", help="export every decision as labelled data")
    p.add_argument("--out", required=True, type=Path, metavar="FILE.jsonl")
    p.add_argument("--csv", type=Path, metavar="FILE.csv", help="also write CSV")
    p.add_argument("--user")
    p.set_defaults(func=cmd_export_labels)


def resolve_record(svc: Services, target: str, user: str) -> Record:
    path = Path(target)
    if path.exists():
        record = load_record(path)
        svc.repo.save_record(record, user)
        return record
    return svc.repo.get_record(target)


def run_and_store(
    svc: Services,
    record: Record,
    *,
    model: str | None,
    settings: PanelSettings,
    user: str,
    quiet: bool = False,
) -> Case:
    def show(event: RunEvent) -> None:
        if not quiet:
            timing = f" ({event.seconds:.1f}s)" if event.seconds else ""
            say(f"  [{event.stage}] {event.message}{timing}")

    return svc.run_and_save(record, svc.runtime(model), settings, user, on_event=show)


def case_json(svc: Services, case_id: str) -> dict:
    """The stored case with every bullet's support verdict (what the scorecard counted), its
    red flags with their dispositions, its judgements and how much of it was reviewed."""
    case = svc.repo.get_case(case_id)
    decisions = svc.repo.decisions(case_id=case_id)
    if any(i.supported is None for b in case.briefs for i in b.items):
        rules = svc.screen.definitions  # stored before claims were checked: its old rule
        case = case.model_copy(
            update={"briefs": tuple(as_scored(b, case.gates, rules) for b in case.briefs)}
        )
    tally = review_tally(case, decisions)
    standing = {d.target_id: d for d in standing_decisions(decisions) if d.counts_for_signoff}
    return {
        "case_id": case.case_id,
        "mode": case.mode.value if case.mode else None,
        "silent": case.silent,
        "site": site_note(svc.repo, case),
        "resources": case.resources.as_dict() if case.resources else None,
        "status": svc.repo.case_status(case_id).value,
        "worst_grade": case.worst_grade,
        "human_review": case.human_review,
        "review_reasons": list(case.review_reasons),
        "run_problem": failure_text(case),
        "red_flags": [
            {
                **flag.to_json(),
                "disposition": _value(standing.get(TargetRef.disposition(flag.gate_id).format())),
                "reason": _reason(standing.get(TargetRef.disposition(flag.gate_id).format())),
            }
            for flag in red_flags(case.gates)
        ],
        "case": case.model_dump(mode="json"),
        "targets": [t.model_dump(mode="json") for t in case_targets(case)],
        "judgements": [
            {"key": j.key, "targets": [t.id for t in j.targets], "required": j.required}
            for j in case_judgements(case)
        ],
        "outstanding": [t.id for t in outstanding(case, decisions)],
        "review": {
            "judgements": tally.total,
            "one_by_one": tally.one_by_one,
            "bulk_accepted": tally.bulk_accepted,
            "not_reviewed": tally.not_reviewed,
            "required": tally.required,
            "required_left": tally.required_left,
        },
        "decisions": [d.model_dump(mode="json") for d in decisions],
        "clock_warnings": [s.to_json() for s in case_clock_steps(svc.repo.db, case_id)],
    }


def _value(decision: Decision | None) -> object:
    return decision.new_value if decision is not None else None


def _reason(decision: Decision | None) -> str | None:
    return decision.reason if decision is not None else None


def cmd_run(args: argparse.Namespace) -> int:
    batch_exit = run_batch_if_asked(args)
    if batch_exit is not None:
        return batch_exit
    svc = services()
    user = current_user(args, svc)
    record = resolve_record(svc, args.target, user)
    settings = PanelSettings(
        judges=args.judges, max_specialists=args.max_specialists, operation=args.operation
    )
    case = run_and_store(
        svc, record, model=args.model, settings=settings, user=user, quiet=args.json
    )
    if args.json:
        emit_json(case_json(svc, case.case_id))
    else:
        print(case_summary(case, record.name, cap=svc.config.overall_cap_on_major_miss))
    return 0


def cmd_cases(args: argparse.Namespace) -> int:
    """Every case, and every imported record with its red flags from the record screen (a
    record not run yet included), most urgent first."""
    svc = services()
    cases = svc.repo.list_cases()
    worklist = load_worklist(svc.repo, ImportScreen(svc.screen))
    if args.json:
        emit_json(
            {
                "cases": [
                    {
                        **c.model_dump(mode="json"),
                        "red_flags": [
                            f.to_json() for f in red_flags(svc.repo.get_case(c.case_id).gates)
                        ],
                    }
                    for c in cases
                ],
                "records": [_record_json(r) for r in triage_order(worklist.rows)],
            }
        )
        return 0
    rows = [
        [
            c.case_id,
            c.record_id,
            c.status,
            c.worst_grade or "-",
            "YES" if c.human_review else "no",
            MODE_TEXT.get(c.mode, "-") if c.mode else "-",
        ]
        for c in cases
    ]
    print(table(["case", "record", "status", "worst grade", "review", "mode"], rows))
    if any(c.mode is CaseMode.SILENT for c in cases):
        print("SILENT: run with a model/resources the site has not accepted; not for review")
    flagged = [
        [r.name, r.status.value if r.status else "not run", ", ".join(f.title for f in r.red_flags)]
        for r in triage_order(worklist.rows)
        if r.red_flags
    ]
    if flagged:
        print("\nred flags (record screen):")
        print(table(["patient", "status", "red flags"], flagged))
    return 0


def _record_json(row: WorklistRow) -> dict:
    return {
        "record_id": row.record_id,
        "name": row.name,
        "record_name": row.source_name,
        "imported_at": row.imported_at.isoformat(),
        "date_of_birth": row.date_of_birth,
        "record_number": row.record_number,
        "operation": row.operation,
        "surgery_date": row.surgery_date.isoformat() if row.surgery_date else None,
        "case_id": row.case_id,
        "status": row.status.value if row.status else "not run",
        "urgency": row.urgency().title,
        "red_flags": [f.to_json() for f in row.red_flags],
        "run_problem": row.run_problem,
        "required_left": row.required_left,
    }


def cmd_show(args: argparse.Namespace) -> int:
    svc = services()
    data = case_json(svc, args.case_id)
    if args.json:
        emit_json(data)
        return 0
    case = svc.repo.get_case(args.case_id)
    record = svc.repo.get_record(case.record_id)
    if case.mode is not CaseMode.CLINICAL:
        print(f"*** {data['site']} ***")
    cap = case_resources(svc.repo, case).scoring.overall_cap_on_major_miss
    print(case_summary(case, record.name, cap=cap))
    print(f"\nstatus: {data['status']}; outstanding before signing: {len(data['outstanding'])}")
    for warning in data["clock_warnings"]:
        print(f"warning: {warning['detail']}")
    for target in case_targets(case):
        print(f"  {target.id:55} {target.label}")
    return 0


def cmd_decide(args: argparse.Namespace) -> int:
    svc = services()
    case = svc.repo.get_case(args.case_id)
    session = sign_in_as(svc, args.user)
    # A retry under the same --decision-id is the same decision: keep its first time.
    earlier = next(
        (
            d
            for d in svc.repo.decisions(case_id=case.case_id)
            if args.decision_id and d.decision_id == args.decision_id
        ),
        None,
    )
    decision = make_decision(
        case,
        args.target,
        user=session.name,
        reason=args.reason,
        override=args.override,
        disposition=args.disposition,
        decision_id=args.decision_id,
        at=earlier.at if earlier else None,
        known_gates=case_resources(svc.repo, case).gate_ids,
    )
    how = LabelProvenance(bulk=False, judge_run=case.case_id)
    outcome = record_decision(svc.repo, session, decision, case=case, provenance=how)
    decision = outcome.decision
    remaining = [t.id for t in outcome.outstanding]
    if args.json:
        emit_json(
            {
                "decision": decision.model_dump(mode="json"),
                "created": outcome.created,
                "outstanding": remaining,
                "status": outcome.status.value if outcome.status else None,
                "counts_for_signoff": decision.counts_for_signoff,
            }
        )
    else:
        verb = "recorded" if outcome.created else "already recorded (no change)"
        label = "" if decision.counts_for_signoff else " as a label (not counted for sign-off)"
        status = f"; case {outcome.status.value}" if outcome.status else ""
        what = (
            f"disposition {decision.new_value}"
            if decision.target_kind == TargetKind.DISPOSITION
            else f"{decision.action.value} {decision.original_value!r} -> {decision.new_value!r}"
        )
        print(
            f"{decision.decision_id} {verb}{label}: {decision.target_id} {what}; "
            f"{len(remaining)} required judgement(s) outstanding{status}"
        )
    return 0


def cmd_export_labels(args: argparse.Namespace) -> int:
    svc = services()
    user = current_user(args, svc)
    results = [export_labels_jsonl(svc.repo, args.out, user)]
    if args.csv:
        results.append(export_labels_csv(svc.repo, args.csv, user))
    emit_json({"exports": [r.model_dump(mode="json") for r in results]})
    return 0
