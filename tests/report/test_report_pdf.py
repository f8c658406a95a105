"""Rendering of the review PDF: content, escaping, attachment, layout safety."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
from pypdf import PdfReader

from concord.domain import (
    Brief,
    BriefItem,
    BriefSection,
    Case,
    Decision,
    DecisionAction,
    Record,
)
from concord.errors import InputError
from concord.report.fonts import esc, to_ascii
from concord.report.pdf import (
    MEANING_ACCEPTED,
    MEANING_OVERRIDES,
    render_review_pdf,
    signature_meaning,
)
from tests.report.report_fixtures import SIGNER

SIGNED_AT = dt.datetime(2025, 3, 14, 10, 30, 0, tzinfo=dt.UTC)
HEAD = (42, "3f" * 32)


def _render(case: Case, record: Record, decisions: list[Decision], out: Path) -> dict:
    return render_review_pdf(
        case,
        record,
        decisions,
        signer_name=SIGNER,
        meaning=MEANING_OVERRIDES,
        signed_at=SIGNED_AT,
        audit_head=HEAD,
        out=out,
    )


def _text(path: Path) -> str:
    reader = PdfReader(path)
    return "\n".join(page.extract_text() or "" for page in reader.pages)


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _printed(case: Case, record: Record, decisions: list[Decision], out: Path) -> str:
    """The text of the rendered PDF, white space folded."""
    _render(case, record, decisions, out)
    return _flat(_text(out))


def test_markup_in_record_and_brief_text_prints_literally(
    tmp_path: Path, case: Case, record: Record, decisions: list[Decision]
) -> None:
    text = _printed(case, record, decisions, tmp_path / "review.pdf")
    assert "J. Doe <b>test</b> & co" in text  # record name
    assert "ABVD <b>x4</b> & radiotherapy" in text  # gate evidence quoted from the record
    assert "Severe AS with <b>low-flow</b> pattern & LVEF" in text  # specialist bullet
    assert "(<img src=x>)" in text  # specialist bullet
    assert "<img src=x> & GP notes" in text  # decision reason
    assert "&amp;" not in text and "&lt;" not in text


def test_clinical_content_is_present(
    tmp_path: Path, case: Case, record: Record, decisions: list[Decision]
) -> None:
    out = tmp_path / "review.pdf"
    text = _printed(case, record, decisions, out)
    for expected in [
        "Red flags from the record screen",
        "MUTUAL OMISSION",
        "Negated or historical mentions",
        "No history of chest pain",
        "Adjudication summary",
        "Very Low",
        "UNSUPPORTED",
        "not the record's text",
        "the record's text, formatting aside",
        "the quote is the record's text",
        "matched / specialist_items",
        "Dr B. Registrar",
        "superseded",
        "2025-03-14T10:30:00Z",
        MEANING_OVERRIDES,
        f"seq {HEAD[0]}",
        HEAD[1],
        "K+ 6.3 mmol/L ≥ 6.0",
        "AVA 0.9 cm²",
        "RCRI 3 (creatinine > 177 µmol/L)",
        case.case_id,
        case.model_sha256[:12],
    ]:
        assert expected in text, expected
    pages = len(PdfReader(out).pages)
    assert f"page 1 of {pages}" in text and f"page {pages} of {pages}" in text


def test_json_attachment_is_embedded_and_matches(
    tmp_path: Path, case: Case, record: Record, decisions: list[Decision]
) -> None:
    out = tmp_path / "review.pdf"
    payload = _render(case, record, decisions, out)
    attachments = PdfReader(out).attachments
    assert "review-record.json" in attachments
    embedded = json.loads(attachments["review-record.json"][0])
    assert embedded == json.loads(json.dumps(payload))
    assert embedded["case"]["case_id"] == case.case_id
    assert embedded["signature"] == {
        "printed_name": SIGNER,
        "signed_at": "2025-03-14T10:30:00Z",
        "meaning": MEANING_OVERRIDES,
    }
    assert embedded["audit_head"] == {"seq": 42, "hash": HEAD[1]}
    assert [d["decision_id"] for d in embedded["decisions"]] == ["d1", "d2", "d3", "d4", "d5"]
    assert embedded["decisions_in_force"]["respiratory/subscore/critical_items"] == "d3"
    assert embedded["record"]["record_id"] == record.record_id


def test_unsigned_pdf_has_an_empty_signature_field_on_the_last_page(
    tmp_path: Path, case: Case, record: Record, decisions: list[Decision]
) -> None:
    out = tmp_path / "review.pdf"
    _render(case, record, decisions, out)
    reader = PdfReader(out)
    fields = reader.get_fields() or {}
    assert fields["ClinicianSignature"].get("/FT") == "/Sig"
    last = reader.pages[-1]
    annots = [a.get_object() for a in last.get("/Annots", [])]
    assert any(a.get("/T") == "ClinicianSignature" for a in annots)


def test_long_text_wraps_instead_of_running_off_the_page(
    tmp_path: Path, case: Case, record: Record, decisions: list[Decision]
) -> None:
    long_words = " ".join(f"word{i}" for i in range(900)) + " FINALWORD"
    unbroken = "x" * 400 + "TAILMARK"
    anaesthetist = case.brief("anaesthetist")
    items = (
        *anaesthetist.items,
        BriefItem(item_id="monitoring.2", section=BriefSection.MONITORING, rank=2, text=long_words),
        BriefItem(item_id="monitoring.3", section=BriefSection.MONITORING, rank=3, text=unbroken),
    )
    briefs = tuple(
        Brief(**{**b.model_dump(), "items": items}) if b.agent == "anaesthetist" else b
        for b in case.briefs
    )
    long_case = case.model_copy(update={"briefs": briefs})
    long_decision = decisions[0].model_copy(update={"reason": long_words})
    out = tmp_path / "long.pdf"
    _render(long_case, record, [long_decision, *decisions[1:]], out)
    text = _text(out).replace("\n", "")
    assert text.count("FINALWORD") == 2
    assert "TAILMARK" in text
    assert "word899" in text


def test_record_of_another_case_is_refused(
    tmp_path: Path, case: Case, record: Record, decisions: list[Decision]
) -> None:
    other = Record(name="someone else", documents=record.documents[:1])
    out = tmp_path / "review.pdf"
    with pytest.raises(InputError, match="is not the record of case"):
        _render(case, other, decisions, out)
    assert not out.exists()


def test_naive_signing_time_is_refused(
    tmp_path: Path, case: Case, record: Record, decisions: list[Decision]
) -> None:
    out = tmp_path / "review.pdf"
    with pytest.raises(InputError, match="timezone-aware"):
        render_review_pdf(
            case,
            record,
            decisions,
            signer_name=SIGNER,
            meaning=MEANING_ACCEPTED,
            signed_at=dt.datetime(2025, 3, 14, 10, 30),  # noqa: DTZ001 - naive on purpose
            audit_head=HEAD,
            out=out,
        )
    assert not out.exists()


def test_signature_meaning_follows_decisions_in_force(decisions: list[Decision]) -> None:
    assert signature_meaning(decisions) == MEANING_OVERRIDES
    accepted_only = [d for d in decisions if d.action.value == "accept"]
    assert signature_meaning(accepted_only) == MEANING_ACCEPTED
    assert signature_meaning([]) == MEANING_ACCEPTED


def test_escaping_and_ascii_fallback_helpers() -> None:
    assert esc("<b>&</b>\nnext") == "&lt;b&gt;&amp;&lt;/b&gt;<br/>next"
    assert esc("a\x00b\x1bc") == "abc"
    assert to_ascii("K+ ≥ 6.0 µmol/L, 0.9 cm² — ok") == "K+ >= 6.0 umol/L, 0.9 cm2 - ok"


def test_helvetica_fallback_folds_text_to_ascii(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    case: Case,
    record: Record,
    decisions: list[Decision],
) -> None:
    from concord.report import fonts, styles

    monkeypatch.setattr(fonts, "_candidate_dirs", lambda: [])
    fonts.font_set.cache_clear()
    styles.styles.cache_clear()
    try:
        assert not fonts.font_set().unicode
        text = _printed(case, record, decisions, tmp_path / "ascii.pdf")
        assert "K+ 6.3 mmol/L >= 6.0" in text
        assert "J. Doe <b>test</b> & co" in text
        assert "≥" not in text
    finally:
        fonts.font_set.cache_clear()
        styles.styles.cache_clear()


def test_an_overridden_disagreement_prints_words_not_json(
    case: Case, record: Record, decisions: list[Decision], tmp_path: Path
) -> None:
    """A disagreement's value is {"kind", "severity"}: the PDF reads "MISS (moderate) →
    rejected", never the JSON object."""
    last = decisions[-1]
    overridden = last.model_copy(
        update={
            "decision_id": "d6",
            "action": DecisionAction.OVERRIDE,
            "original_value": {"kind": "MISS", "severity": "moderate"},
            "new_value": "rejected",
            "reason": "the specialist's risk is covered elsewhere",
            "at": last.at + dt.timedelta(minutes=1),
        }
    )
    printed = _printed(case, record, [*decisions, overridden], tmp_path / "override.pdf")
    assert "MISS (moderate) → rejected" in printed
    assert '{"kind"' not in printed and "'kind'" not in printed
