"""concord validate model | resources | accept | status | show: site validation."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path

from concord.cli._common import (
    ADMIN_PASSWORD_ENV,
    add_json_flag,
    current_user,
    emit_json,
    say,
    services,
    sign_in_as,
)
from concord.cli._tables import table
from concord.errors import InputError
from concord.pipeline import PanelSettings
from concord.resources import Resources
from concord.site import accept, load_policy, policy_path, site_status
from concord.site.figures import ModelFigures, ModelReport, ResourcesReport
from concord.site.store import SiteStore, require_report
from concord.validation.model_run import DEFAULT_SETTINGS, validate_model
from concord.validation.pdf import render_validation_pdf
from concord.validation.resources_check import validate_resources

BAR_WIDTH = 24


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("validate", help="site validation: measure, compare and accept")
    vsub = p.add_subparsers(dest="validate_command", required=True, metavar="WHAT")

    m = vsub.add_parser(
        "model", help="run a candidate model on the reference set beside the accepted model"
    )
    m.add_argument("name", metavar="NAME", help="registered model name or GGUF path")
    m.add_argument("--sample", type=int, metavar="N", help="only the first N reference records")
    m.add_argument(
        "--resources", type=Path, metavar="DIR", help="candidate resources (default: installed)"
    )
    m.add_argument("--judges", type=int, default=DEFAULT_SETTINGS.judges)
    m.add_argument("--max-specialists", type=int, default=DEFAULT_SETTINGS.max_specialists)
    m.add_argument("--pdf", type=Path, metavar="FILE", help="also write the report as a PDF")
    m.add_argument("--user")
    add_json_flag(m)
    m.set_defaults(func=cmd_model)

    r = vsub.add_parser(
        "resources", help="what a candidate resources folder changes on the stored cases"
    )
    r.add_argument("folder", type=Path, metavar="DIR")
    r.add_argument(
        "--sign-off",
        action="store_true",
        help="as clinician --user, accept dropping clinician-confirmed findings (--reason)",
    )
    r.add_argument("--reason", default="")
    r.add_argument("--user")
    add_json_flag(r)
    r.set_defaults(func=cmd_resources)

    a = vsub.add_parser("accept", help="a clinician and an admin sign a validation's acceptance")
    a.add_argument("validation_id", metavar="VALIDATION_ID")
    a.add_argument("--clinician", required=True, help="password: CONCORD_PASSWORD or prompt")
    a.add_argument("--admin", required=True, help="password: CONCORD_ADMIN_PASSWORD or prompt")
    a.add_argument("--reason", required=True)
    add_json_flag(a)
    a.set_defaults(func=cmd_accept)

    s = vsub.add_parser("status", help="what is accepted, and what the installed files make stale")
    add_json_flag(s)
    s.set_defaults(func=cmd_status)

    v = vsub.add_parser("show", help="a stored validation report")
    v.add_argument("validation_id", metavar="VALIDATION_ID")
    v.add_argument("--pdf", type=Path, metavar="FILE", help="write it as a PDF")
    add_json_flag(v)
    v.set_defaults(func=cmd_show)


def progress(done: int, total: int, message: str) -> None:
    """A progress bar on stderr: redrawn in place on a terminal, one line per step else."""
    filled = round(BAR_WIDTH * done / total) if total else BAR_WIDTH
    bar = "#" * filled + "-" * (BAR_WIDTH - filled)
    line = f"[{bar}] {done}/{total}  {message}"
    if sys.stderr.isatty():
        width = 118
        sys.stderr.write("\r" + line[:width].ljust(width))
        sys.stderr.flush()
    else:
        say(line)


def _end_progress() -> None:
    if sys.stderr.isatty():
        sys.stderr.write("\n")


def _model_lines(report: ModelReport) -> list[str]:
    models: list[ModelFigures] = [report.candidate] + (
        [report.accepted] if report.accepted is not None else []
    )

    def kappa(m: ModelFigures) -> str:
        a = m.judge_agreement
        if a.kappa is None:
            return f"undefined (n={a.n})"
        low = "?" if a.ci_low is None else f"{a.ci_low:.2f}"
        high = "?" if a.ci_high is None else f"{a.ci_high:.2f}"
        return f"{a.kappa:.2f} [{low}, {high}] n={a.n}"

    def astrid(m: ModelFigures) -> str:
        a = m.astrid_agreement
        if a is None:
            return "not labelled"
        return "undefined" if a.kappa is None else f"{a.kappa:.2f} n={a.n}"

    def num(value: float | None, unit: str) -> str:
        return "-" if value is None else f"{value:,.0f} {unit}"

    rows = [
        ["role", *[m.role for m in models]],
        ["patients", *[str(m.records) for m in models]],
        ["valid outputs", *[m.valid_outputs.text() for m in models]],
        ["verified evidence", *[m.verified_evidence.text() for m in models]],
        ["gates addressed", *[m.gates_addressed.text() for m in models]],
        ["judge kappa [95% CI]", *[kappa(m) for m in models]],
        ["ASTRID kappa", *[astrid(m) for m in models]],
        ["time per patient", *[num(m.seconds_per_patient, "s") for m in models]],
        ["peak memory", *[num(m.peak_memory_mb, "MB") for m in models]],
    ]
    out = [
        f"validation {report.validation_id}  ({report.reference.records} reference record(s), "
        f"{len(report.reference.sampled_records)} run)",
        table(["figure", *[m.model_name for m in models]], rows),
        "",
        "site policy: " + ("PASSES" if report.passed else "does NOT pass"),
    ]
    out += [
        f"  {'ok  ' if c.passed else 'FAIL'} {c.name}: {c.value} (needs {c.threshold})"
        for c in report.checks
    ]
    load = report.machine.get("start", {}).get("load_average")
    out.append(f"machine: {report.machine.get('cpus')} CPU(s), load average {load} at the start")
    return out


def _resources_lines(report: ResourcesReport) -> list[str]:
    out = [
        f"validation {report.validation_id}: {report.candidate_dir} against the installed "
        f"resources on {report.cases} case(s)",
        "changed: " + (", ".join(report.changed_parts) or "nothing"),
    ]
    if report.needs_model_run:
        out.append(
            "prompts or agent profiles changed: briefs must be written again "
            "(concord validate model NAME --resources DIR)"
        )
    if report.per_gate:
        rows = [
            [
                gate,
                str(c["newly fires"]),
                str(c["stops firing"]),
                str(c["severity changed"]),
                str(c["negated changed"]),
                str(c["confirmed dropped"]),
            ]
            for gate, c in sorted(report.per_gate.items())
        ]
        out.append(
            table(
                ["gate", "newly fires", "stops firing", "severity", "negated", "confirmed dropped"],
                rows,
            )
        )
        for change in report.gate_changes:
            who = f"; clinician: {change.clinician}" if change.clinician else ""
            flag = "  DROPS A CONFIRMED FINDING" if change.drops_confirmed else ""
            out.append(
                f"  {change.case_id} {change.gate_id}: {change.change} "
                f"({change.before} -> {change.after}{who}){flag}"
            )
    else:
        out.append("no gate changes on the stored cases")
    for grade in report.grade_changes:
        out.append(
            f"  {grade.case_id} {grade.specialist}: {grade.before_overall:g} {grade.before_grade} "
            f"-> {grade.after_overall:g} {grade.after_grade}"
        )
    if report.sign_off is not None:
        out.append(f"signed off by {report.sign_off.user}: {report.sign_off.reason}")
    return out


def _events(events: Iterable) -> object:
    report = None
    for event in events:
        progress(event.done, event.total, event.message)
        report = event.report or report
    _end_progress()
    return report


def cmd_model(args: argparse.Namespace) -> int:
    svc = services()
    user = current_user(args, svc)
    load_policy()  # writes the defaults on first use; a bad file stops here
    resources = Resources.load(args.resources) if args.resources else None
    settings = PanelSettings(judges=args.judges, max_specialists=args.max_specialists)
    report = _events(
        validate_model(
            svc, args.name, user=user, sample=args.sample, resources=resources, settings=settings
        )
    )
    assert isinstance(report, ModelReport)
    if args.pdf:
        render_validation_pdf(report, args.pdf)
    if args.json:
        emit_json(report.model_dump(mode="json"))
    else:
        print("\n".join(_model_lines(report)))
        if args.pdf:
            print(f"report PDF: {args.pdf}")
    return 0


def cmd_resources(args: argparse.Namespace) -> int:
    svc = services()
    user = current_user(args, svc)
    session = None
    if args.sign_off:
        if not args.user:
            raise InputError("--sign-off needs the clinician signing it off (--user)")
        session = sign_in_as(svc, args.user)
    report = _events(
        validate_resources(svc, args.folder, user=user, sign_off=session, reason=args.reason)
    )
    assert isinstance(report, ResourcesReport)
    if args.json:
        emit_json(report.model_dump(mode="json"))
    else:
        print("\n".join(_resources_lines(report)))
    if not report.passed:
        dropped = [c for c in report.gate_changes if c.drops_confirmed]
        listed = ", ".join(f"{c.gate_id} on {c.case_id}" for c in dropped[:5])
        raise InputError(
            f"refused: the change drops {report.dropped_confirmed} clinician-confirmed "
            f"finding(s) ({listed}); a clinician may sign it off with --sign-off --user NAME "
            "--reason TEXT",
            subject=args.folder,
        )
    return 0


def cmd_accept(args: argparse.Namespace) -> int:
    svc = services()
    clinician = sign_in_as(svc, args.clinician)
    admin = sign_in_as(svc, args.admin, env=ADMIN_PASSWORD_ENV)
    done = accept(
        svc.repo,
        args.validation_id,
        clinician=clinician,
        admin=admin,
        reason=args.reason,
        policy=load_policy(),
    )
    if args.json:
        emit_json(done.to_json())
    else:
        print(f"{done.acceptance_id}: {done.model_name} {done.line()}")
        print(f"covers resources {done.versions.short()}")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    svc = services()
    policy = load_policy()
    status = site_status(svc.repo, svc.resources.versions)
    status["policy"] = {"path": str(policy_path()), **policy.model_dump(mode="json")}
    if args.json:
        emit_json(status)
        return 0
    print(f"installed resources: {svc.resources.versions.short()}")
    print(f"site policy: {policy_path()}")
    acceptances = status["acceptances"]
    assert isinstance(acceptances, list)
    if not acceptances:
        print("no model accepted: the embedded default is accepted for demonstration only")
    for row in acceptances:
        state = (
            "CURRENT"
            if row["current"]
            else "STALE (changed since: " + ", ".join(row["stale_parts"]) + ")"
        )
        print(f"{row['acceptance_id']}  {row['model_name']}  {state}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    svc = services()
    report = require_report(SiteStore(svc.repo), args.validation_id)
    if args.pdf:
        if not isinstance(report, ModelReport):
            raise InputError("only a model validation has a PDF", subject=args.validation_id)
        render_validation_pdf(report, args.pdf)
    if args.json:
        emit_json(report.model_dump(mode="json"))
    elif isinstance(report, ModelReport):
        print("\n".join(_model_lines(report)))
    else:
        print("\n".join(_resources_lines(report)))
    return 0
