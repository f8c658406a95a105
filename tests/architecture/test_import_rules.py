"""The core never imports Qt (STYLE rule 1), enforced by import-linter's contracts in
pyproject.toml, plus a direct check that importing the core does not load PySide6."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_import_linter_contracts_hold() -> None:
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    if not Path(exe).exists():
        pytest.fail("import-linter is not installed (it is part of the test extra)")
    result = subprocess.run([exe], cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "broken" in result.stdout and "0 broken" in result.stdout


def test_core_runs_without_loading_qt() -> None:
    code = (
        "import sys\n"
        "import concord.cli, concord.pipeline, concord.signoff, concord.services\n"
        "from concord.cli import build_parser\n"
        "build_parser()\n"
        "loaded = [m for m in sys.modules if m.startswith(('PySide6', 'shiboken6'))]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
