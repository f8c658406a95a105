"""astrid, astrid-import, astrid-show, astrid-decide: judging RAG clinical QA (ASTRID)."""

from __future__ import annotations

import argparse
from pathlib import Path

from concord.astrid.llm_judge import JudgeSettings, judge_items
from concord.astrid.load import load_items
from concord.astrid.report import render_report, run_report
from concord.astrid.store import AstridStore, set_content_sha256
from concord.astrid.targets import (
    astrid_targets,
    label_target,
    label_targets,
    make_astrid_decision,
    make_astrid_label,
)
from concord.cli._common import add_json_flag, current_user, emit_json, say, services, sign_in_as
from concord.decisions import record_decision
from concord.errors import InputError
from concord.labels.harm import harm_decision
from concord.labels.sets import set_provenance
from concord.store import write_transaction


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("astrid", help="judge QA items (CF / RA / CR) and measure agreement")
    p.add_argument(
        "source",
        metavar="FILE|SET_ID",
        help="QA items (.jsonl or .csv), or the id of an imported QA set",
    )
    p.add_argument("--model", help="registered judge model name or GGUF path (default model)")
    p.add_argument("--runs", type=int, default=1, help="repeated judge runs (mean ± sd)")
    p.add_argument(
        "--temperature",
        type=float,
        help="sampling temperature (default 0 for one run, 0.7 for repeats)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the first run (+1 per run)")
    p.add_argument("--user")
    add_json_flag(p)
    p.set_defaults(func=cmd_astrid)

    p = sub.add_parser("astrid-import", help="import QA items without judging them")
    p.add_argument("path", type=Path, metavar="FILE")
    p.add_argument("--user")
    add_json_flag(p)
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("astrid-show", help="a stored ASTRID run: metrics, agreement, targets")
    p.add_argument("run_id", metavar="RUN_ID")
    add_json_flag(p)
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("astrid-runs", help="list ASTRID QA sets and runs")
    add_json_flag(p)
    p.set_defaults(func=cmd_runs)

    p = sub.add_parser(
        "astrid-decide",
        help="accept or override one ASTRID verdict of a judge run, or label a QA set "
        "(judged or not) with your own value",
    )
    p.add_argument(
        "run_id",
        metavar="RUN_ID|SET_ID",
        help="a judge run (its verdict is shown), or a QA set: a label with no judge's "
        "verdict to compare yet (blind), compared with every judge run over the set",
    )
    p.add_argument(
        "--target",
        required=True,
        metavar="ID",
        help="e.g. astrid/<item>/ra, astrid/<item>/cr, astrid/<item>/cf/sentence/2; "
        "astrid/<item>/harm or astrid/<item>/harm/sentence/2 with --override minor|moderate|"
        "major marks the answer or a sentence unsafe",
    )
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument("--accept", action="store_true")
    group.add_argument("--override", metavar="VALUE")
    p.add_argument("--reason", help="why (needed to override a verdict you were shown)")
    p.add_argument("--user", required=True)
    p.add_argument(
        "--blind",
        action="store_true",
        help="the judge's verdict was hidden (the reason is then optional)",
    )
    p.add_argument("--decision-id", help="caller-chosen id: retrying the same write is a no-op")
    add_json_flag(p)
    p.set_defaults(func=cmd_decide)


def _set_name(path: Path) -> str:
    return path.name


def cmd_astrid(args: argparse.Namespace) -> int:
    settings = JudgeSettings(runs=args.runs, temperature=args.temperature, seed=args.seed)
    svc = services()
    store = AstridStore(svc.repo)
    user = current_user(args, svc)
    path = Path(args.source)
    if path.exists() or path.suffix.lower() in (".jsonl", ".csv"):
        items = load_items(path)  # a bad file stops here: nothing is written
        set_id, stored = "QA-SET-" + set_content_sha256(items)[:12], False
    else:
        set_id, stored = args.source, True
        items = store.items(set_id)
    runtime = svc.runtime(args.model)
    run = None
    for event in judge_items(runtime, items, set_id, settings):
        if not args.json:
            say(f"  [{event.done}/{event.total}] {event.message}")
        run = event.run or run
    assert run is not None
    with write_transaction(svc.repo.db):  # the set (if new) and the run, together
        if not stored:
            store.save_set(items, name=_set_name(path), source=str(path.resolve()), user=user)
        store.save_run(run, user)
    report = run_report(store, run.run_id)
    if args.json:
        emit_json(report)
    else:
        print(render_report(report))
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    items = load_items(args.path)
    svc = services()
    store = AstridStore(svc.repo)
    set_id, created = store.save_set(
        items,
        name=_set_name(args.path),
        source=str(args.path.resolve()),
        user=current_user(args, svc),
    )
    if args.json:
        emit_json({"set_id": set_id, "created": created, "items": len(items)})
    else:
        note = "" if created else "  (already imported)"
        print(f"{set_id}  {len(items)} item(s)  {args.path}{note}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    report = run_report(AstridStore(services().repo), args.run_id)
    if args.json:
        emit_json(report)
        return 0
    print(render_report(report))
    print("\ndecidable verdicts:")
    for target in report["targets"]:
        print(f"  {target['id']:45} {target['label'][:90]}")
    return 0


def cmd_runs(args: argparse.Namespace) -> int:
    store = AstridStore(services().repo)
    out = []
    for row in store.list_sets():
        runs = [store.get_run(r) for r in store.run_ids(row["set_id"])]
        out.append(
            {
                "set_id": row["set_id"],
                "name": row["name"],
                "items": row["item_count"],
                "runs": [
                    {
                        "run_id": r.run_id,
                        "model": r.model_name,
                        "repeats": len(r.repeats),
                        "started_at": r.started_at.isoformat(),
                    }
                    for r in runs
                ],
            }
        )
    if args.json:
        emit_json({"sets": out})
        return 0
    for s in out:
        print(f"{s['set_id']}  {s['name']}  {s['items']} item(s)")
        for r in s["runs"]:
            print(f"  {r['run_id']}  {r['model']}  {r['repeats']} run(s)  {r['started_at']}")
    return 0


def cmd_decide(args: argparse.Namespace) -> int:
    svc = services()
    store = AstridStore(svc.repo)
    if not args.target.startswith("astrid/"):
        raise InputError("ASTRID target ids start with astrid/", subject=args.target)
    session = sign_in_as(svc, args.user)
    on_set = args.run_id not in store.run_ids()
    run = None if on_set else store.get_run(args.run_id)
    set_id = args.run_id if run is None else run.set_id
    items = store.items(set_id)
    reason = args.reason or ""  # without words: as concord.domain.decision_reason says
    item, ref = label_target(items, args.target)
    if ref.kind.is_harm:
        if args.override is None:
            raise InputError("a harm label needs its severity: --override minor|moderate|major")
        decision = harm_decision(
            ref,
            args.override,
            case_id=set_id,
            user=session.name,
            shown={"item_sha256": item.content_sha256(), "set_id": set_id},
            reason=args.reason or "",
            blind=args.blind,
        )
    elif on_set:
        if args.override is None:
            raise InputError(
                "this QA set has no judge run to accept: give your value with --override",
                subject=set_id,
            )
        decision = make_astrid_label(
            set_id,
            items,
            args.target,
            args.override,
            user=session.name,
            reason=reason,
            blind=True,
            decision_id=args.decision_id,
        )
    else:
        assert run is not None
        decision = make_astrid_decision(
            run,
            items,
            args.target,
            user=session.name,
            reason=reason,
            override=args.override,
            blind=args.blind,
            decision_id=args.decision_id,
        )
    shown_run = None if run is None or decision.original_value is None else run.run_id
    how = set_provenance(svc.repo, set_id).model_copy(
        update={"bulk": False, "judge_run": shown_run}
    )
    outcome = record_decision(svc.repo, session, decision, provenance=how)
    decision, created = outcome.decision, outcome.created
    case_id = set_id if run is None else run.run_id
    decided = {d.target_id for d in svc.repo.decisions(case_id=case_id) if d.user == session.name}
    wanted = (
        [t.id for t in astrid_targets(run, items)]
        if run is not None
        else [t for i in items for t in label_targets(i)]
    )
    remaining = [t for t in wanted if t not in decided]
    if args.json:
        emit_json(
            {
                "decision": decision.model_dump(mode="json"),
                "created": created,
                "undecided": len(remaining),
            }
        )
    else:
        verb = "recorded" if created else "already recorded (no change)"
        where = "of this run" if run is not None else "of this set (yours)"
        print(
            f"{decision.decision_id} {verb}: {decision.target_id} {decision.action.value} "
            f"{decision.original_value!r} -> {decision.new_value!r}; "
            f"{len(remaining)} verdict(s) {where} undecided"
        )
    return 0
