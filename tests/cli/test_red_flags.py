"""The command line of issue 26: each brief item says whether its evidence supports it and
which red flags it addresses; a red flag takes a disposition; the PDF is refused while one
has none, naming it; `cases --json` lists every imported record's red flags before any run."""

from __future__ import annotations

from pathlib import Path

from concord.store import Repository
from tests import factories as f
from tests.installation import CLINICIAN, PASSWORD, required_ids


def test_show_gives_each_items_support_and_what_it_addresses(installation: Repository, run):
    shown = run("show", "C-1", "--json").json()
    items = [i for b in shown["case"]["briefs"] for i in b["items"]]
    assert items
    for item in items:  # a case stored before the check: read by the rule it was scored with
        assert isinstance(item["supported"], bool) and item["support_reason"]
        assert isinstance(item["addresses"], list)
    flags = {f["gate_id"]: f for f in shown["red_flags"]}
    assert flags["hyperkalaemia"]["severity"] == "major"
    assert flags["hyperkalaemia"]["disposition"] is None


def test_a_red_flag_takes_a_disposition_and_the_pdf_waits_for_every_one(
    installation: Repository, run, tmp_path: Path
) -> None:
    out = tmp_path / "r.pdf"
    refused = run("export-pdf", "C-1", "--user", CLINICIAN, "--out", str(out), password=PASSWORD)
    assert refused.code != 0 and not out.exists()
    assert "without a clinician's disposition" in refused.err
    assert "hyperkalaemia" in refused.err and "bleomycin_exposure" in refused.err
    done = run(
        "decide",
        "C-1",
        "--target",
        "gate/hyperkalaemia",
        "--disposition",
        "postpone",
        "--reason",
        "K+ to be rechecked",
        "--user",
        CLINICIAN,
        "--json",
        password=PASSWORD,
    )
    assert done.code == 0, done.err
    decision = done.json()["decision"]
    assert decision["target_id"] == "gate/hyperkalaemia/disposition"
    assert (decision["original_value"], decision["new_value"]) == (None, "postpone")
    shown = run("show", "C-1", "--json").json()
    flags = {f["gate_id"]: f for f in shown["red_flags"]}
    assert flags["hyperkalaemia"]["disposition"] == "postpone"
    assert flags["hyperkalaemia"]["reason"] == "K+ to be rechecked"
    refused = run("export-pdf", "C-1", "--user", CLINICIAN, "--out", str(out), password=PASSWORD)
    assert refused.code != 0 and "bleomycin_exposure" in refused.err
    assert "hyperkalaemia (" not in refused.err
    accept = run(
        "decide",
        "C-1",
        "--target",
        "gate/bleomycin_exposure/disposition",
        "--accept",
        "--reason",
        "ok",
        "--user",
        CLINICIAN,
        password=PASSWORD,
    )
    assert accept.code != 0 and "disposition" in accept.err  # never an accept
    assert all(
        t.endswith("/disposition") or "/disagreement/" in t for t in required_ids(run)
    )  # an AI score is never required


def test_cases_lists_every_records_red_flags_before_any_run(installation: Repository, run):
    unrun = f.record(name="unrun.txt", text="Patient: Ann Early   MRN KB-1000001\nK+ 6.6 mmol/L\n")
    installation.save_record(unrun, CLINICIAN)
    data = run("cases", "--json").json()
    records = {r["record_id"]: r for r in data["records"]}
    row = records[unrun.record_id]
    assert row["case_id"] is None and row["status"] == "not run"
    assert [flag["gate_id"] for flag in row["red_flags"]] == ["hyperkalaemia"]
    assert row["urgency"] == "Major red flag, not run yet"
    assert row["record_number"] == "MRN KB-1000001"
    (case,) = data["cases"]
    assert {flag["gate_id"] for flag in case["red_flags"]} >= {"hyperkalaemia"}
