"""Render the review record as a PDF (reportlab platypus), ready to be signed.

The PDF carries the review as JSON (`review-record.json`, an embedded file) and an empty
signature field placed in the box that the signature block leaves on the last page, so
`concord.report.sign.sign_pdf` only has to fill it.
"""

from __future__ import annotations

import datetime as dt
import io
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reportlab.pdfgen import canvas as rl_canvas
from reportlab.platypus import CondPageBreak, Flowable, SimpleDocTemplate

from concord.adjudication.config import ScoringConfig
from concord.adjudication.gates import GateRule
from concord.atomic_io import write_atomic
from concord.domain import Case, Decision, DecisionAction, Record, TargetKind
from concord.domain.decision_history import chain_order
from concord.errors import InputError
from concord.report import sections
from concord.report.fonts import clean, font_set
from concord.report.record_json import ATTACHMENT_NAME, review_record, to_bytes
from concord.report.styles import (
    MARGIN_BOTTOM,
    MARGIN_TOP,
    MARGIN_X,
    MUTED,
    PAGE_SIZE,
    RULE,
    markup,
    para,
    styles,
)
from concord.review import review_tally

SIGNATURE_FIELD = "ClinicianSignature"
MEANING_ACCEPTED = "Reviewed — judgements accepted"
MEANING_OVERRIDES = "Reviewed — with overrides"
MEANING_SECOND_REVIEW = "Second review — countersigns judgements decided by other clinicians"


def signature_meaning(decisions: list[Decision], signer: str | None = None) -> str:
    """The meaning of a signature: from the decisions in force (the last of each target in
    chain order), or, when `signer` recorded no clinician decision on the case at all (every
    judgement was decided by colleagues), a second review that countersigns theirs
    (`MEANING_SECOND_REVIEW`), never "Reviewed" as if the signer had decided them. A red
    flag's disposition is the clinician's own decision, not an override of the AI."""
    if signer is not None and not any(d.counts_for_signoff and d.user == signer for d in decisions):
        return MEANING_SECOND_REVIEW
    latest: dict[str, Decision] = {}
    for d in chain_order(d for d in decisions if d.counts_for_signoff):
        latest[d.target_id] = d
    if any(
        d.action == DecisionAction.OVERRIDE
        and d.target_kind != TargetKind.DISPOSITION
        and d.new_value is not None  # a withdrawal is no override
        for d in latest.values()
    ):
        return MEANING_OVERRIDES
    return MEANING_ACCEPTED


def render_review_pdf(
    case: Case,
    record: Record,
    decisions: list[Decision],
    *,
    signer_name: str,
    meaning: str,
    signed_at: dt.datetime,
    audit_head: tuple[int, str],
    out: Path,
    rules: Mapping[str, GateRule] | None = None,
    supersedes: sections.PriorSignature | None = None,
    root_fingerprint: str = "",
    scoring: ScoringConfig | None = None,
    site_note: str = "",
) -> dict[str, Any]:
    """Write the unsigned review PDF to `out` (atomically); return the attached JSON dict.

    `rules`: the record screen's gate rules (what addresses a gate) and `scoring` the
    scoring config, both of the case's own resource versions (`resources.case_resources`);
    the installed ones when not given. `site_note`: what the case may be used for (its site
    acceptance, or demonstration only). `supersedes`: the earlier signature an amended case
    replaces. `root_fingerprint`: the installation root's SHA-256, printed in the signature
    block.
    """
    if rules is None:
        from concord.resources import Resources

        rules = Resources.installed().screen.definitions
    tally = review_tally(case, decisions)
    amended = tuple(
        d
        for d in chain_order(decisions)
        if supersedes is not None
        and d.counts_for_signoff
        and (d.seq is None or d.seq > supersedes.audit_head_seq)
    )
    ctx = sections.ReviewContext(
        case=case,
        record=record,
        decisions=list(decisions),
        signer_name=signer_name,
        meaning=meaning,
        signed_at=signed_at,
        audit_head=audit_head,
        rules=rules,
        tally=tally,
        reviewed=tally.decided,
        not_reviewed=tally.not_reviewed,
        supersedes=supersedes,
        amended_after=amended,
        root_fingerprint=root_fingerprint,
        scoring=scoring,
        site_note=site_note,
    )
    _check_inputs(ctx)
    payload = review_record(ctx)
    box: dict[str, Any] = {}

    def remember_box(page: int, rect: tuple[float, ...]) -> None:
        box["page"], box["rect"] = page, rect

    story = _story(ctx, remember_box)
    pdf = _build(story, case, record, signer_name)
    if "page" not in box:  # pragma: no cover - the signature block is always drawn
        raise InputError("the signature block could not be placed", subject=out)
    final = _attach_and_add_field(pdf, to_bytes(payload), box["page"], box["rect"], signed_at)
    write_atomic(Path(out), final)
    return payload


def _check_inputs(ctx: sections.ReviewContext) -> None:
    case, record, audit_head = ctx.case, ctx.record, ctx.audit_head
    if record.record_id != case.record_id:
        raise InputError(
            f"record {record.record_id} is not the record of case {case.case_id} ({case.record_id})"
        )
    foreign = sorted({d.case_id for d in ctx.decisions if d.case_id != case.case_id})
    if foreign:
        raise InputError(f"decisions from other cases given for {case.case_id}: {foreign}")
    if not ctx.signer_name.strip():
        raise InputError("the signer's printed name must not be empty")
    if not ctx.meaning.strip():
        raise InputError("the meaning of the signature must not be empty")
    if ctx.signed_at.tzinfo is None or ctx.signed_at.utcoffset() is None:
        raise InputError("the signing time must be timezone-aware (UTC)")
    seq, head_hash = audit_head
    if not isinstance(seq, int) or seq < 0 or not str(head_hash).strip():
        raise InputError(f"invalid audit-chain head {audit_head!r}")


def _story(ctx: sections.ReviewContext, remember_box: Any) -> list[Flowable]:
    st = styles()
    story: list[Flowable] = []
    story += sections.identification(ctx)
    story += sections.red_flags(ctx)
    story += sections.summary(ctx)
    number = 3
    anaesthetist = sections.brief_or_none(ctx.case, "anaesthetist")
    story.append(CondPageBreak(200))
    story.append(markup(f"{number}. Anaesthetist brief", st.h1))
    story.append(
        para(
            "The anaesthetist brief is the reference that every specialist brief below is "
            "compared with.",
            st.intro,
        )
    )
    if anaesthetist is None:
        story.append(para("The anaesthetist brief is missing from the case.", st.body))
    else:
        story += sections.brief_section(ctx, anaesthetist, "Bullets (as written by the agent)")
        story.append(markup("Evidence lines and their verification", st.h3))
        story += sections.evidence_table(ctx, anaesthetist)
    for card in ctx.case.scorecards:
        number += 1
        story += sections.specialist_section(ctx, card, number)
    number += 1
    story += sections.decisions_section(ctx, number)
    story += sections.signature_block(ctx, remember_box)
    return story


def _build(story: list[Flowable], case: Case, record: Record, signer_name: str) -> bytes:
    buffer = io.BytesIO()
    header_left = clean(f"Pre-operative risk review · Patient: {record.name}")
    header_right = clean(f"Record {case.record_id}")
    footer_left = clean(f"Concord review record · Case {case.case_id}")

    class _Canvas(_NumberedCanvas):
        texts = (header_left, header_right, footer_left)

    doc = SimpleDocTemplate(
        buffer,
        pagesize=PAGE_SIZE,
        leftMargin=MARGIN_X,
        rightMargin=MARGIN_X,
        topMargin=MARGIN_TOP,
        bottomMargin=MARGIN_BOTTOM,
        title=clean(f"Concord review record — case {case.case_id}"),
        author=clean(signer_name),
        subject="Pre-operative risk review record",
        creator="Concord",
    )
    doc.build(story, canvasmaker=_Canvas)
    return buffer.getvalue()


class _NumberedCanvas(rl_canvas.Canvas):
    """Draws the running header and a 'page N of M' footer once the page count is known."""

    texts: tuple[str, str, str] = ("", "", "")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pages: list[dict[str, Any]] = []

    def showPage(self) -> None:
        self._pages.append(dict(self.__dict__))
        self._startPage()

    def save(self) -> None:
        total = len(self._pages)
        for state in self._pages:
            self.__dict__.update(state)
            self._decorate(total)
            super().showPage()
        super().save()

    def _decorate(self, total: int) -> None:
        header_left, header_right, footer_left = self.texts
        fonts = font_set()
        width, height = PAGE_SIZE
        self.saveState()
        self.setFillColor(MUTED)
        self.setStrokeColor(RULE)
        self.setLineWidth(0.5)
        top = height - MARGIN_TOP + 8
        self.setFont(fonts.bold, 8.5)
        right_width = self.stringWidth(header_right, fonts.regular, 8.5)
        available = width - 2 * MARGIN_X - right_width - 16
        self.drawString(MARGIN_X, top + 4, _fit(self, header_left, fonts.bold, 8.5, available))
        self.setFont(fonts.regular, 8.5)
        self.drawRightString(width - MARGIN_X, top + 4, header_right)
        self.line(MARGIN_X, top, width - MARGIN_X, top)
        bottom = MARGIN_BOTTOM - 10
        self.line(MARGIN_X, bottom + 10, width - MARGIN_X, bottom + 10)
        self.setFont(fonts.regular, 8)
        self.drawString(MARGIN_X, bottom, footer_left)
        self.drawRightString(width - MARGIN_X, bottom, f"page {self._pageNumber} of {total}")
        self.restoreState()


def _fit(canvas: rl_canvas.Canvas, text: str, font: str, size: float, width: float) -> str:
    """Shorten a running-header string with an ellipsis (the full text is in the body)."""
    if canvas.stringWidth(text, font, size) <= width:
        return text
    ellipsis = "…" if font_set().unicode else "..."
    while text and canvas.stringWidth(text + ellipsis, font, size) > width:
        text = text[:-1]
    return text + ellipsis


def _attach_and_add_field(
    pdf: bytes, json_bytes: bytes, page: int, rect: tuple[float, ...], when: dt.datetime
) -> bytes:
    from pyhanko.pdf_utils import embed, generic
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.sign import fields

    writer = IncrementalPdfFileWriter(io.BytesIO(pdf))
    data = embed.EmbeddedFileObject.from_file_data(
        writer,
        data=json_bytes,
        mime_type="application/json",
        params=embed.EmbeddedFileParams(creation_date=when, modification_date=when),
    )
    embed.embed_file(
        writer,
        embed.FileSpec(
            file_spec_string=ATTACHMENT_NAME,
            file_name=ATTACHMENT_NAME,
            embedded_data=data,
            description="Concord review record (JSON): case, decisions, signature, audit head",
            af_relationship=generic.pdf_name("/Data"),
        ),
    )
    x1, y1, x2, y2 = rect
    box = (math.floor(x1), math.floor(y1), math.ceil(x2), math.ceil(y2))
    fields.append_signature_field(
        writer, fields.SigFieldSpec(sig_field_name=SIGNATURE_FIELD, on_page=page - 1, box=box)
    )
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


__all__ = [
    "MEANING_ACCEPTED",
    "MEANING_OVERRIDES",
    "MEANING_SECOND_REVIEW",
    "SIGNATURE_FIELD",
    "render_review_pdf",
    "signature_meaning",
]
