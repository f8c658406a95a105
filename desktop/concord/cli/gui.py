"""concord gui: the desktop application (Qt is imported only here, lazily)."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("gui", help="open the desktop application")
    p.add_argument("--demo", action="store_true", help="open the first demo case")
    p.add_argument(
        "--screenshot", type=Path, metavar="FILE", help="render the window to a PNG and exit"
    )
    p.set_defaults(func=cmd_gui)


def cmd_gui(args: argparse.Namespace) -> int:
    from concord.ui.app import run_app

    return run_app(demo=args.demo, screenshot=args.screenshot)
