"""The story (list of flowables) of the review PDF, one function per section.

Every piece of patient, model or user text goes through `esc` (directly or via `para`/`table`
string cells) before it reaches Paragraph markup.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from reportlab.lib import colors
from reportlab.platypus import (
    CondPageBreak,
    Flowable,
    KeepTogether,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)

from concord.adjudication.config import ScoringConfig, load_scoring_config, subscore_title
from concord.adjudication.gates import GateRule, addressing_items
from concord.adjudication.support import NOT_SUPPORTED
from concord.domain import (
    UNVERIFIED_MODEL_SHA256,
    Brief,
    BriefItem,
    BriefSection,
    BriefStatus,
    Case,
    CaseMode,
    Decision,
    DecisionAction,
    Disposition,
    GateHit,
    GateStatus,
    Record,
    Scorecard,
    SpanText,
    TargetKind,
    TargetRef,
    TargetRefError,
    VerifiedEvidence,
)
from concord.domain.brief import agent_title
from concord.report._format import (
    decision_history,
    human_utc,
    inputs_text,
    iso_utc,
    locate,
    short_hash,
)
from concord.report.fonts import esc
from concord.report.styles import (
    ALERT_BG,
    ALERT_BORDER,
    AMBER,
    FRAME_WIDTH,
    MODERATE_BG,
    MUTED,
    OK_BG,
    OK_TEXT,
    SEVERITY_COLOUR,
    STATUS_STYLE,
    coloured,
    grade_background,
    markup,
    para,
    styles,
    table,
)
from concord.report.values import number, value_text
from concord.review import ReviewTally

SIGNATURE_BOX_HEIGHT = 66.0
SIGNATURE_BOX_WIDTH = 300.0


@dataclass(frozen=True)
class PriorSignature:
    """The signature a new record supersedes."""

    signature_id: int
    signer: str
    signed_at: dt.datetime
    pdf_sha256: str
    audit_head_seq: int


@dataclass
class ReviewContext:
    case: Case
    record: Record
    decisions: list[Decision]
    signer_name: str
    meaning: str
    signed_at: dt.datetime
    audit_head: tuple[int, str]
    rules: Mapping[str, GateRule] = field(default_factory=dict)
    """The record screen's gate rules: what counts as addressing a gate."""
    reviewed: int = 0
    """Judgements a clinician decided."""
    not_reviewed: int = 0
    """Judgements no clinician decided."""
    tally: ReviewTally | None = None
    """The judgements reviewed one by one, bulk-accepted and not reviewed (as the queue
    counts them)."""
    supersedes: PriorSignature | None = None
    amended_after: tuple[Decision, ...] = ()
    """Clinician decisions made after the superseded signature."""
    root_fingerprint: str = ""
    """SHA-256 of the installation root certificate the signer's key is certified by."""
    scoring: ScoringConfig | None = None
    """The scoring config of the case's own version (the installed one when None)."""
    site_note: str = ""
    """What the case may be used for: the site acceptance, or demonstration only."""

    @property
    def scoring_config(self) -> ScoringConfig:
        return self.scoring if self.scoring is not None else load_scoring_config()

    @property
    def cap_text(self) -> str:
        """The overall cap on a missed major gate, as the case's scoring config sets it."""
        return f"{self.scoring_config.overall_cap_on_major_miss:g}"

    def __post_init__(self) -> None:
        self.history = decision_history(self.decisions)
        self.labels = sum(1 for d in self.decisions if not d.counts_for_signoff)

    def target_label(self, target_id: str) -> str:
        """A clinician-readable name for a decision target id (the id itself is kept too)."""
        try:
            ref = TargetRef.parse(target_id)
        except TargetRefError:
            return target_id
        if ref.kind is TargetKind.GATE:
            gate = next((g for g in self.case.gates if g.gate_id == ref.subject), None)
            return f"Gate: {gate.title if gate and gate.title else ref.subject}"
        if ref.kind is TargetKind.DISPOSITION:
            return f"Red flag: {self.gate_title(ref.subject)} — disposition"
        card = next((c for c in self.case.scorecards if c.specialist == ref.specialist), None)
        if card is None:
            return target_id.replace("/", " / ")
        who = agent_title(ref.subject)
        if ref.kind is TargetKind.OVERALL:
            return f"{who}: overall score"
        if ref.kind is TargetKind.SUBSCORE and any(s.name == ref.detail for s in card.subscores):
            return f"{who}: {subscore_title(ref.detail)}"
        if ref.kind is TargetKind.MATCH:
            return f"{who}: item match {ref.detail}"
        if ref.kind is TargetKind.DISAGREEMENT:
            found = next((d for d in card.disagreements if d.disagreement_id == ref.detail), None)
            if found is not None:
                kind = found.kind.label
                return f"{who}: disagreement {ref.detail} ({kind})"
        return f"{who}: {ref.kind.value.replace('_', ' ')} {ref.detail}"

    def gate_title(self, gate_id: str) -> str:
        gate = next((g for g in self.case.gates if g.gate_id == gate_id), None)
        return gate.title if gate is not None and gate.title else gate_id

    def decision_mark(self, target_id: str) -> str:
        """Markup for the decision in force on a target, or '' if none."""
        chain = self.history.get(target_id)
        if not chain:
            return ""
        last = chain[-1]
        if last.target_kind == TargetKind.DISPOSITION:
            return coloured(
                esc(disposition_text(last.new_value)), colors.HexColor("#0D47A1"), bold=True
            )
        if last.action == DecisionAction.ACCEPT:
            return coloured("accepted", colors.HexColor("#1B5E20"), bold=True)
        return coloured(
            f"overridden: {esc(value_text(last.original_value))} → "
            f"{esc(value_text(last.new_value))}",
            colors.HexColor("#8A2BE2"),
            bold=True,
        )


def disposition_text(value: object) -> str:
    try:
        return Disposition(str(value)).label
    except ValueError:
        return value_text(value)


def _sev(severity: str) -> str:
    colour = SEVERITY_COLOUR.get(severity, MUTED)
    return coloured(esc(severity.upper()), colour, bold=True)


def _quote(record: Record, span: SpanText) -> str:
    return (
        f"“{esc(span.text)}”<br/>"
        f'<font size="7" color="{MUTED.hexval()}">{esc(locate(record, span))}</font>'
    )


# ------------------------------------------------------------------ header / identifiers


def identification(ctx: ReviewContext) -> list[Flowable]:
    st = styles()
    case, record = ctx.case, ctx.record
    docs = "; ".join(
        f"{d.title or d.source_id} ({d.source_id}, {d.kind}, {len(d.text)} chars)"
        for d in record.documents
    )
    operation = case.operation or record.operation or "not stated"
    if case.operation_source:
        operation += f" (source: {case.operation_source})"
    rows: list[list[str | Flowable]] = [
        ["Patient / record", record.name],
        ["Record id", f"{case.record_id} (content SHA-256 {short_hash(record.content_hash)})"],
        ["Source documents", docs],
        ["Planned operation", operation],
        ["Case id", case.case_id],
        ["Case created", human_utc(case.created_at)],
        ["Model", _model_line(case)],
        ["Scoring configuration", case.config_version or "—"],
        ["Resource versions", case.resources.short() if case.resources else "not recorded"],
        ["Site acceptance", ctx.site_note or case.mode_label],
    ]
    rows.append(["Review", review_statement(ctx)])
    ident = table(rows, [110, FRAME_WIDTH - 110], header=False, zebra=False)
    if case.human_review:
        status = _banner(
            "<b>Human review required.</b> " + esc("; ".join(case.review_reasons)),
            ALERT_BG,
            ALERT_BORDER,
        )
    else:
        status = _banner("No automatic flag for human review.", OK_BG, colors.HexColor("#2E7D32"))
    out_extra: list[Flowable] = []
    if case.mode is CaseMode.DEMONSTRATION:
        out_extra += [Spacer(1, 6), _banner(f"<b>{esc(ctx.site_note)}</b>", ALERT_BG, ALERT_BORDER)]
    if ctx.supersedes is not None:
        out_extra = [Spacer(1, 6), _banner(supersession_markup(ctx), ALERT_BG, ALERT_BORDER)]
    return [
        markup("Pre-operative risk review record", st.title),
        para(
            "Produced by Concord: local LLM agents wrote the briefs; code checked each quote "
            "against the patient record, checked that the quotes carry the claims citing them, "
            "and computed the scores; the clinician named in the signature block recorded a "
            "disposition for every red flag and signed. How many judgements they reviewed one "
            "by one, accepted in bulk or did not review is stated below.",
            st.note,
        ),
        Spacer(1, 6),
        ident,
        Spacer(1, 6),
        status,
        *out_extra,
    ]


def review_statement(ctx: ReviewContext) -> str:
    """How much of the case a clinician reviewed, in one sentence (also in the JSON)."""
    if ctx.tally is not None:
        text = ctx.tally.sentence()
        if ctx.tally.required:
            text += (
                f" (the {ctx.tally.required} required judgement"
                f"{'s' if ctx.tally.required != 1 else ''} — a disposition for each red flag "
                "and each major finding about the patient — "
                + (
                    "all decided by a clinician)"
                    if not ctx.tally.required_left
                    else f"{ctx.tally.required_left} not decided)"
                )
            )
    else:
        total = ctx.reviewed + ctx.not_reviewed
        text = (
            f"{ctx.reviewed} of {total} judgements decided by a clinician; "
            f"{ctx.not_reviewed} not reviewed"
        )
    if ctx.labels:
        text += f"; {ctx.labels} annotator label(s) recorded, not counted towards this sign-off"
    return text + "."


def supersession_markup(ctx: ReviewContext) -> str:
    prior = ctx.supersedes
    assert prior is not None
    changed = ", ".join(sorted({d.target_id for d in ctx.amended_after})) or "none"
    return "<b>AMENDED RECORD — supersedes the earlier signed record.</b> " + esc(
        f"This record replaces signature #{prior.signature_id} by {prior.signer} at "
        f"{iso_utc(prior.signed_at)} UTC (PDF SHA-256 {prior.pdf_sha256}, audit head seq "
        f"{prior.audit_head_seq}). Judgements decided again since then: {changed}. "
        "The earlier record must no longer be relied on."
    )


def _banner(text_markup: str, background: colors.Color, border: colors.Color) -> Table:
    cell = markup(text_markup, styles().body)
    banner = Table([[cell]], colWidths=[FRAME_WIDTH], hAlign="LEFT")
    banner.setStyle(
        TableStyle(
            [
                ("BACKGROUND", (0, 0), (-1, -1), background),
                ("BOX", (0, 0), (-1, -1), 1, border),
                ("LEFTPADDING", (0, 0), (-1, -1), 6),
                ("TOPPADDING", (0, 0), (-1, -1), 4),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 5),
            ]
        )
    )
    return banner


# ------------------------------------------------------------------ red flags


def red_flags(ctx: ReviewContext) -> list[Flowable]:
    st = styles()
    case, record = ctx.case, ctx.record
    out: list[Flowable] = [markup("1. Red flags from the record screen", st.h1)]
    out.append(
        para(
            "Deterministic rules run on the record itself (no LLM). A triggered gate must be "
            "addressed before surgery; a mutual omission is a gate that the record triggers "
            "and that no brief of the whole panel addresses (in a specialist's comparison, "
            "a gate that neither brief of that pair addresses is 'omitted by both of this "
            "pair').",
            st.intro,
        )
    )
    anaesthetist = brief_or_none(case, "anaesthetist")
    triggered = [g for g in case.gates if g.status == GateStatus.TRIGGERED]
    negated = [g for g in case.gates if g.status == GateStatus.NEGATED]
    mutual = set(case.mutual_omissions)

    def missed_order(gate_id: str) -> int:
        gate = next((g for g in triggered if g.gate_id == gate_id), None)
        return gate.severity.rank if gate is not None else 0

    for gate_id in sorted(case.mutual_omissions, key=missed_order):
        gate = next((g for g in triggered if g.gate_id == gate_id), None)
        title = gate.title if gate and gate.title else gate_id
        is_major = gate is None or gate.severity.value == "major"
        out += [
            Spacer(1, 4),
            _banner(
                f"<b>MUTUAL OMISSION — {esc(title)}</b> ({esc(gate_id)}; "
                f"{'major' if is_major else 'moderate'} red flag): the record triggers this "
                "gate and no brief addresses it.",
                ALERT_BG if is_major else MODERATE_BG,
                ALERT_BORDER if is_major else AMBER,
            ),
        ]

    major = sum(1 for g in triggered if g.severity.value == "major")
    heading = f"Red flags — triggered gates ({len(triggered)}"
    heading += f": {major} major, {len(triggered) - major} moderate)" if triggered else ")"
    out.append(markup(heading, st.h2))
    if not triggered:
        out.append(para("No gate was triggered by the record.", st.body))
    else:
        ordered = sorted(
            triggered, key=lambda g: (g.gate_id not in mutual, g.severity.rank, g.gate_id)
        )
        rows: list[list[str | Flowable]] = [
            [
                "Red flag",
                "Severity",
                "Why it fired",
                "Evidence in the record",
                "Anaesthetist brief",
                "Clinician's disposition",
            ]
        ]
        extra: list[tuple[object, ...]] = []
        for r, gate in enumerate(ordered, start=1):
            addressed = _addressed_by(anaesthetist, gate, ctx.rules)
            if gate.gate_id in mutual:
                addressed_cell = markup(
                    coloured("MISSED by every brief (mutual omission)", ALERT_BORDER, bold=True),
                    st.cell,
                )
                extra.append(("BACKGROUND", (0, r), (-2, r), ALERT_BG))
            elif addressed:
                addressed_cell = para(
                    "addressed by " + "; ".join(_bullet_words(anaesthetist, i) for i in addressed),
                    st.cell,
                )
            else:
                addressed_cell = markup(coloured("NOT addressed", ALERT_BORDER, bold=True), st.cell)
            if gate.severity.value == "moderate":
                extra.append(("BACKGROUND", (1, r), (1, r), MODERATE_BG))
            rows.append(
                [
                    markup(
                        f"<b>{esc(gate.title or gate.gate_id)}</b><br/>"
                        f'<font size="7">{esc(gate.gate_id)}'
                        f"{' · owner ' + esc(gate.specialty) if gate.specialty else ''}</font>",
                        st.cell,
                    ),
                    markup(_sev(gate.severity), st.cell),
                    para(gate.detail or "—", st.cell),
                    markup("<br/>".join(_quote(record, s) for s in gate.evidence) or "—", st.cell),
                    addressed_cell,
                    markup(_disposition_cell(ctx, gate.gate_id), st.cell),
                ]
            )
        out.append(table(rows, [88, 60, 76, 120, 72, 88], extra=extra, zebra=False))

    out.append(markup(f"Negated or historical mentions — not fired ({len(negated)})", st.h2))
    if not negated:
        out.append(para("None.", st.body))
    else:
        rows = [["Gate", "Mention in the record", "Note"]]
        for gate in negated:
            rows.append(
                [
                    markup(
                        f"{esc(gate.title or gate.gate_id)}<br/>"
                        f'<font size="7">{esc(gate.gate_id)}</font>',
                        st.cell,
                    ),
                    markup("<br/>".join(_quote(record, s) for s in gate.evidence) or "—", st.cell),
                    para(gate.detail or "negated mention", st.cell),
                ]
            )
        out.append(table(rows, [120, 240, 144]))
    return out


def _bullet_words(brief: Brief | None, item_id: str, limit: int = 70) -> str:
    """A bullet as a reader finds it: its section, rank and words (risk 1: “…”)."""
    item = next((i for i in brief.items if i.item_id == item_id), None) if brief else None
    if item is None:
        return item_id
    text = item.text if len(item.text) <= limit else item.text[: limit - 1].rstrip() + "…"
    return f"{item.section.noun} {item.rank}: “{text}”"


def _disposition_cell(ctx: ReviewContext, gate_id: str) -> str:
    """The clinician's disposition of a red flag with its reason and who gave it."""
    chain = ctx.history.get(TargetRef.disposition(gate_id).format())
    if not chain:
        return coloured("no disposition recorded", ALERT_BORDER, bold=True)
    last = chain[-1]
    return (
        coloured(esc(disposition_text(last.new_value)), colors.HexColor("#0D47A1"), bold=True)
        + f"<br/>{esc(last.reason)}"
        + f'<br/><font size="7" color="{MUTED.hexval()}">{esc(last.user)}, '
        f"{esc(human_utc(last.at))}</font>"
    )


def brief_or_none(case: Case, agent: str) -> Brief | None:
    try:
        return case.brief(agent)
    except KeyError:
        return None


def _addressed_by(brief: Brief | None, gate: GateHit, rules: Mapping[str, GateRule]) -> list[str]:
    """The bullets that address the gate, by the scorecard's own rule."""
    if brief is None:
        return []
    return [i.item_id for i in addressing_items(brief, gate, rules)]


# ------------------------------------------------------------------ summary


def summary(ctx: ReviewContext) -> list[Flowable]:
    st = styles()
    scoring = ctx.scoring_config
    out: list[Flowable] = [markup("2. Adjudication summary", st.h1)]
    out.append(
        para(
            "Each specialist brief is compared with the anaesthetist brief. Overall = 100 × "
            "Σ weight × sub-score; a missed major gate caps the overall at "
            f"{scoring.overall_cap_on_major_miss:g} and requires human review. "
            f"Grades: {scoring.grades_legend()}.",
            st.intro,
        )
    )
    if not ctx.case.scorecards:
        out.append(para("No scorecards: the adjudication did not run.", st.body))
        return out
    rows: list[list[str | Flowable]] = [
        [
            "Specialist",
            "Overall (0–100)",
            "Grade",
            f"Capped at {ctx.cap_text}",
            "Human review",
            "Disagreements major / moderate / minor",
            "Judge runs (spread)",
            "Clinician",
        ]
    ]
    extra: list[tuple[object, ...]] = []
    for r, card in enumerate(ctx.case.scorecards, start=1):
        counts = {k: 0 for k in ("major", "moderate", "minor")}
        for d in card.disagreements:
            counts[d.severity] = counts.get(d.severity, 0) + 1
        extra.append(("BACKGROUND", (2, r), (2, r), grade_background(card.grade)))
        review = coloured("YES", ALERT_BORDER, bold=True) if card.human_review else "no"
        rows.append(
            [
                para(agent_title(card.specialist), st.cell_bold),
                para(number(card.overall, 1), st.cell_bold),
                para(card.grade, st.cell_bold),
                para("yes" if card.capped else "no", st.cell),
                markup(review, st.cell),
                para(f"{counts['major']} / {counts['moderate']} / {counts['minor']}", st.cell),
                para(f"{card.judge_runs} ({number(card.judge_spread, 1)} points)", st.cell),
                markup(ctx.decision_mark(f"{card.specialist}/overall") or "—", st.cell),
            ]
        )
    out.append(table(rows, [78, 52, 52, 44, 44, 82, 56, 96], extra=extra, zebra=False))
    return out


# ------------------------------------------------------------------ briefs and evidence


def brief_section(ctx: ReviewContext, brief: Brief, heading: str) -> list[Flowable]:
    st = styles()
    out: list[Flowable] = [markup(esc(heading), st.h3)]
    if brief.status == BriefStatus.FAILED:
        out.append(
            markup(
                coloured("Brief FAILED: ", ALERT_BORDER, bold=True)
                + esc(brief.failure_reason or "no reason recorded"),
                st.body,
            )
        )
        return out
    if brief.operation:
        out.append(para(f"Proposed operation: {brief.operation}", st.body))
    if brief.consult:
        out.append(para("Specialists to consult (ranked): " + ", ".join(brief.consult), st.body))
    evidence = brief.evidence_by_id()
    unsupported = {i.item_id for i in brief.unsupported_items()}
    for section in BriefSection:
        items = brief.section(section)
        if not items:
            continue
        out.append(markup(f"<i>{esc(section.heading)}</i>", st.subhead))
        for item in items:
            addresses = [
                ctx.gate_title(g.gate_id)
                for g in ctx.case.gates
                if g.status == GateStatus.TRIGGERED
                and any(i.item_id == item.item_id for i in addressing_items(brief, g, ctx.rules))
            ]
            out.append(_bullet(item, item.item_id in unsupported, addresses, evidence))
    if not brief.items:
        out.append(para("The brief has no items.", st.note))
    if brief.model_sha256 or brief.prompt_sha256:
        model = (
            "Model NOT VERIFIED (a remote server's answer)"
            if brief.model_sha256 == UNVERIFIED_MODEL_SHA256
            else f"Model SHA-256 {short_hash(brief.model_sha256)}"
        )
        out.append(
            para(
                f"{model} · prompt SHA-256 "
                f"{short_hash(brief.prompt_sha256)} · attempts {brief.attempts}",
                st.small,
            )
        )
    return out


def _bullet(
    item: BriefItem,
    unsupported: bool,
    addresses: list[str],
    evidence: dict[str, VerifiedEvidence],
) -> Paragraph:
    st = styles()
    refs = []
    verified = False
    for cite in item.cites:
        ev = evidence.get(cite)
        if ev is None:
            refs.append(f"{esc(cite)} " + coloured("(no such evidence)", ALERT_BORDER))
        elif ev.alignment.verified:
            verified = True
            refs.append(esc(cite))
        else:
            refs.append(f"{esc(cite)} " + coloured("(not the record's text)", ALERT_BORDER))
    tail = ""
    if refs:
        tail += f' <font size="8" color="{MUTED.hexval()}">[evidence: </font>'
        tail += f'<font size="8">{", ".join(refs)}</font>'
        tail += f'<font size="8" color="{MUTED.hexval()}">]</font>'
    if item.gate_ids:
        gates = esc(", ".join(item.gate_ids))
        tail += f' <font size="8" color="{MUTED.hexval()}">[tagged by the agent: {gates}]</font>'
    if addresses:
        tail += " " + coloured("addresses: " + esc(", ".join(addresses)), OK_TEXT, bold=True)
    if unsupported and verified and item.supported is not None:
        tail += " " + coloured(
            f"{esc(NOT_SUPPORTED)} ({esc(item.support_reason)})", AMBER, bold=True
        )
    elif unsupported:
        tail += " " + coloured("UNSUPPORTED — cites no verified evidence", ALERT_BORDER, bold=True)
    return Paragraph(esc(item.text) + tail, st.bullet, bulletText=f"{item.rank}.")


def evidence_table(ctx: ReviewContext, brief: Brief) -> list[Flowable]:
    st = styles()
    if not brief.evidence:
        return [
            para(f"No evidence lines in the {agent_title(brief.agent).lower()} brief.", st.note)
        ]
    rows: list[list[str | Flowable]] = [
        ["Id", "Quote check", "Where (locator)", "Extract as quoted by the agent", "Tag · comment"]
    ]
    extra: list[tuple[object, ...]] = []
    for r, ev in enumerate(brief.evidence, start=1):
        a = ev.alignment
        status = a.status.value if a.verified else "FAILED"
        colour, background = STATUS_STYLE[status]
        extra.append(("BACKGROUND", (1, r), (1, r), background))
        check = coloured(esc(a.status.meaning), colour, bold=True)
        if a.status.value == "FUZZY":
            check += f"<br/>similarity {esc(number(a.score, 1))}%"
        if a.flags:
            check += "<br/>" + coloured(
                esc(", ".join(f.replace("_", " ") for f in a.flags)), colour
            )
        if a.status.value != "FAILED" and not a.verified:
            check += "<br/>" + coloured("not counted as verified", colour, bold=True)
        where = esc(f"{ev.line.source_id} · {ev.line.locator}")
        if ev.line_id:
            where += f"<br/>cites {esc(ev.line_id)}"
        extract = f"“{esc(ev.line.extract_text)}”"
        if a.source_id is not None and a.start is not None and a.end is not None:
            try:
                found = ctx.record.span_text(a.source_id, a.start, a.end)
            except KeyError:
                found = None
            if found is not None:
                where += f'<br/><font size="7">{esc(locate(ctx.record, found))}</font>'
                if found.text != ev.line.extract_text:
                    extract += (
                        f'<br/><font size="7.5" color="{MUTED.hexval()}">record says: '
                        f"“{esc(found.text)}”</font>"
                    )
        elif a.status.value == "FAILED":
            extract += "<br/>" + coloured("not found in the record", colour)
        for change in a.diff:  # what a failed extract changed: “twice” → “once”
            was = f"“{esc(change.record)}”" if change.record else "(nothing)"
            now = f"“{esc(change.quote)}”" if change.quote else "(left out)"
            extract += "<br/>" + coloured(f"record {was} → quote {now}", colour, bold=True)
        tag = esc(ev.line.tag) + (f"<br/>{esc(ev.line.comment)}" if ev.line.comment else "")
        rows.append(
            [
                para(ev.evidence_id, st.cell_bold),
                markup(check, st.cell),
                markup(where, st.cell),
                markup(extract, st.cell),
                markup(tag, st.cell),
            ]
        )
    return [table(rows, [26, 70, 118, 180, 110], extra=extra)]


# ------------------------------------------------------------------ per specialist


def specialist_section(ctx: ReviewContext, card: Scorecard, number_: int) -> list[Flowable]:
    st = styles()
    name = agent_title(card.specialist)
    out: list[Flowable] = [
        CondPageBreak(180),
        markup(f"{number_}. {esc(name)}: specialist brief vs anaesthetist brief", st.h1),
    ]
    out += _scorecard(ctx, card)
    out += _disagreements(ctx, card)
    out += _matches(card)
    brief = brief_or_none(ctx.case, card.specialist)
    out.append(markup(f"{esc(name)} brief", st.h2))
    if brief is None:
        out.append(para("The specialist brief is missing from the case.", st.body))
    else:
        out += brief_section(ctx, brief, "Bullets (as written by the agent)")
        out.append(markup("Evidence lines and their verification", st.h3))
        out += evidence_table(ctx, brief)
    return out


def _scorecard(ctx: ReviewContext, card: Scorecard) -> list[Flowable]:
    st = styles()
    out: list[Flowable] = [markup("Scorecard", st.h2)]
    rows: list[list[str | Flowable]] = [
        [
            "Dimension",
            "Weight",
            "Raw",
            "Cap",
            "Score",
            "Points",
            "How it was computed (inputs → formula → result)",
            "Clinician",
        ]
    ]
    for sub in card.subscores:
        extra_text = ""
        if sub.extra:
            extra_text = "<br/>" + esc(
                "also: " + "; ".join(f"{k} = {value_text(v)}" for k, v in sub.extra.items())
            )
        trace = (
            f"<b>inputs:</b> {esc(inputs_text(sub.trace.inputs))}<br/>"
            f"<b>formula:</b> {esc(sub.trace.formula)}<br/>"
            f"<b>result:</b> {esc(number(sub.trace.result, 3))}{extra_text}"
        )
        rows.append(
            [
                para(subscore_title(sub.name), st.cell_bold),
                para(f"{sub.weight:.2f}", st.cell),
                para(f"{sub.raw_value:.2f}", st.cell),
                para("—" if sub.cap is None else f"≤ {sub.cap:.2f}", st.cell),
                para(f"{sub.value:.2f}", st.cell_bold),
                para(number(100 * sub.weight * sub.value, 1), st.cell),
                markup(trace, st.cell),
                markup(ctx.decision_mark(f"{card.specialist}/subscore/{sub.name}") or "—", st.cell),
            ]
        )
    overall_trace = (
        f"<b>inputs:</b> {esc(inputs_text(card.overall_trace.inputs))}<br/>"
        f"<b>formula:</b> {esc(card.overall_trace.formula)}<br/>"
        f"<b>result:</b> {esc(number(card.overall_trace.result, 1))}"
        + (f" — capped at {ctx.cap_text} (missed major gate)" if card.capped else "")
    )
    grade_row = len(rows)
    rows.append(
        [
            markup(f"<b>Overall</b><br/>grade: <b>{esc(card.grade)}</b>", st.cell),
            para("1.00", st.cell),
            "",
            para(f"≤ {ctx.cap_text}" if card.capped else "—", st.cell),
            "",
            para(number(card.overall, 1), st.cell_bold),
            markup(overall_trace, st.cell),
            markup(ctx.decision_mark(f"{card.specialist}/overall") or "—", st.cell),
        ]
    )
    extra = [
        ("BACKGROUND", (0, grade_row), (-1, grade_row), grade_background(card.grade)),
        ("LINEABOVE", (0, grade_row), (-1, grade_row), 0.75, MUTED),
    ]
    out.append(
        para(
            "Raw and score are 0–1 (score = raw after caps); points = weight × score × 100, "
            "and the points add up to the overall (0–100).",
            st.intro,
        )
    )
    out.append(table(rows, [74, 40, 32, 36, 36, 38, 182, 66], extra=extra))
    notes = [f"scoring configuration {card.config_version}"]
    if card.review_reasons:
        notes.append("human review because: " + "; ".join(card.review_reasons))
    out.append(para(" · ".join(notes), st.small))
    return out


def _disagreements(ctx: ReviewContext, card: Scorecard) -> list[Flowable]:
    st = styles()
    out: list[Flowable] = [markup(f"Disagreements ({len(card.disagreements)})", st.h2)]
    if not card.disagreements:
        out.append(para("None found.", st.body))
        return out
    rows: list[list[str | Flowable]] = [
        [
            "Id",
            "Kind",
            "Severity",
            "Description",
            "Brief items · gate",
            "Record evidence",
            "Clinician",
        ]
    ]
    for d in card.disagreements:
        refs = (
            "<br/>".join(
                ([esc(", ".join(d.items))] if d.items else [])
                + ([f"gate: {esc(ctx.gate_title(d.gate_id))}"] if d.gate_id else [])
            )
            or "—"
        )
        rows.append(
            [
                para(d.disagreement_id, st.cell_bold),
                para(d.kind.label, st.cell_bold),
                markup(_sev(d.severity), st.cell),
                para(d.description, st.cell),
                markup(refs, st.cell),
                markup("<br/>".join(_quote(ctx.record, s) for s in d.spans) or "—", st.cell),
                markup(
                    ctx.decision_mark(f"{card.specialist}/disagreement/{d.disagreement_id}") or "—",
                    st.cell,
                ),
            ]
        )
    out.append(table(rows, [22, 80, 62, 116, 70, 100, 54]))
    return out


def _matches(card: Scorecard) -> list[Flowable]:
    st = styles()
    if not card.matches:
        return [para("No items were matched between the two briefs.", st.note)]
    rows: list[list[str | Flowable]] = [
        [
            "Specialist item",
            "Anaesthetist item",
            "Matched by",
            "Similarity (0–100)",
            "Shared concepts",
        ]
    ]
    for m in card.matches:
        method = m.method.value
        if method == "llm":
            method_cell: str | Flowable = markup(
                coloured("LLM proposal (not code-verified)", colors.HexColor("#6D4C00"), bold=True),
                st.cell,
            )
        else:
            method_cell = method
        rows.append(
            [
                m.specialist_item,
                m.anaesthetist_item,
                method_cell,
                number(m.score, 1),
                ", ".join(m.concepts) or "—",
            ]
        )
    return [markup("Item matches", st.h3), table(rows, [90, 90, 130, 64, 130])]


# ------------------------------------------------------------------ decisions and signature


def decisions_section(ctx: ReviewContext, number_: int) -> list[Flowable]:
    st = styles()
    out: list[Flowable] = [
        CondPageBreak(120),
        markup(f"{number_}. Clinician decisions", st.h1),
        para(
            "Every accept/override is kept; later decisions on the same judgement supersede "
            "earlier ones but never replace them. Times are UTC.",
            st.intro,
        ),
    ]
    if not ctx.history:
        out.append(para("No decisions were recorded before signing.", st.body))
        return out
    rows: list[list[str | Flowable]] = [
        ["Judgement", "When (UTC)", "Who", "Decision", "Original → new", "Reason", "Status"]
    ]
    extra: list[tuple[object, ...]] = []
    r = 0
    for target_id, chain in ctx.history.items():
        for index, d in enumerate(chain):
            r += 1
            current = index == len(chain) - 1
            if d.target_kind == TargetKind.DISPOSITION:
                action = coloured("DISPOSITION", colors.HexColor("#0D47A1"), bold=True)
            elif d.action == DecisionAction.ACCEPT:
                action = coloured("ACCEPT", colors.HexColor("#1B5E20"), bold=True)
            else:
                action = coloured("OVERRIDE", colors.HexColor("#8A2BE2"), bold=True)
            change = (
                disposition_text(d.new_value)
                if d.target_kind == TargetKind.DISPOSITION and d.new_value is not None
                else f"{value_text(d.original_value)} → {value_text(d.new_value)}"
            )
            blind = "<br/>(blind)" if d.blind else ""
            rows.append(
                [
                    markup(
                        f"<b>{esc(ctx.target_label(target_id))}</b><br/>"
                        f"<font size='7'>{esc(target_id)} · {esc(d.target_kind)}</font>"
                        if index == 0
                        else f'<font color="{MUTED.hexval()}">↳ same judgement</font>',
                        st.cell,
                    ),
                    para(human_utc(d.at).removesuffix(" UTC"), st.cell),
                    para(_who(d), st.cell),
                    markup(action + blind, st.cell),
                    para(change, st.cell),
                    para(d.reason or "—", st.cell),
                    para("in force" if current else "superseded", st.cell),
                ]
            )
            if index == 0 and r > 1:
                extra.append(("LINEABOVE", (0, r), (-1, r), 0.75, MUTED))
    out.append(table(rows, [100, 58, 60, 58, 72, 98, 58], extra=extra, zebra=False))
    out.append(para(f"{len(ctx.decisions)} decisions recorded. " + review_statement(ctx), st.small))
    return out


def _who(decision: Decision) -> str:
    if decision.role is None:
        return decision.user
    if decision.counts_for_signoff:
        return f"{decision.user} ({decision.role.value})"
    return f"{decision.user} ({decision.role.value}; label, not counted)"


class SignatureBox(Flowable):
    """Empty box where the visible signature stamp goes; remembers where it was drawn."""

    def __init__(
        self, width: float, height: float, on_draw: Callable[[int, tuple[float, ...]], None]
    ) -> None:
        super().__init__()
        self.width = width
        self.height = height
        self._on_draw = on_draw

    def wrap(self, available_width: float, available_height: float) -> tuple[float, float]:
        return self.width, self.height

    def draw(self) -> None:
        canvas = self.canv
        x0, y0 = canvas.absolutePosition(0, 0)
        self._on_draw(canvas.getPageNumber(), (x0, y0, x0 + self.width, y0 + self.height))
        canvas.saveState()
        canvas.setStrokeColor(colors.HexColor("#9E9E9E"))
        canvas.setDash(2, 2)
        canvas.rect(0, 0, self.width, self.height)
        canvas.restoreState()


def _model_line(case: Case) -> str:
    """The model that wrote the briefs: its registered name and hash, or for a batch case
    what the servers reported, printed as not verified."""
    if case.batch is not None and not case.batch.model_verified:
        return f"{case.model_name} — {case.batch.provenance_line()}"
    if case.model_sha256 == UNVERIFIED_MODEL_SHA256:
        return f"{case.model_name}  ·  SHA-256 NOT VERIFIED"
    return f"{case.model_name}  ·  SHA-256 {short_hash(case.model_sha256)}"


def _grouped(hex_digits: str) -> str:
    """A fingerprint in colon-separated byte pairs, as openssl prints it, 16 to a line."""
    pairs = [hex_digits[i : i + 2].upper() for i in range(0, len(hex_digits), 2)]
    return "<br/>".join(":".join(pairs[i : i + 16]) for i in range(0, len(pairs), 16))


def signature_block(
    ctx: ReviewContext, on_box: Callable[[int, tuple[float, ...]], None]
) -> list[Flowable]:
    st = styles()
    seq, head_hash = ctx.audit_head
    rows: list[list[str | Flowable]] = [
        ["Printed name", markup(f"<b>{esc(ctx.signer_name)}</b>", st.cell)],
        ["Date and time of signing", f"{iso_utc(ctx.signed_at)} (UTC)"],
        ["Meaning of the signature", markup(f"<b>{esc(ctx.meaning)}</b>", st.cell)],
        [
            "Audit-chain head at signing",
            markup(
                f"seq {esc(seq)}<br/><font name='{st.mono.fontName}' size='7.5'>{esc(head_hash)}"
                "</font>",
                st.cell,
            ),
        ],
        ["Case / record", f"{ctx.case.case_id} / {ctx.case.record_id}"],
    ]
    deciders = sorted({d.user for d in ctx.decisions if d.counts_for_signoff})
    if deciders and ctx.signer_name not in deciders:
        rows.append(
            [
                "Second review",
                f"{ctx.signer_name} decided none of these judgements; they were decided by "
                f"{', '.join(deciders)}. This signature countersigns their decisions.",
            ]
        )
    if ctx.root_fingerprint:
        rows.append(
            [
                "Installation root (SHA-256)",
                markup(
                    f"<font name='{st.mono.fontName}' size='7.5'>"
                    f"{_grouped(esc(ctx.root_fingerprint))}</font>",
                    st.cell,
                ),
            ]
        )
    block: list[Flowable] = [
        markup("Signature", st.h1),
        table(rows, [140, FRAME_WIDTH - 140], header=False, zebra=False),
        Spacer(1, 4),
        para(
            "The electronic signature below is a PAdES signature made with the signer's own "
            "key, certified by this installation's root. It covers this whole document, "
            "including the attached review-record.json; any later change invalidates it. "
            "Verify with: concord verify-pdf FILE --root-fingerprint HEX, where HEX is the "
            "root fingerprint you hold from the installation (its anchor printout or its "
            "administrator), not the one printed above: a forger prints their own.",
            st.note,
        ),
        Spacer(1, 4),
        markup("<b>Electronic signature</b>", st.cell),
        Spacer(1, 2),
        SignatureBox(SIGNATURE_BOX_WIDTH, SIGNATURE_BOX_HEIGHT, on_box),
    ]
    return [CondPageBreak(260), KeepTogether(block)]
