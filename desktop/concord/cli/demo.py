"""concord demo: the full panel and adjudication on the bundled demo patients."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from concord import paths
from concord.bench.load import busy_processes
from concord.cli._common import add_json_flag, current_user, emit_json, say, services
from concord.cli._tables import case_summary
from concord.cli.cases import run_and_store
from concord.domain import Case, Record
from concord.llm.default_model import install_default
from concord.pipeline import PanelSettings
from concord.records import load_record
from concord.services import Services


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="run the panel on the bundled demo patients (default model)")
    p.add_argument("--patients", type=int, default=0, help="only the first N patients (0 = all)")
    p.add_argument("--judges", type=int, default=1)
    p.add_argument("--max-specialists", type=int, default=3)
    p.add_argument("--model", help="registered model (default: the bundled default model)")
    p.add_argument(
        "--busy",
        type=int,
        default=0,
        metavar="N",
        help="run beside N processes that each keep a core busy (a workstation that is not "
        "idle); 0: none",
    )
    p.add_argument("--user")
    add_json_flag(p)
    p.set_defaults(func=cmd_demo)


def cmd_demo(args: argparse.Namespace) -> int:
    svc = services()
    user = current_user(args, svc)
    if not args.model:
        entry = install_default(svc.models)
        say(f"model: {entry.name} sha256 {entry.sha256[:16]}…")
    files = sorted(paths.resources_dir().joinpath("demo").glob("*.json"))
    if args.patients:
        files = files[: args.patients]
    settings = PanelSettings(judges=args.judges, max_specialists=args.max_specialists)
    started = time.perf_counter()
    summaries = []
    with busy_processes(args.busy) as busy:
        if busy:
            say(f"beside {len(busy)} busy process(es)")
        summaries = _run_patients(svc, files, args, settings, user)
    total = time.perf_counter() - started
    if args.json:
        emit_json(
            {
                "cases": [
                    {
                        "case_id": c.case_id,
                        "record": r.name,
                        "seconds": round(s, 1),
                        "worst_grade": c.worst_grade,
                        "human_review": c.human_review,
                        "mutual_omissions": list(c.mutual_omissions),
                        "scorecards": [
                            {
                                "specialist": sc.specialist,
                                "overall": sc.overall,
                                "grade": sc.grade,
                                "capped": sc.capped,
                                "human_review": sc.human_review,
                            }
                            for sc in c.scorecards
                        ],
                    }
                    for c, r, s in summaries
                ],
                "total_seconds": round(total, 1),
                "busy_processes": args.busy,
            }
        )
    else:
        print(
            f"{len(summaries)} demo patient(s) in {total:.1f} s; cases stored in "
            f"{paths.database_path()}"
        )
    return 0


def _run_patients(
    svc: Services,
    files: list[Path],
    args: argparse.Namespace,
    settings: PanelSettings,
    user: str,
) -> list[tuple[Case, Record, float]]:
    summaries = []
    for path in files:
        record = load_record(path)
        svc.repo.save_record(record, user)
        say(f"\n== {record.name} ({path.name})")
        t0 = time.perf_counter()
        case = run_and_store(svc, record, model=args.model, settings=settings, user=user)
        seconds = time.perf_counter() - t0
        summaries.append((case, record, seconds))
        if not args.json:
            print(case_summary(case, record.name))
            print(f"  time: {seconds:.1f} s\n", flush=True)
    return summaries
