"""Small helpers shared by the command modules: output, user identity, passwords."""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
from typing import Any

from concord.errors import AuthError
from concord.services import Services


def emit_json(value: Any) -> None:
    json.dump(value, sys.stdout, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write("\n")


def say(message: str) -> None:
    """Progress and notes go to stderr so stdout stays machine-readable."""
    print(message, file=sys.stderr, flush=True)


def current_user(args: argparse.Namespace) -> str:
    return getattr(args, "user", None) or os.environ.get("CONCORD_USER") or getpass.getuser()


def password(prompt: str) -> str:
    """From CONCORD_PASSWORD (scripts) or the terminal prompt; never from the command line."""
    env = os.environ.get("CONCORD_PASSWORD")
    if env is not None:
        return env
    if not sys.stdin.isatty():
        raise AuthError("no password: set CONCORD_PASSWORD or run in a terminal")
    return getpass.getpass(prompt)


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON on stdout")


def services() -> Services:
    return Services()
