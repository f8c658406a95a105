"""Held-out measurement of the record screen (tests/screen/heldout3).

Standalone script, not a test: it asserts nothing and always exits 0 once it has run. It is
heldout2's measurement (`tests/screen/heldout2/measure.py`, the same public API and report)
run on this folder: the 16 whole records (`*.txt`) against `expected.json`, and the short
phrasings (`phrasings.jsonl`), each screened as its own record with the header
"Planned surgery date: 2026-12-01 / Date: 2026-11-20" in front.

Usage (from the repository root):
    .venv/bin/python tests/screen/heldout3/measure.py            # table
    .venv/bin/python tests/screen/heldout3/measure.py --json     # the same as JSON
    .venv/bin/python tests/screen/heldout3/measure.py --misses   # every miss and false fire
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent
_SPEC = importlib.util.spec_from_file_location(
    "heldout2_measure", HERE.parent / "heldout2" / "measure.py"
)
assert _SPEC is not None and _SPEC.loader is not None
_MEASURE = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_MEASURE)

if __name__ == "__main__":
    raise SystemExit(_MEASURE.main(here=HERE))
