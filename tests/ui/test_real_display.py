"""`concord gui` on a real X display (Xvfb, 1280×800), not only offscreen: Qt's xcb plugin
loads (its libraries are the ones installer/x11-libraries.txt lists), the window opens
fitted to the screen and renders the worklist and a case."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from concord.records import load_record
from tests.ui.helpers import demo_record_path, make_case
from tests.ui.test_window import png_size

XVFB = shutil.which("Xvfb")
pytestmark = pytest.mark.skipif(
    XVFB is None,
    reason="Xvfb is not installed, so no X display can exist here (installer/dev.sh test "
    "installs it with apt-get; elsewhere: apt-get install xvfb)",
)
SCREEN = (1280, 800)


@pytest.fixture
def display() -> Iterator[str]:
    """An Xvfb server on a free display number (it picks one itself), stopped afterwards."""
    assert XVFB is not None
    read, write = os.pipe()
    server = subprocess.Popen(
        [XVFB, "-displayfd", str(write), "-screen", "0", f"{SCREEN[0]}x{SCREEN[1]}x24"]
        + ["-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    os.close(write)
    try:
        with os.fdopen(read) as numbers:
            number = numbers.readline().strip()
        assert number.isdigit(), "Xvfb did not start: " + server.stderr.read().decode()[-500:]
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.parametrize("page", ["worklist", "case"])
def test_concord_gui_runs_on_an_x_display(
    display: str, concord_home: Path, tmp_path: Path, page: str
) -> None:
    make_case(load_record(demo_record_path()))
    out = tmp_path / f"{page}.png"
    env = dict(os.environ, CONCORD_HOME=str(concord_home), DISPLAY=display, QT_QPA_PLATFORM="xcb")
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from concord.cli import main; raise SystemExit(main())",
            "gui",
            "--demo",
            "--page",
            page,
            "--screenshot",
            str(out),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "could not load the qt platform plugin" not in done.stderr.lower(), done.stderr[-2000:]
    assert done.returncode == 0, done.stderr[-2000:]
    width, height = png_size(out)
    assert width <= SCREEN[0] and height <= SCREEN[1]
    assert width >= SCREEN[0] - 100 and height >= SCREEN[1] - 100
