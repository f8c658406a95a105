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
    start = text.index("hyperkalaemia hyperkalaemia · renal")
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
        assert ("addressed: top_risks.1" in row) is addressed, row
        assert ("NOT addressed" in row) is not addressed, row
