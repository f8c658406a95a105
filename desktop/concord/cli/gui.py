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
    p.add_argument(
        "--page",
        choices=("case", "worklist", "qa", "grading", "agreement"),
        default="case",
        help="with --screenshot: the page to render (default: the first demo case)",
    )
    p.add_argument(
        "--size", type=_size, metavar="WxH", help="window size, e.g. 1280x800 (default: fit)"
    )
    p.set_defaults(func=cmd_gui)


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(n) for n in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size like 1280x800: {text!r}") from None
    if width < 200 or height < 200:
        raise argparse.ArgumentTypeError(f"too small a window: {text!r}")
    return width, height


def cmd_gui(args: argparse.Namespace) -> int:
    from concord.ui.app import run_app

    return run_app(demo=args.demo, screenshot=args.screenshot, page=args.page, size=args.size)
