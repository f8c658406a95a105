"""Site validation end to end on the command line, with stand-in models (conftest): decide a
case as a clinician, validate a candidate beside the demonstration model, accept it, and see
that a run with another model is silent everywhere, that editing a gate makes the acceptance
stale, and that `validate resources` lists (and refuses) what the edit changes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pypdf import PdfReader

from concord.site.acceptance import ACCEPT_ACTION
from concord.store import Repository
from tests.identity import ADMIN, ADMIN_PASSWORD, PASSWORD
from tests.installation import CLINICIAN
from tests.validation.conftest import LENIENT, RECORD, decide, reviewed_case, write_policy


def _pdf_text(path: Path) -> str:
    return " ".join(" ".join((p.extract_text() or "").split()) for p in PdfReader(path).pages)


def test_validate_accept_silent_stale_and_resources(
    site: Repository, run, concord_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case_id, false_fire = reviewed_case(run)

    # -- validate the candidate beside the demonstration model the reference was made with
    validated = run("validate", "model", "good", "--json", "--pdf", str(tmp_path / "v.pdf"))
    assert validated.code == 0, validated.err
    report = validated.json()
    assert "[" in validated.err and "1/1" in validated.err  # the progress bar
    assert json.loads((concord_home / "policy.json").read_text())["min_reference_cases"] == 10
    cand, base = report["candidate"], report["accepted"]
    assert cand["model_name"] == "good" and base["role"] == "demonstration"
    assert base["per_record"][0]["reused"] and base["per_record"][0]["case_id"] == case_id
    assert cand["records"] == 1 and cand["valid_outputs"]["denominator"] >= 2
    judge = cand["judge_agreement"]
    assert judge["n"] >= 1 and judge["observed"] is not None
    assert report["reference"]["regression_cases"] == 2  # a false fire, a finding added
    assert report["reference"]["gate_confirmations"] >= 1
    assert not report["passed"]  # the default policy wants 10 patients
    assert any(c["name"] == "reference cases" and not c["passed"] for c in report["checks"])
    assert "Site validation report" in _pdf_text(tmp_path / "v.pdf")
    silent_case = cand["per_record"][0]["case_id"]
    cases = {c["case_id"]: c for c in run("cases", "--json").json()["cases"]}
    assert cases[silent_case]["mode"] == "silent" and cases[case_id]["mode"] == "demonstration"

    # -- a figure below the policy is refused; the site's own policy decides
    monkeypatch.setenv("CONCORD_ADMIN_PASSWORD", ADMIN_PASSWORD)
    refused = run(
        "validate", "accept", report["validation_id"], "--clinician", CLINICIAN,
        "--admin", ADMIN, "--reason", "site trial", password=PASSWORD,
        admin_password=ADMIN_PASSWORD,
    )  # fmt: skip
    assert refused.code == 1 and "do not meet the site policy" in refused.err
    assert "reference cases 1 (needs >= 10)" in refused.err
    write_policy(concord_home, **LENIENT)
    accepted = run(
        "validate", "accept", report["validation_id"], "--clinician", CLINICIAN,
        "--admin", ADMIN, "--reason", "site trial on the ward's cases", "--json",
        password=PASSWORD, admin_password=ADMIN_PASSWORD,
    )  # fmt: skip
    assert accepted.code == 0, accepted.err
    acceptance = accepted.json()
    assert acceptance["clinician"] == CLINICIAN and acceptance["admin"] == ADMIN
    status = run("validate", "status", "--json").json()
    assert status["current"] == [acceptance["acceptance_id"]] and status["demonstration"] is None

    # -- the accepted model's runs are clinical; any other model's are silent everywhere
    clinical = run("run", str(RECORD), "--model", "good", "--json", password=PASSWORD).json()
    assert clinical["mode"] == "clinical" and acceptance["acceptance_id"] in clinical["site"]
    silent = run("run", str(RECORD), "--model", "weak", "--json", password=PASSWORD).json()
    assert silent["mode"] == "silent"
    shown = run("show", silent["case_id"])
    assert "SILENT RUN" in shown.out and "mode: SILENT" in shown.out
    listed = run("cases")
    assert "SILENT" in listed.out
    pdf = tmp_path / "silent.pdf"
    export = run("export-pdf", silent["case_id"], "--user", CLINICIAN, "--out", str(pdf),
                 password=PASSWORD)  # fmt: skip
    assert export.code == 1 and "silent results are never put in a review PDF" in export.err
    assert export.err.count("\n") == 1 and not pdf.exists()
    target = next(t["id"] for t in silent["targets"] if t["kind"] == "gate")
    decided = run("decide", silent["case_id"], "--target", target, "--accept", "--reason",
                  "x", "--user", CLINICIAN, password=PASSWORD)  # fmt: skip
    assert decided.code == 1 and "silent run" in decided.err
    with Repository.open() as repo:
        latest = {r.record_id: r.latest_case_id for r in repo.list_records()}
    assert set(latest.values()) == {clinical["case_id"]}  # the worklist never shows silent

    # -- the clinical case's PDF prints the versions and the acceptance
    for t in run("show", clinical["case_id"], "--json").json()["outstanding"]:
        decide(run, clinical["case_id"], t)
    out = tmp_path / "clinical.pdf"
    signed = run("export-pdf", clinical["case_id"], "--user", CLINICIAN, "--out", str(out),
                 password=PASSWORD)  # fmt: skip
    assert signed.code == 0, signed.err
    text = _pdf_text(out)
    assert "Resource versions" in text and clinical["resources"]["gates"][:8] in text
    assert acceptance["acceptance_id"] in text and "DEMONSTRATION" not in text

    # -- editing a gate file makes the acceptance stale and new runs silent
    candidate = tmp_path / "resources"
    shutil.copytree(Path(__file__).resolve().parents[2] / "resources", candidate)
    gate = candidate / "gates" / "02_hyperkalaemia.json"
    gate.write_text(gate.read_text().replace('"threshold": 6.0', '"threshold": 6.5'))
    listing = run("validate", "resources", str(candidate), "--json")
    assert listing.code == 1 and "drops 1 clinician-confirmed finding" in listing.err
    changes = listing.json()
    assert changes["changed_parts"] == ["gates"] and changes["dropped_confirmed"] == 1
    assert changes["per_gate"]["hyperkalaemia"]["stops firing"] >= 1
    drop = next(c for c in changes["gate_changes"] if c["gate_id"] == "hyperkalaemia")
    assert drop["clinician"] == "confirmed" and drop["drops_confirmed"]
    signed_off = run(
        "validate", "resources", str(candidate), "--sign-off", "--user", CLINICIAN,
        "--reason", "local K+ threshold agreed by the renal team", "--json", password=PASSWORD,
    )  # fmt: skip
    assert signed_off.code == 0, signed_off.err
    assert signed_off.json()["sign_off"]["user"] == CLINICIAN

    monkeypatch.setenv("CONCORD_RESOURCES", str(candidate))
    stale = run("validate", "status", "--json").json()
    assert stale["current"] == [] and stale["acceptances"][0]["stale_parts"] == ["gates"]
    assert "STALE (changed since: gates)" in run("validate", "status").out
    after = run("run", str(RECORD), "--model", "good", "--json", password=PASSWORD).json()
    assert after["mode"] == "silent"

    # -- everything above verifies; a forged acceptance row does not make a model clinical
    verified = run("audit", "verify", "--json")
    assert verified.code == 0, verified.out
    assert verified.json()["checked"]["site_validation"] >= 3


def test_a_forged_acceptance_is_no_acceptance(site: Repository, run) -> None:
    from concord.site import acceptances
    from concord.store import write_transaction
    from concord.store.audit import append_audit

    reviewed_case(run)
    statement = {"version": 1, "acceptance_id": "ACC-forged", "model_sha256": "ab" * 32}
    with write_transaction(site.db):
        append_audit(
            site.db.conn,
            user=ADMIN,
            action=ACCEPT_ACTION,
            entity="acceptance:ACC-forged",
            new_value={"statement": statement, "signatures": {"clinician": "x", "admin": "y"}},
        )
    assert acceptances(site) == []
    verified = run("audit", "verify", "--json")
    assert verified.code == 1
    problems = [p for p in verified.json()["problems"] if p["check"] == "acceptances"]
    assert problems and "fields" in problems[0]["detail"]
