"""Held-out measurement of the record screen (tests/screen/heldout2).

Standalone script, not a test: it asserts nothing and always exits 0 once it has run.
It uses only the public API - `load_record`, `RecordScreen.load().screen(record)` and
`GateStatus` - and reports, gate by gate, how the screen does on

  * the 24 whole records (`*.txt`), against `expected.json`, and
  * the short phrasings (`phrasings.jsonl`), each screened as its own record with the
    header "Planned surgery date: 2026-12-01 / Date: 2026-11-20" in front; only the
    gate named on the line is scored.

A gate "fires" when the screen returns a hit for it with status TRIGGERED.

Usage (from the repository root):
    .venv/bin/python tests/screen/heldout2/measure.py            # table
    .venv/bin/python tests/screen/heldout2/measure.py --json     # the same as JSON
    .venv/bin/python tests/screen/heldout2/measure.py --misses   # every miss and false fire
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]

try:  # an installed (or editable) concord first; the source tree otherwise
    import concord  # noqa: F401
except ImportError:  # pragma: no cover - depends on the environment
    sys.path.insert(0, str(REPO / "desktop"))

from concord.domain import GateStatus  # noqa: E402
from concord.records import load_record  # noqa: E402

try:
    from concord.screen import RecordScreen  # type: ignore[attr-defined]
except ImportError:
    from concord.screen.record_screen import RecordScreen

HEADER = "Planned surgery date: 2026-12-01\nDate: 2026-11-20\n"

# Severity as in SPEC.md's gate table: these eight are moderate, the other 32 major.
MODERATE = {
    "anaemia",
    "diabetes_high_risk",
    "chronic_steroid",
    "osa",
    "morbid_obesity",
    "severe_hypertension",
    "stable_cardiac_disease",
    "periop_drug_allergy",
}


def fired_gates(screen, path: Path) -> tuple[set[str], dict[str, list[str]], str | None]:
    """Gates the screen fires on one file, the evidence text of each, or an error."""
    try:
        hits = screen.screen(load_record(path))
    except Exception as exc:  # report, do not stop the measurement
        return set(), {}, f"{type(exc).__name__}: {exc}"
    fired: set[str] = set()
    evidence: dict[str, list[str]] = defaultdict(list)
    for hit in hits:
        if hit.status == GateStatus.TRIGGERED:
            fired.add(hit.gate_id)
            for span in getattr(hit, "evidence", ()) or ():
                text = getattr(span, "text", None)
                if text:
                    evidence[hit.gate_id].append(text)
    return fired, dict(evidence), None


def ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def measure(here: Path = HERE) -> dict:
    """The measurement of the held-out set in `here` (this folder unless another set's
    script passes its own: heldout3 uses this one)."""
    expected = json.loads((here / "expected.json").read_text(encoding="utf-8"))
    classes_path = here / "classes.json"
    classes = json.loads(classes_path.read_text(encoding="utf-8")) if classes_path.exists() else {}
    phrasings = [
        json.loads(line)
        for line in (here / "phrasings.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    gates = sorted({g for v in expected.values() for g in v["triggered"] + v["not_triggered"]})
    screen = RecordScreen.load()

    per_gate = {
        g: {
            "severity": "moderate" if g in MODERATE else "major",
            "records": {"tp": 0, "fn": 0, "false_fires": 0, "silent_checks": 0},
            "phrasings": {"tp": 0, "fn": 0, "false_fires": 0, "silent_checks": 0},
        }
        for g in gates
    }
    misses: list[dict] = []
    errors: list[dict] = []
    unknown_fired: dict[str, list[str]] = {}

    # ---- whole records
    for stem in sorted(expected):
        exp = expected[stem]
        fired, evidence, err = fired_gates(screen, here / f"{stem}.txt")
        if err:
            errors.append({"source": "record", "id": stem, "error": err})
        extra = sorted(fired - set(gates))
        if extra:
            unknown_fired[stem] = extra
        cls = classes.get(stem, {})
        for g in exp["triggered"]:
            row = per_gate[g]["records"]
            if g in fired:
                row["tp"] += 1
            else:
                row["fn"] += 1
                misses.append(
                    {
                        "source": "record",
                        "id": stem,
                        "gate_id": g,
                        "kind": "miss",
                        "class": cls.get("findings", {}).get(g, ""),
                        "quote": exp["findings"].get(g, ""),
                    }
                )
        for g in exp["not_triggered"]:
            row = per_gate[g]["records"]
            row["silent_checks"] += 1
            if g in fired:
                row["false_fires"] += 1
                is_lookalike = g in exp["lookalikes"]
                misses.append(
                    {
                        "source": "record",
                        "id": stem,
                        "gate_id": g,
                        "kind": "false_fire",
                        "class": cls.get("lookalikes", {}).get(g, "")
                        if is_lookalike
                        else "(no planted lookalike)",
                        "quote": exp["lookalikes"].get(g, ""),
                        "screen_evidence": evidence.get(g, []),
                    }
                )

    # ---- phrasings, each as its own record
    with tempfile.TemporaryDirectory(prefix=f"{here.name}_") as tmp:
        for i, p in enumerate(phrasings):
            path = Path(tmp) / f"phrasing_{i:04d}.txt"
            path.write_text(HEADER + p["text"] + "\n", encoding="utf-8")
            fired, evidence, err = fired_gates(screen, path)
            pid = f"phrasing#{i + 1}"
            if err:
                errors.append({"source": "phrasing", "id": pid, "error": err})
            row = per_gate[p["gate_id"]]["phrasings"]
            hit = p["gate_id"] in fired
            if p["expect"] == "triggered":
                if hit:
                    row["tp"] += 1
                else:
                    row["fn"] += 1
                    misses.append(
                        {
                            "source": "phrasing",
                            "id": pid,
                            "gate_id": p["gate_id"],
                            "kind": "miss",
                            "style": p["style"],
                            "class": p["class"],
                            "quote": p["text"],
                        }
                    )
            else:
                row["silent_checks"] += 1
                if hit:
                    row["false_fires"] += 1
                    misses.append(
                        {
                            "source": "phrasing",
                            "id": pid,
                            "gate_id": p["gate_id"],
                            "kind": "false_fire",
                            "style": p["style"],
                            "class": p["class"],
                            "quote": p["text"],
                            "screen_evidence": evidence.get(p["gate_id"], []),
                        }
                    )

    totals = {}
    for part in ("records", "phrasings"):
        tp = sum(v[part]["tp"] for v in per_gate.values())
        fn = sum(v[part]["fn"] for v in per_gate.values())
        mtp = sum(v[part]["tp"] for v in per_gate.values() if v["severity"] == "major")
        mfn = sum(v[part]["fn"] for v in per_gate.values() if v["severity"] == "major")
        ff = sum(v[part]["false_fires"] for v in per_gate.values())
        sc = sum(v[part]["silent_checks"] for v in per_gate.values())
        totals[part] = {
            "tp": tp,
            "fn": fn,
            "recall": ratio(tp, tp + fn),
            "major_tp": mtp,
            "major_fn": mfn,
            "major_recall": ratio(mtp, mtp + mfn),
            "false_fires": ff,
            "silent_checks": sc,
            "false_fire_rate": ratio(ff, sc),
        }
    # false fires on the planted lookalikes alone (records)
    planted = sum(len(v["lookalikes"]) for v in expected.values())
    planted_ff = sum(
        1
        for m in misses
        if m["source"] == "record"
        and m["kind"] == "false_fire"
        and m["class"] != "(no planted lookalike)"
    )
    totals["records"]["lookalikes"] = planted
    totals["records"]["lookalike_false_fires"] = planted_ff

    return {
        "gates": per_gate,
        "totals": totals,
        "misses": misses,
        "errors": errors,
        "unknown_gates_fired": unknown_fired,
    }


def print_table(result: dict) -> None:
    head = (
        f"{'gate':42s} {'sev':4s} | {'rec TP':>6s} {'FN':>3s} {'FF':>3s} | "
        f"{'phr TP':>6s} {'FN':>3s} {'FF':>3s}"
    )
    print(head)
    print("-" * len(head))
    for g, v in result["gates"].items():
        r, p = v["records"], v["phrasings"]
        print(
            f"{g:42s} {v['severity'][:4]:4s} | {r['tp']:6d} {r['fn']:3d} {r['false_fires']:3d} | "
            f"{p['tp']:6d} {p['fn']:3d} {p['false_fires']:3d}"
        )
    print()
    for part in ("records", "phrasings"):
        t = result["totals"][part]
        n_all = t["tp"] + t["fn"]
        n_major = t["major_tp"] + t["major_fn"]
        line = (
            f"{part:9s}: recall {t['tp']}/{n_all} = {t['recall']}; "
            f"major-gate recall {t['major_tp']}/{n_major} = {t['major_recall']}; "
            f"false fires {t['false_fires']}/{t['silent_checks']} silent checks "
            f"= {t['false_fire_rate']}"
        )
        if part == "records":
            line += f"; planted lookalikes fired {t['lookalike_false_fires']}/{t['lookalikes']}"
        print(line)
    if result["errors"]:
        print(f"\n{len(result['errors'])} file(s) could not be screened:")
        for e in result["errors"]:
            print(f"  {e['source']} {e['id']}: {e['error']}")
    if result["unknown_gates_fired"]:
        print("\ngate ids fired that SPEC's table does not name:", result["unknown_gates_fired"])


def print_misses(result: dict) -> None:
    for m in result["misses"]:
        style = f" [{m['style']}]" if "style" in m else ""
        print(f"{m['kind'].upper():10s} {m['source']:8s} {m['id']:14s} {m['gate_id']}{style}")
        print(f"           class: {m['class']}")
        if m["quote"]:
            print("           quote: " + m["quote"].replace("\n", "\n                  "))
        if m.get("screen_evidence"):
            ev = " || ".join(e.replace("\n", " ") for e in m["screen_evidence"][:3])
            print(f"           screen evidence: {ev}")
    print(
        f"\n{sum(1 for m in result['misses'] if m['kind'] == 'miss')} misses, "
        f"{sum(1 for m in result['misses'] if m['kind'] == 'false_fire')} false fires"
    )


def main(argv: list[str] | None = None, here: Path = HERE) -> int:
    ap = argparse.ArgumentParser(
        description=f"Held-out measurement of the record screen ({here.name})"
    )
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    ap.add_argument("--misses", action="store_true", help="list every miss and false fire")
    args = ap.parse_args(argv)
    result = measure(here)
    if args.json:
        out = dict(result)
        if not args.misses:
            out.pop("misses")
        print(json.dumps(out, indent=1, ensure_ascii=False))
        return 0
    print_table(result)
    if args.misses:
        print()
        print_misses(result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
