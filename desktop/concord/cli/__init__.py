"""`concord` command line: a thin layer over the core.

Each command module registers its subcommands; `main` installs the network guard before
anything else runs (no internet socket except to the llama.cpp servers the administrator
configured), turns a ConcordError into one line on stderr and a non-zero exit, and never
shows a traceback for a problem the user can fix.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module

from concord import __version__
from concord.accounts.settings import installation_servers
from concord.errors import ConcordError
from concord.netguard import install_network_guard

COMMAND_MODULES = (
    "concord.cli.records",
    "concord.cli.cases",
    "concord.cli.demo",
    "concord.cli.models",
    "concord.cli.admin",
    "concord.cli.signing",
    "concord.cli.gui",
    "concord.cli.batch",
    "concord.cli.labels",
)
OPTIONAL_COMMAND_MODULES = (
    "concord.cli.astrid",
    "concord.cli.eval",
    "concord.cli.bench",
    "concord.cli.backup",
)
EXIT_ERROR = 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="concord",
        description="Offline review of local-LLM agents and judges on patient records.",
    )
    parser.add_argument("--version", action="version", version=f"concord {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        import_module(name).register(sub)
    for name in OPTIONAL_COMMAND_MODULES:
        try:
            module = import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    install_network_guard()  # before anything: nothing is allowed yet
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        # the admin-signed server list (CONCORD_LLAMA_SERVERS and servers.json narrow it)
        install_network_guard(signed=installation_servers())
        return int(args.func(args) or 0)
    except ConcordError as exc:
        print(f"concord: error: {exc.one_line()}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("concord: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
