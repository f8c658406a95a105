"""A validation report as a PDF (reportlab): the figures of both models side by side with
their intervals, the chart, the policy's checks and each patient's run."""

from __future__ import annotations

import io
from pathlib import Path

from reportlab.graphics.shapes import Drawing, Line, Rect, String
from reportlab.lib import colors
from reportlab.platypus import SimpleDocTemplate, Spacer

from concord.atomic_io import write_atomic
from concord.report.styles import (
    FRAME_WIDTH,
    MARGIN_BOTTOM,
    MARGIN_TOP,
    MARGIN_X,
    PAGE_SIZE,
    markup,
    para,
    styles,
    table,
)
from concord.site.figures import ModelFigures, ModelReport
from concord.validation.chart import FIGURES, chart_bars

MODEL_COLOURS = (colors.HexColor("#1565C0"), colors.HexColor("#9E9E9E"))
CHART_HEIGHT = 170.0


def chart_drawing(report: ModelReport, width: float = FRAME_WIDTH) -> Drawing:
    """Grouped bars on a 0-1 scale with 95% interval whiskers (kappa below 0 is drawn at
    0; its number is printed)."""
    bars = chart_bars(report)
    models = sorted({(b.role != "candidate", b.model) for b in bars})
    drawing = Drawing(width, CHART_HEIGHT)
    left, bottom, top = 30.0, 30.0, CHART_HEIGHT - 20.0
    plot_h = top - bottom
    group_w = (width - left - 10) / len(FIGURES)
    bar_w = group_w * 0.7 / max(len(models), 1)
    for tick in (0.0, 0.5, 1.0):
        y = bottom + tick * plot_h
        drawing.add(Line(left, y, width - 10, y, strokeColor=colors.HexColor("#DDDDDD")))
        drawing.add(String(left - 4, y - 3, f"{tick:g}", fontSize=7, textAnchor="end"))
    for g, (figure, _attr) in enumerate(FIGURES):
        x0 = left + g * group_w + group_w * 0.15
        drawing.add(String(x0 + group_w * 0.35, 12, figure, fontSize=7.5, textAnchor="middle"))
        for m, (_later, model) in enumerate(models):
            bar = next((b for b in bars if b.figure == figure and b.model == model), None)
            if bar is None:
                continue
            colour = MODEL_COLOURS[min(m, len(MODEL_COLOURS) - 1)]
            x = x0 + m * bar_w
            value = max(0.0, min(1.0, bar.value or 0.0))
            drawing.add(
                Rect(x, bottom, bar_w * 0.9, value * plot_h, fillColor=colour, strokeColor=None)
            )
            if bar.low is not None and bar.high is not None:
                lo = bottom + max(0.0, min(1.0, bar.low)) * plot_h
                hi = bottom + max(0.0, min(1.0, bar.high)) * plot_h
                mid = x + bar_w * 0.45
                drawing.add(Line(mid, lo, mid, hi, strokeColor=colors.black, strokeWidth=0.8))
                drawing.add(Line(mid - 3, lo, mid + 3, lo, strokeColor=colors.black))
                drawing.add(Line(mid - 3, hi, mid + 3, hi, strokeColor=colors.black))
            label = "n/a" if bar.value is None else f"{bar.value:.2f}"
            drawing.add(
                String(
                    mid if bar.low is not None else x,
                    bottom + value * plot_h + 3,
                    label,
                    fontSize=6.5,
                    textAnchor="middle",
                )
            )
    for m, (_later, model) in enumerate(models):
        colour = MODEL_COLOURS[min(m, len(MODEL_COLOURS) - 1)]
        y = CHART_HEIGHT - 10
        drawing.add(Rect(left + m * 180, y, 8, 8, fillColor=colour, strokeColor=None))
        drawing.add(String(left + m * 180 + 12, y + 1, model, fontSize=8))
    return drawing


def _figure_rows(report: ModelReport) -> list[list[str]]:
    models: list[ModelFigures] = [report.candidate] + (
        [report.accepted] if report.accepted is not None else []
    )
    rows = [["figure", *[f"{m.model_name} ({m.role})" for m in models]]]

    def kappa(m: ModelFigures) -> str:
        a = m.judge_agreement
        if a.kappa is None:
            return f"undefined (n={a.n}) {a.note}".strip()
        interval = (
            f" [{a.ci_low:.2f}, {a.ci_high:.2f}]"
            if a.ci_low is not None and a.ci_high is not None
            else ""
        )
        return f"{a.kappa:.2f}{interval}, n={a.n}, observed {a.observed or 0:.0%}"

    def astrid(m: ModelFigures) -> str:
        a = m.astrid_agreement
        if a is None:
            return "no labelled ASTRID items"
        return "undefined" if a.kappa is None else f"{a.kappa:.2f}, n={a.n}"

    def num(value: float | None, unit: str) -> str:
        return "not measured" if value is None else f"{value:,.0f} {unit}"

    rows.append(["patients run", *[str(m.records) for m in models]])
    rows.append(["valid outputs", *[m.valid_outputs.text() for m in models]])
    rows.append(["verified evidence", *[m.verified_evidence.text() for m in models]])
    rows.append(["gates addressed", *[m.gates_addressed.text() for m in models]])
    rows.append(["judge vs clinicians (kappa, 95% CI)", *[kappa(m) for m in models]])
    rows.append(["ASTRID agreement", *[astrid(m) for m in models]])
    rows.append(["time per patient", *[num(m.seconds_per_patient, "s") for m in models]])
    rows.append(["peak memory", *[num(m.peak_memory_mb, "MB") for m in models]])
    return rows


def render_validation_pdf(report: ModelReport, out: Path) -> None:
    st = styles()
    story = [
        markup("Site validation report", st.title),
        para(
            f"{report.validation_id} · {report.created_at:%Y-%m-%d %H:%M} UTC · by "
            f"{report.created_by} · resources {report.resources.short()}",
            st.note,
        ),
        para(
            f"Machine: {report.machine.get('cpus')} CPU(s), load average "
            f"{report.machine.get('start', {}).get('load_average')} at the start, "
            f"{report.machine.get('end', {}).get('load_average')} at the end: timings on a "
            "loaded machine are longer than on a quiet one.",
            st.note,
        ),
        Spacer(1, 6),
        markup(
            "<b>Result: "
            + ("meets the site policy" if report.passed else "does NOT meet the site policy")
            + "</b>",
            st.h2,
        ),
        markup("1. Figures on the same reference cases", st.h1),
        table(_figure_rows(report), [150, 180, 180]),
        Spacer(1, 8),
        chart_drawing(report),
        para(
            "Bars: the figure; whiskers: 95% interval (Wilson for shares, bootstrap for kappa).",
            st.note,
        ),
        markup("2. The site policy", st.h1),
        table(
            [["check", "threshold", "value", "result"]]
            + [
                [c.name, c.threshold, c.value, "pass" if c.passed else "FAIL"]
                for c in report.checks
            ],
            [160, 140, 120, 60],
        ),
        markup("3. Reference set", st.h1),
        para(
            f"{report.reference.cases} decided case(s) on {report.reference.records} record(s), "
            f"{report.reference.decisions} clinician decision(s), "
            f"{report.reference.gate_confirmations} confirmed gate(s), "
            f"{report.reference.regression_cases} regression case(s) (gate overrides), "
            f"{report.reference.astrid_labelled} labelled ASTRID item(s), "
            f"{report.reference.eval_labelled} graded EVAL answer(s). "
            + (f"Sample: the first {report.sample} record(s)." if report.sample else ""),
            st.body,
        ),
        markup("4. Each patient", st.h1),
    ]
    models = [report.candidate] + ([report.accepted] if report.accepted is not None else [])
    rows = [["model", "record", "case", "valid", "verified", "gates", "seconds", "note"]]
    for m in models:
        for r in m.per_record:
            rows.append(
                [
                    m.model_name,
                    r.record_name,
                    r.case_id or "-",
                    r.briefs.text(),
                    r.evidence.text(),
                    r.gates.text(),
                    "-" if r.seconds is None else f"{r.seconds:.0f}",
                    ("reused reference case" if r.reused else "") + r.error,
                ]
            )
    story.append(table(rows, [80, 90, 70, 55, 60, 55, 40, 70]))
    notes = [n for m in models for n in m.notes]
    if notes:
        story.append(para("Notes: " + "; ".join(notes), st.note))
    buffer = io.BytesIO()
    doc = SimpleDocTemplate(
        buffer,
        pagesize=PAGE_SIZE,
        leftMargin=MARGIN_X,
        rightMargin=MARGIN_X,
        topMargin=MARGIN_TOP,
        bottomMargin=MARGIN_BOTTOM,
        title=f"Concord site validation {report.validation_id}",
    )
    doc.build(story)
    write_atomic(Path(out), buffer.getvalue())
