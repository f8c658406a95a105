"""The case lifecycle with no silent states: run failed -> needs review -> reviewed -> signed
-> amended (re-sign required), and what the PDF and verify-pdf say about it."""

from __future__ import annotations

import json
from pathlib import Path

from pypdf import PdfReader

from concord.domain import BriefStatus
from concord.store import Repository
from tests import factories as f
from tests.identity import PASSWORD
from tests.installation import CLINICIAN, decide_all


def _pdf_text(path: Path) -> str:
    return " ".join(" ".join((page.extract_text() or "").split()) for page in PdfReader(path).pages)


def _attached(path: Path) -> dict:
    return json.loads(PdfReader(path).attachments["review-record.json"][-1])


def test_a_decision_after_signing_amends_the_case_and_the_next_pdf_supersedes(
    installation: Repository,
    run,
    tmp_path: Path,
) -> None:
    decide_all(run)
    first, second = tmp_path / "first.pdf", tmp_path / "second.pdf"
    assert (
        run("export-pdf", "C-1", "--user", CLINICIAN, "--out", str(first), password=PASSWORD).code
        == 0
    )
    assert run("show", "C-1", "--json").json()["status"] == "signed"
    again = run("export-pdf", "C-1", "--user", CLINICIAN, "--out", str(second), password=PASSWORD)
    assert again.code == 1 and "already signed" in again.err and not second.exists()

    late = run(
        "decide",
        "C-1",
        "--target",
        "gate/hyperkalaemia",
        "--override",
        "negated",
        "--reason",
        "repeat K+ 4.9 was haemolysed",
        "--user",
        CLINICIAN,
        "--json",
        password=PASSWORD,
    )
    assert late.code == 0 and late.json()["status"] == "amended - re-sign required"
    stale = run("verify-pdf", str(first), "--json").json()
    assert stale["valid"] and not stale["currency"]["current"]  # a valid signature, not current
    assert stale["currency"]["decisions_after_signing"] == 1
    assert stale["currency"]["case_status"] == "amended - re-sign required"
    said = run("verify-pdf", str(first))
    assert said.code == 0 and "NOT CURRENT" in said.out and "1 decision(s) recorded" in said.out
    cases = run("cases", "--json").json()["cases"]
    assert [c["status"] for c in cases] == ["amended - re-sign required"]

    resigned = run(
        "export-pdf", "C-1", "--user", CLINICIAN, "--out", str(second), "--json", password=PASSWORD
    )
    assert resigned.code == 0, resigned.err
    data = resigned.json()
    assert data["supersedes"] is not None and data["supersedes"] < data["signature_id"]
    assert run("show", "C-1", "--json").json()["status"] == "signed"
    text = _pdf_text(second)
    assert "AMENDED RECORD" in text and "supersedes the earlier signed record" in text
    assert "gate/hyperkalaemia" in text
    attached = _attached(second)
    assert attached["supersedes"]["signature_id"] == data["supersedes"]
    assert attached["supersedes"]["amended_targets"] == ["gate/hyperkalaemia"]
    assert "AMENDED RECORD" not in _pdf_text(first)
    for pdf in (first, second):
        checked = run("verify-pdf", str(pdf), "--json").json()
        assert checked["valid"] and checked["registered"]["fingerprint_matches"]
    old, new = (run("verify-pdf", str(p), "--json").json()["currency"] for p in (first, second))
    assert old["superseded_by"] == [data["signature_id"]] and not old["current"]
    assert new["current"] and new["superseded_by"] == [] and new["case_status"] == "signed"


def test_the_pdf_states_how_many_judgements_were_reviewed(
    installation: Repository,
    run,
    tmp_path: Path,
) -> None:
    decide_all(run)
    out = tmp_path / "r.pdf"
    done = run(
        "export-pdf", "C-1", "--user", CLINICIAN, "--out", str(out), "--json", password=PASSWORD
    )
    data = done.json()
    shown = run("show", "C-1", "--json").json()
    review = shown["review"]  # the queue's count: one judgement per line of the queue
    total = review["judgements"]
    assert total == len(shown["judgements"]) < len(shown["targets"])  # quotes are grouped
    assert data["reviewed"] + data["not_reviewed"] == total and data["not_reviewed"] > 0
    assert review["one_by_one"] == data["reviewed"] and review["bulk_accepted"] == 0
    text = _pdf_text(out)
    assert (
        f"{total} judgements: {data['reviewed']} reviewed one by one, 0 bulk-accepted, "
        f"{data['not_reviewed']} not reviewed" in text
    )
    assert "reviewed every judgement" not in text
    assert _attached(out)["review"] == {
        "reviewed": data["reviewed"],
        "not_reviewed": data["not_reviewed"],
        "judgements": total,
        "one_by_one": data["reviewed"],
        "bulk_accepted": 0,
    }


def test_a_failed_anaesthetist_brief_is_a_run_failed_case_never_a_clean_one(
    repo: Repository,
    run,
) -> None:
    from tests.identity import enrol

    enrol(repo, CLINICIAN, "clinician")
    rec = f.record()
    repo.save_record(rec, CLINICIAN)
    good = f.case(rec, case_id="C-9")
    failed_brief = good.briefs[0].model_copy(
        update={"status": BriefStatus.FAILED, "failure_reason": "invalid JSON twice", "items": ()}
    )
    case = good.model_copy(
        update={"briefs": (failed_brief,), "scorecards": (), "gates": (), "mutual_omissions": ()}
    )
    repo.save_case(case, CLINICIAN)
    (row,) = run("cases", "--json").json()["cases"]
    assert row["status"] == "run failed" and row["human_review"] is True
    (summary,) = repo.list_records()
    assert summary.latest_status == "run failed" and summary.human_review is True
    shown = run("show", "C-9", "--json").json()
    assert shown["human_review"] and "run failed" in " ".join(shown["review_reasons"])
    signed = run("export-pdf", "C-9", "--user", CLINICIAN, "--out", "x.pdf", password=PASSWORD)
    assert signed.code == 1 and "the run failed: re-run the case" in signed.err


def test_a_triggered_major_gate_always_means_human_review(repo: Repository, run) -> None:
    rec = f.record()
    repo.save_record(rec, "importer")
    case = f.case(rec)
    calm = case.model_copy(
        update={
            "scorecards": tuple(
                c.model_copy(update={"human_review": False, "review_reasons": ()})
                for c in case.scorecards
            ),
            "mutual_omissions": (),
        }
    )
    repo.save_case(calm, "runner")
    (row,) = run("cases", "--json").json()["cases"]
    assert row["human_review"] is True
    assert "triggered major gate: hyperkalaemia, bleomycin_exposure" in " ".join(
        run("show", "C-1", "--json").json()["review_reasons"]
    )
