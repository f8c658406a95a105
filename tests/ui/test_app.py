"""`concord gui --demo --screenshot FILE`: renders the first demo case and exits 0."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from concord.astrid.store import AstridStore
from concord.eval.eval_store import EvalStore
from concord.records import load_record
from concord.store import Repository
from concord.workbench.demo import DEMO_QA_SET, DEMO_QUESTION_SET
from tests.ui.helpers import demo_record_path, make_case


def test_demo_screenshot_writes_a_png(concord_home: Path, tmp_path: Path) -> None:
    make_case(load_record(demo_record_path()))  # a stored demo case: no model needed
    out = tmp_path / "shot.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", CONCORD_HOME=str(concord_home))
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from concord.cli import main; raise SystemExit(main())",
            "gui",
            "--demo",
            "--screenshot",
            str(out),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert out.stat().st_size > 20_000
    # --demo also imports the demo QA set and question set, so those pages are not empty
    with Repository.open() as repo:
        assert [s["name"] for s in AstridStore(repo).list_sets()] == [DEMO_QA_SET]
        assert [s.name for s in EvalStore(repo).sets()] == [Path(DEMO_QUESTION_SET).stem]
