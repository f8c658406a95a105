"""concord batch DIR --servers URL,URL: the panel on every record in a folder, spread over
llama.cpp servers (`concord run --batch DIR --servers ...` delegates here)."""

from __future__ import annotations

import argparse
from pathlib import Path

from concord import netguard
from concord.batch import DEFAULT_QUEUE_SIZE, run_batch
from concord.cli._common import add_json_flag, current_user, emit_json, say, services
from concord.errors import InputError
from concord.llm.server_runtime import DEFAULT_TIMEOUT
from concord.pipeline import PanelSettings


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("batch", help="run the panel on a folder of records over llama.cpp servers")
    p.add_argument("directory", type=Path, metavar="DIR")
    add_batch_options(p)
    p.add_argument("--judges", type=int, default=1, help="judge runs proposing matches (0 = none)")
    p.add_argument("--max-specialists", type=int, default=4)
    p.add_argument("--model", help="registered model the servers run (default model if omitted)")
    p.add_argument("--user")
    add_json_flag(p)
    p.set_defaults(func=cmd_batch)


def add_batch_options(p: argparse.ArgumentParser) -> None:
    """--servers and friends (shared with `concord run --batch`)."""
    p.add_argument(
        "--servers",
        metavar="URL,URL",
        help="llama.cpp servers (llama-server or llama_cpp.server), comma-separated; "
        "each must be in CONCORD_HOME/servers.json or CONCORD_LLAMA_SERVERS",
    )
    p.add_argument(
        "--queue-size",
        type=int,
        default=DEFAULT_QUEUE_SIZE,
        help="records waiting for a server at most",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        help="seconds one request may take before it is retried elsewhere",
    )
    p.add_argument("--max-tokens", type=int, help="cap every request (smoke runs)")
    p.add_argument(
        "--parallel",
        type=int,
        default=1,
        help="a record's specialists sent to its server at once (the server's slots, -np N)",
    )


def server_list(text: str | None) -> list[str]:
    """The --servers URLs, each checked against the administrator's list."""
    urls = [u.strip() for u in (text or "").split(",") if u.strip()]
    if not urls:
        raise InputError("give the llama.cpp servers with --servers URL,URL")
    problem = netguard.config_error()  # the guard was installed with the signed list
    if problem is not None:
        raise problem
    for url in urls:
        if not netguard.is_allowed_url(url):
            raise InputError(
                "not on the admin-signed llama.cpp server list; an admin adds it with "
                "'concord settings set llama_servers URL,URL --admin ADMIN' "
                f"({netguard.SERVERS_ENV} and {netguard.SERVERS_FILE} can only narrow that list)",
                subject=url,
            )
    return urls


def cmd_batch(args: argparse.Namespace) -> int:
    urls = server_list(args.servers)
    svc = services()
    settings = PanelSettings(
        judges=args.judges,
        max_specialists=args.max_specialists,
        operation=getattr(args, "operation", None),
    )
    report = None
    for event in run_batch(
        args.directory,
        urls,
        svc=svc,
        user=current_user(args, svc),
        settings=settings,
        queue_size=args.queue_size,
        model=args.model,
        timeout=args.timeout,
        max_tokens_cap=args.max_tokens,
        parallel=max(1, args.parallel),
    ):
        name = event.path.name if event.path else ""
        if event.kind == "saved":
            say(
                f"  saved {name}: {event.case_id} via {', '.join(event.servers)} "
                "(model as reported by the server: unverified)"
            )
        elif event.kind == "failed":
            say(f"  FAILED {name}: {event.message}")
        elif event.kind == "skipped":
            say(f"  skipped {event.message}")
        elif event.kind == "queued":
            say(f"  queued {name}")
        report = event.report or report
    assert report is not None
    if args.json:
        emit_json(
            {
                "saved": [{"path": str(p), "case_id": c} for p, c in report.saved],
                "failed": [{"path": str(p), "error": e} for p, e in report.failed],
                "skipped": [{"path": str(p), "problem": e} for p, e in report.skipped],
                "requests_by_server": dict(report.requests_by_server),
                "model_verified": False,
                "seconds": round(report.seconds, 1),
            }
        )
    else:
        print(
            f"{len(report.saved)} case(s) saved, {len(report.failed)} failed, "
            f"{len(report.skipped)} file(s) skipped in "
            f"{report.seconds:.1f} s; requests per server: "
            + ", ".join(f"{u} {n}" for u, n in sorted(report.requests_by_server.items()))
        )
    return 0 if report.ok else 1


def run_batch_if_asked(args: argparse.Namespace) -> int | None:
    """`concord run --batch DIR --servers ...` delegates here: the exit code when --batch
    was given, None for an ordinary single-record run (which takes no --servers)."""
    if args.batch is None:
        if not args.target:
            raise InputError("give a PATH|RECORD_ID, or --batch DIR --servers URL,URL")
        given = [
            flag
            for flag, used in (
                ("--servers", args.servers is not None),
                ("--queue-size", args.queue_size != DEFAULT_QUEUE_SIZE),
                ("--timeout", args.timeout != DEFAULT_TIMEOUT),
                ("--max-tokens", args.max_tokens is not None),
            )
            if used
        ]
        if given:
            raise InputError(f"{', '.join(given)}: only for a folder of records; add --batch DIR")
        return None
    if args.target:
        raise InputError("give either PATH|RECORD_ID or --batch DIR, not both", subject=args.target)
    args.directory = args.batch
    return cmd_batch(args)
