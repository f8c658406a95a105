"""Small helpers shared by the command modules: output, user identity, passwords."""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from concord.errors import AuthError
from concord.services import Services

if TYPE_CHECKING:
    from concord.accounts.session import Session

PASSWORD_ENV = "CONCORD_PASSWORD"
ADMIN_PASSWORD_ENV = "CONCORD_ADMIN_PASSWORD"


def emit_json(value: Any) -> None:
    json.dump(value, sys.stdout, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write("\n")


def say(message: str) -> None:
    """Progress and notes go to stderr so stdout stays machine-readable."""
    print(message, file=sys.stderr, flush=True)


NOT_SIGNED_IN = " (not signed in)"


def claimed_user(args: argparse.Namespace) -> str:
    """The name a command is run under: --user, else $CONCORD_USER, else the login name."""
    return getattr(args, "user", None) or os.environ.get("CONCORD_USER") or getpass.getuser()


def current_user(args: argparse.Namespace, svc: Services) -> str:
    """Who an import, a run or an export from the command line is attributed to. Once anyone
    is enrolled it is a signed-in user, as for a decision: the claimed name with its password
    from CONCORD_PASSWORD or the prompt. Before anyone is enrolled (a fresh installation
    running the demo) there is nobody to sign in as: the claimed name is recorded marked
    ' (not signed in)', never as if it were a user's."""
    name = claimed_user(args)
    if not any(u.enrolled for u in svc.repo.list_users()):
        return name + NOT_SIGNED_IN
    return sign_in_as(svc, name).name


def password(prompt: str, env: str = PASSWORD_ENV) -> str:
    """From `env` (scripts) or the terminal prompt; never from the command line."""
    value = os.environ.get(env)
    if value is not None:
        return value
    if not sys.stdin.isatty():
        raise AuthError(f"no password: set {env} or run in a terminal")
    return getpass.getpass(prompt)


def sign_in_as(svc: Services, name: str, env: str = PASSWORD_ENV) -> Session:
    """The user's session for one command: their password from `env` or the prompt."""
    from concord.accounts.session import sign_in

    return sign_in(svc.repo, name, password(f"Password for {name}: ", env))


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON on stdout")


def services() -> Services:
    return Services()
