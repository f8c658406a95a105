"""The core never imports Qt and packages form layers without cycles, enforced by
import-linter's contracts in pyproject.toml, plus a direct check that importing the core
does not load PySide6."""

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
    assert "Layers without cycles" in result.stdout and "KEPT" in result.stdout


def test_every_package_sits_in_a_layer() -> None:
    """A new package outside the layers contract would escape the cycle check."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    layers = next(c for c in contracts if c["type"] == "layers")["layers"]
    named = {part.strip() for layer in layers for part in layer.split("|")}
    package = ROOT / "desktop" / "concord"
    present = {p.name for p in package.iterdir() if (p / "__init__.py").exists()}
    present |= {p.stem for p in package.glob("*.py") if p.stem not in ("__init__", "__main__")}
    assert present <= named, sorted(present - named)


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
