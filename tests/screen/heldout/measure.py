"""Held-out measurement of the record screen (not a test: it reports, it does not assert).

    python tests/screen/heldout/measure.py [--json]

Part 1 screens the 32 whole records in this folder and compares the gates that fire with
expected.json (written by an independent author, blind to the screen's rules). Part 2 screens
every line of phrasings.jsonl as its own one-document record, with a fixed header that states
the surgery date and the note's date.

Only the public entry points are used: concord.records.load_record,
concord.screen.record_screen.RecordScreen.load().screen(record) and GateStatus. A gate fires
when the screen returns a hit for it with status TRIGGERED; a NEGATED hit is silence.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
if str(ROOT / "desktop") not in sys.path:
    sys.path.insert(0, str(ROOT / "desktop"))

from concord.domain.gate import GateStatus  # noqa: E402
from concord.records import load_record  # noqa: E402
from concord.screen.record_screen import RecordScreen  # noqa: E402

PHRASING_HEADER = "Planned surgery date: 2026-12-01\nDate: 2026-11-20\n"

# Severity from SPEC's gate table (section "The gate set"); every other gate is major.
MODERATE = frozenset(
    {
        "anaemia",
        "diabetes_high_risk",
        "chronic_steroid",
        "osa",
        "morbid_obesity",
        "severe_hypertension",
        "stable_cardiac_disease",
        "periop_drug_allergy",
    }
)


def fired(screen: RecordScreen, path: Path) -> set[str]:
    record = load_record(path)
    return {hit.gate_id for hit in screen.screen(record) if hit.status == GateStatus.TRIGGERED}


def defined_gates(screen: RecordScreen) -> set[str] | None:
    """The gate ids the loaded screen defines, where it says (None when it does not)."""
    gates = getattr(screen, "gates", None)
    if gates is None:
        return None
    ids = {getattr(g, "gate_id", None) for g in gates}
    return {i for i in ids if isinstance(i, str)}


def ratio(num: int, den: int) -> str:
    return f"{num}/{den} ({100.0 * num / den:.1f}%)" if den else f"{num}/0"


def measure_records(screen: RecordScreen) -> dict[str, Any]:
    expected: dict[str, dict[str, Any]] = json.loads((HERE / "expected.json").read_text())
    per_gate: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"tp": 0, "fn": [], "false_fires": [], "silent_checks": 0}
    )
    for name in sorted(expected):
        want = expected[name]
        got = fired(screen, HERE / name)
        for gate in want["triggered"]:
            if gate in got:
                per_gate[gate]["tp"] += 1
            else:
                per_gate[gate]["fn"].append(name)
        for gate in want["not_triggered"]:
            per_gate[gate]["silent_checks"] += 1
            if gate in got:
                per_gate[gate]["false_fires"].append(name)
    return {"records": len(expected), "gates": dict(sorted(per_gate.items()))}


def measure_phrasings(screen: RecordScreen) -> dict[str, Any]:
    rows = [
        json.loads(line)
        for line in (HERE / "phrasings.jsonl").read_text().splitlines()
        if line.strip()
    ]
    per_gate: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"tp": 0, "fn": [], "false_fires": [], "silent_checks": 0}
    )
    per_style: dict[str, dict[str, int]] = defaultdict(
        lambda: {"tp": 0, "positives": 0, "false_fires": 0, "silent_checks": 0}
    )
    with tempfile.TemporaryDirectory(prefix="heldout-phrasings-") as tmp:
        for index, row in enumerate(rows):
            path = Path(tmp) / f"phrasing_{index:04d}.txt"
            path.write_text(PHRASING_HEADER + row["text"] + "\n")
            got = fired(screen, path)
            gate, style = row["gate_id"], row["style"]
            hit = gate in got
            entry = {"line": index, "style": style, "text": row["text"]}
            if row["expect"] == "triggered":
                per_style[style]["positives"] += 1
                if hit:
                    per_gate[gate]["tp"] += 1
                    per_style[style]["tp"] += 1
                else:
                    per_gate[gate]["fn"].append(entry)
            else:
                per_gate[gate]["silent_checks"] += 1
                per_style[style]["silent_checks"] += 1
                if hit:
                    per_gate[gate]["false_fires"].append(entry)
                    per_style[style]["false_fires"] += 1
    return {
        "lines": len(rows),
        "gates": dict(sorted(per_gate.items())),
        "styles": dict(sorted(per_style.items())),
    }


def totals(gates: dict[str, dict[str, Any]]) -> dict[str, Any]:
    tp = sum(g["tp"] for g in gates.values())
    fn = sum(len(g["fn"]) for g in gates.values())
    major_tp = sum(g["tp"] for k, g in gates.items() if k not in MODERATE)
    major_fn = sum(len(g["fn"]) for k, g in gates.items() if k not in MODERATE)
    ff = sum(len(g["false_fires"]) for g in gates.values())
    silent = sum(g["silent_checks"] for g in gates.values())
    return {
        "findings": tp + fn,
        "true_positives": tp,
        "false_negatives": fn,
        "recall": tp / (tp + fn) if tp + fn else None,
        "major_findings": major_tp + major_fn,
        "major_true_positives": major_tp,
        "major_recall": major_tp / (major_tp + major_fn) if major_tp + major_fn else None,
        "silent_checks": silent,
        "false_fires": ff,
        "false_fire_rate": ff / silent if silent else None,
    }


def print_gates(title: str, gates: dict[str, dict[str, Any]], records: bool) -> None:
    print(f"\n== {title} ==")
    print(f"{'gate':42s} {'TP':>4s} {'FN':>4s} {'FF/silent':>10s}")
    for gate, g in gates.items():
        n = g["tp"] + len(g["fn"])
        sev = "" if gate not in MODERATE else " (moderate)"
        print(
            f"{gate + sev:42s} {g['tp']:>4d} {len(g['fn']):>4d} "
            f"{len(g['false_fires']):>4d}/{g['silent_checks']:<5d} recall {ratio(g['tp'], n)}"
        )
        for miss in g["fn"]:
            print(f"    FN  {miss if records else _short(miss)}")
        for ff in g["false_fires"]:
            print(f"    FF  {ff if records else _short(ff)}")


def _short(entry: dict[str, Any]) -> str:
    text = entry["text"].replace("\n", "⏎")
    return f"[{entry['style']}] #{entry['line']}: {text}"


def print_totals(title: str, t: dict[str, Any]) -> None:
    print(f"\n-- {title} totals --")
    print(f"recall over findings:   {ratio(t['true_positives'], t['findings'])}")
    print(f"major-gate recall:      {ratio(t['major_true_positives'], t['major_findings'])}")
    print(f"false fires / silent:   {ratio(t['false_fires'], t['silent_checks'])}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)

    screen = RecordScreen.load()
    expected = json.loads((HERE / "expected.json").read_text())
    named = {g for want in expected.values() for g in want["triggered"] + want["not_triggered"]}
    named |= {
        json.loads(line)["gate_id"]
        for line in (HERE / "phrasings.jsonl").read_text().splitlines()
        if line.strip()
    }
    defined = defined_gates(screen)
    undefined = sorted(named - defined) if defined is not None else None

    records = measure_records(screen)
    phrasings = measure_phrasings(screen)
    result: dict[str, Any] = {
        "undefined_gates": undefined,
        "records": {**records, "totals": totals(records["gates"])},
        "phrasings": {**phrasings, "totals": totals(phrasings["gates"])},
    }
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0

    if undefined is None:
        print("The loaded screen does not list its gates; undefined gates cannot be named.")
    else:
        print(
            f"Gates named here that the loaded screen does not define ({len(undefined)}, "
            f"each of their findings counts as a miss): {', '.join(undefined) or 'none'}"
        )
    print_gates(f"Whole records ({records['records']})", records["gates"], records=True)
    print_gates(f"Phrasings ({phrasings['lines']} lines)", phrasings["gates"], records=False)
    print("\n-- phrasings by style --")
    for style, s in phrasings["styles"].items():
        print(
            f"{style:9s} recall {ratio(s['tp'], s['positives'])}, "
            f"false fires {ratio(s['false_fires'], s['silent_checks'])}"
        )
    print_totals("Whole records", result["records"]["totals"])
    print_totals("Phrasings", result["phrasings"]["totals"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
