"""The whole core path without a model: import -> panel -> store -> decide -> sign -> verify.

The agents are scripted (tests only); everything else is the real code: screen, alignment,
adjudication, SQLite store, audit chain, PDF rendering and PAdES signing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from concord import paths
from concord.cli import main
from concord.domain import CaseStatus, DisagreementKind
from concord.llm.scripted import ScriptedRuntime
from concord.pipeline import NO_OPERATION, PanelSettings, Stage, run_panel
from concord.records import load_record
from concord.services import Services
from tests.fake_agents import BriefWriter
from tests.identity import PASSWORD, enrol

DEMO = paths.resources_dir() / "demo"
BLEO = DEMO / "01_bleomycin_hodgkin.json"


def run_case(svc: Services, path: Path, writer: BriefWriter, judges: int = 1):
    record = load_record(path)
    svc.repo.save_record(record, "tester")
    runtime = ScriptedRuntime(writer)
    events = list(
        run_panel(
            record,
            runtime,
            profiles=svc.profiles,
            screen=svc.screen,
            lexicon=svc.lexicon,
            config=svc.config,
            settings=PanelSettings(judges=judges),
        )
    )
    case = events[-1].case
    assert case is not None
    svc.repo.save_case(case, "tester")
    return case, events


@pytest.fixture
def svc():
    services = Services()
    yield services
    services.close()


def test_mutual_omission_of_bleomycin_is_flagged(svc):
    """Both the anaesthetist and the oncologist miss 'ABVD'; the screen still fires."""
    writer = BriefWriter(
        blind_spots={"anaesthetist": ["ABVD", "bleomycin"], "oncolog": ["ABVD", "bleomycin"]},
        consult=["oncology"],
    )
    case, events = run_case(svc, BLEO, writer)
    assert [e.stage for e in events][0] is Stage.SCREEN and events[-1].stage is Stage.DONE
    assert "bleomycin_exposure" in case.mutual_omissions
    onc = next(c for c in case.scorecards if c.specialist == "oncology")
    assert onc.capped and onc.human_review and onc.overall <= 69
    assert any(d.kind == DisagreementKind.OMITTED_BY_PAIR for d in onc.disagreements)
    assert case.human_review


def test_a_surgeon_agent_without_a_usable_operation_does_not_stop_the_panel(svc):
    """The DES record names no operation; a surgeon agent that only says "operation" gives
    no usable proposal: the briefs are still written, and the case says who named nothing."""
    vague = BriefWriter(operation="operation")
    case, events = run_case(svc, DEMO / "02_recent_des_dapt.json", vague)
    assert case.operation == NO_OPERATION
    assert "surgeon agent failed" in case.operation_source
    assert any("no usable operation" in e.message for e in events)
    assert case.brief("anaesthetist").status.value == "ok" and case.scorecards


def test_gate_owner_is_consulted_even_if_the_anaesthetist_does_not_ask(svc):
    writer = BriefWriter(consult=["cardiology"])
    case, _ = run_case(svc, BLEO, writer, judges=0)
    assert {b.agent for b in case.briefs} >= {"anaesthetist", "cardiology", "oncology"}


def test_every_evidence_span_is_the_record_text(svc):
    case, _ = run_case(svc, DEMO / "03_ckd_hyperkalaemia.json", BriefWriter(), judges=0)
    record = svc.repo.get_record(case.record_id)
    evidence = [(brief.agent, ev) for brief in case.briefs for ev in brief.evidence]
    assert len(evidence) >= len(case.briefs) >= 2  # every brief cites at least one line
    for agent, ev in evidence:
        a = ev.alignment
        assert a.verified, (agent, ev)
        doc = record.document(a.source_id)
        assert doc.text[a.start : a.end].split() == ev.line.extract_text.split()


def test_cli_show_decide_sign_verify(svc, tmp_path, capsys, monkeypatch):
    case, _ = run_case(svc, BLEO, BriefWriter(consult=["oncology"]), judges=0)
    monkeypatch.setenv("CONCORD_PASSWORD", "ward-round-at-seven")
    assert main(["users", "add", "Dr Admin", "--role", "admin"]) == 0  # the first user
    monkeypatch.setenv("CONCORD_ADMIN_PASSWORD", "ward-round-at-seven")
    monkeypatch.setenv("CONCORD_PASSWORD", "correct horse battery")
    assert (
        main(["users", "add", "Dr Ada Lovelace", "--role", "clinician", "--admin", "Dr Admin"]) == 0
    )
    capsys.readouterr()

    assert main(["show", case.case_id, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    ids = {t["id"] for t in shown["targets"]}
    assert "gate/bleomycin_exposure" in ids and "oncology/overall" in ids
    assert "oncology/subscore/coverage" in ids

    # Signing before review is refused, and writes nothing.
    out = tmp_path / "review.pdf"
    assert main(["export-pdf", case.case_id, "--user", "Dr Ada Lovelace", "--out", str(out)]) == 1
    assert not out.exists()
    assert "without a clinician's disposition: Bleomycin exposure" in capsys.readouterr().err

    # what is required is clinical: a disposition per red flag, never an AI score
    assert "gate/bleomycin_exposure/disposition" in shown["outstanding"]
    assert not any(t.endswith("/overall") for t in shown["outstanding"])
    overridden = "oncology/overall"  # an AI score may still be overridden
    for target in [*shown["outstanding"], overridden]:
        args = [
            "decide",
            case.case_id,
            "--target",
            target,
            "--reason",
            "checked against notes",
            "--user",
            "Dr Ada Lovelace",
        ]
        if target.endswith("/disposition"):
            args += ["--disposition", "refer"]
        else:
            args += ["--override", "50"] if target == overridden else ["--accept"]
        assert main(args) == 0
    assert svc.repo.case_status(case.case_id) == CaseStatus.REVIEWED

    # A wrong password signs nothing.
    monkeypatch.setenv("CONCORD_PASSWORD", "wrong password!")
    assert main(["export-pdf", case.case_id, "--user", "Dr Ada Lovelace", "--out", str(out)]) == 1
    assert not out.exists()
    monkeypatch.setenv("CONCORD_PASSWORD", "correct horse battery")
    capsys.readouterr()
    assert (
        main(["export-pdf", case.case_id, "--user", "Dr Ada Lovelace", "--out", str(out), "--json"])
        == 0
    )
    signed = json.loads(capsys.readouterr().out)
    assert "with" in signed["meaning"] and out.exists()
    assert svc.repo.case_status(case.case_id) == CaseStatus.SIGNED

    assert main(["verify-pdf", str(out), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["valid"] and result["intact"] and result["trusted"]
    assert result["signer"] == "Dr Ada Lovelace"
    assert result["registered"]["fingerprint_matches"] is True

    tampered = tmp_path / "tampered.pdf"
    data = bytearray(out.read_bytes())
    data[len(data) // 3] ^= 0x01
    tampered.write_bytes(bytes(data))
    assert main(["verify-pdf", str(tampered), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["valid"] is False

    assert main(["audit", "verify", "--json"]) == 0
    audit = json.loads(capsys.readouterr().out)
    assert audit["ok"] and audit["first_bad_seq"] is None

    labels = tmp_path / "labels.jsonl"
    assert main(["export-labels", "--out", str(labels)]) == 1  # nobody signed in
    assert main(["export-labels", "--out", str(labels), "--user", "Dr Ada Lovelace"]) == 0
    rows = [json.loads(line) for line in labels.read_text().splitlines()]
    assert len(rows) == len(shown["outstanding"]) + 1
    assert any(r["action"] == "override" for r in rows)


def test_annotator_cannot_sign(svc, tmp_path, capsys, monkeypatch):
    case, _ = run_case(svc, BLEO, BriefWriter(consult=["oncology"]), judges=0)
    enrol(svc.repo, "ann", "annotator")
    monkeypatch.setenv("CONCORD_PASSWORD", PASSWORD)
    out = tmp_path / "x.pdf"
    assert main(["export-pdf", case.case_id, "--user", "ann", "--out", str(out)]) == 1
    assert "only a clinician can sign" in capsys.readouterr().err
    assert not out.exists()
