"""`-m "not real_model"` leaves out every test that runs the real model, marked or not."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _collected(*args: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return [line for line in done.stdout.splitlines() if "::" in line]


def test_a_test_using_the_real_model_fixture_is_marked_real_model() -> None:
    # test_jump_forward's real-model tests take `default_entry` through a fixture of their
    # own and carry no marker in the file; its other tests use no model.
    path = "tests/llm/test_jump_forward.py"
    everything = _collected(path)
    without = _collected(path, "-m", "not real_model")
    only = _collected(path, "-m", "real_model")
    assert only and without
    assert sorted(without + only) == sorted(everything)
    source = (ROOT / path).read_text(encoding="utf-8")
    assert "pytest.mark.real_model" not in source
    for test in only:
        name = test.split("::")[-1].split("[")[0]
        assert f"def {name}(" in source
