"""Held-out measurement of evidence verification (not a test: it reports, it does not assert).

    python tests/evidence/heldout/measure.py [--json]

For each record NAME.txt in this folder, runs

    python -m concord verify-extracts NAME.txt NAME.evidence.jsonl --json

and compares each line's "verified" verdict with NAME.expected.json (line index ->
{"verified": bool, "why": str}), written by an independent author blind to the verifier.
Reports per record and in total: faithful quotes verified / faithful, meaning-changing quotes
refused / meaning-changing, and every disagreement with the status and flags the tool gave.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]


def run_tool(record: Path, evidence: Path, home: str) -> dict[str, Any]:
    env = dict(os.environ)
    desktop = str(ROOT / "desktop")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (desktop, env.get("PYTHONPATH", "")) if p)
    env["CONCORD_HOME"] = home
    proc = subprocess.run(
        [sys.executable, "-m", "concord", "verify-extracts", str(record), str(evidence), "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(
            f"verify-extracts failed on {record.name} (exit {proc.returncode}): "
            f"{proc.stderr.strip() or proc.stdout.strip()}"
        )
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def measure_record(record: Path, home: str) -> dict[str, Any]:
    stem = record.stem
    evidence = HERE / f"{stem}.evidence.jsonl"
    expected: dict[str, dict[str, Any]] = json.loads((HERE / f"{stem}.expected.json").read_text())
    extracts = [json.loads(line) for line in evidence.read_text().splitlines() if line.strip()]
    got = {int(line["index"]): line for line in run_tool(record, evidence, home)["lines"]}
    faithful = faithful_ok = changed = changed_refused = 0
    disagreements = []
    for key, want in sorted(expected.items(), key=lambda kv: int(kv[0])):
        index = int(key)
        line = got.get(index)
        verified = bool(line and line.get("verified"))
        if want["verified"]:
            faithful += 1
            faithful_ok += verified
        else:
            changed += 1
            changed_refused += not verified
        if verified != want["verified"]:
            disagreements.append(
                {
                    "index": index,
                    "extract_text": extracts[index]["extract_text"],
                    "expected_verified": want["verified"],
                    "why": want["why"],
                    "tool_verified": verified,
                    "status": line.get("status") if line else None,
                    "flags": line.get("flags", []) if line else None,
                    "score": line.get("score") if line else None,
                    "diff": line.get("diff") if line else None,
                }
            )
    return {
        "record": record.name,
        "faithful": faithful,
        "faithful_verified": faithful_ok,
        "meaning_changing": changed,
        "meaning_changing_refused": changed_refused,
        "disagreements": disagreements,
    }


def ratio(num: int, den: int) -> str:
    return f"{num}/{den} ({100.0 * num / den:.1f}%)" if den else f"{num}/0"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)

    records = sorted(p for p in HERE.glob("*.txt"))
    with tempfile.TemporaryDirectory(prefix="heldout-evidence-home-") as home:
        results = [measure_record(record, home) for record in records]
    total = {
        key: sum(r[key] for r in results)
        for key in ("faithful", "faithful_verified", "meaning_changing", "meaning_changing_refused")
    }
    total["disagreements"] = sum(len(r["disagreements"]) for r in results)
    if args.json:
        print(json.dumps({"records": results, "totals": total}, indent=2, ensure_ascii=False))
        return 0
    for r in results:
        print(f"\n== {r['record']} ==")
        print(f"faithful quotes verified:         {ratio(r['faithful_verified'], r['faithful'])}")
        print(
            "meaning-changing quotes refused:  "
            f"{ratio(r['meaning_changing_refused'], r['meaning_changing'])}"
        )
        for d in r["disagreements"]:
            want = "verify" if d["expected_verified"] else "refuse"
            print(
                f"  #{d['index']} should {want}: {d['extract_text']!r}\n"
                f"      tool: verified={d['tool_verified']} status={d['status']} "
                f"flags={d['flags']} score={d['score']}\n"
                f"      why: {d['why']}"
            )
            if d["diff"]:
                print(f"      diff: {json.dumps(d['diff'], ensure_ascii=False)}")
    print("\n-- totals --")
    print(
        f"faithful quotes verified:         {ratio(total['faithful_verified'], total['faithful'])}"
    )
    print(
        "meaning-changing quotes refused:  "
        f"{ratio(total['meaning_changing_refused'], total['meaning_changing'])}"
    )
    print(f"disagreements:                    {total['disagreements']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
