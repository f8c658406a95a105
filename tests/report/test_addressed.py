"""One rule decides whether a gate is addressed, for the scorecard and the PDF: a bullet
addresses a gate only if it cites evidence verified against the record."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from pypdf import PdfReader

from concord.adjudication.gates import addressing_items
from concord.domain import BriefSection
from concord.report.pdf import render_review_pdf
from concord.screen.record_screen import RecordScreen
from tests import factories as f


def _case_with_anaesthetist_citing(cite: str):
    rec = f.record()
    case = f.case(rec)
    anaesthetist = case.briefs[0]
    bullet = f.item(
        BriefSection.TOP_RISKS,
        1,
        "Hyperkalaemia: repeat K+ before theatre",
        (cite,),
        gate_ids=("hyperkalaemia",),
    )
    brief = anaesthetist.model_copy(update={"items": (bullet,)})
    return rec, case.model_copy(update={"briefs": (brief, *case.briefs[1:])})


def _gate_row(path: Path) -> str:
    text = " ".join(" ".join((p.extract_text() or "").split()) for p in PdfReader(path).pages)
    start = text.index("hyperkalaemia · owner renal")
    return text[start : text.index("Negated or historical", start)]


def test_a_bullet_whose_evidence_failed_verification_addresses_nothing(tmp_path: Path) -> None:
    rules = RecordScreen.load().definitions
    for cite, addressed in (("E1", True), ("E2", False)):  # E1 verified, E2 FAILED
        rec, case = _case_with_anaesthetist_citing(cite)
        gate = next(g for g in case.gates if g.gate_id == "hyperkalaemia")
        items = addressing_items(case.briefs[0], gate, rules)
        assert bool(items) is addressed, cite
        out = tmp_path / f"{cite}.pdf"
        render_review_pdf(
            case,
            rec,
            [],
            signer_name="Dr Smith",
            meaning="Reviewed",
            signed_at=dt.datetime.now(dt.UTC),
            audit_head=(1, "a" * 64),
            out=out,
            rules=rules,
        )
        row = _gate_row(out)
        assert ("addressed by risk 1: “Hyper" in row) is addressed, row
        assert ("NOT addressed" in row) is not addressed, row


def test_the_pdf_prints_what_the_claim_check_found(tmp_path: Path) -> None:
    """A bullet whose verified quote does not carry it is printed as such and addresses
    nothing; the red-flag row says so and shows the clinician's disposition."""
    from concord.pipeline import check_claims
    from concord.review import make_decision

    screen = RecordScreen.load()
    rec, case = _case_with_anaesthetist_citing("E1")
    bullet = case.briefs[0].items[0].model_copy(update={"text": "K+ >= 7.5 mmol/L"})
    brief = case.briefs[0].model_copy(update={"items": (bullet,)})
    (checked,) = check_claims(rec, [brief], case.gates, screen)
    assert checked.items[0].supported is False
    case = case.model_copy(update={"briefs": (checked, *case.briefs[1:])})
    disposition = make_decision(
        case, "gate/hyperkalaemia", user="Dr Smith", reason="repeat K+", disposition="postpone"
    )
    out = tmp_path / "checked.pdf"
    render_review_pdf(
        case,
        rec,
        [disposition],
        signer_name="Dr Smith",
        meaning="Reviewed",
        signed_at=dt.datetime.now(dt.UTC),
        audit_head=(1, "a" * 64),
        out=out,
        rules=screen.definitions,
    )
    row = _gate_row(out)
    assert "NOT addressed" in row
    assert "Postpone surgery repeat K+" in row
    text = " ".join(" ".join((p.extract_text() or "").split()) for p in PdfReader(out).pages)
    assert "quote found — does not support this claim" in text
    assert "reviewed every judgement" not in text
    assert "the quote is the record's text" in text
