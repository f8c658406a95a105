"""The validation chart's data, for the app and the PDF alike: per figure, one bar per model
with its 95% interval (Wilson for the rates, the bootstrap for kappa)."""

from __future__ import annotations

from dataclasses import dataclass

from concord.site.figures import ModelFigures, ModelReport, Rate
from concord.validation.stats import wilson_interval

FIGURES = (
    ("valid outputs", "valid_outputs"),
    ("verified evidence", "verified_evidence"),
    ("gates addressed", "gates_addressed"),
    ("judge kappa", "judge_agreement"),
)


@dataclass(frozen=True)
class Bar:
    figure: str
    model: str
    role: str
    value: float | None
    low: float | None
    high: float | None
    text: str


def _bar(figure: str, attr: str, model: ModelFigures) -> Bar:
    value = getattr(model, attr)
    if isinstance(value, Rate):
        interval = wilson_interval(value)
        low, high = interval if interval is not None else (None, None)
        return Bar(figure, model.model_name, model.role, value.rate, low, high, value.text())
    kappa = value.kappa
    text = "undefined" if kappa is None else f"{kappa:.2f} (n={value.n})"
    return Bar(figure, model.model_name, model.role, kappa, value.ci_low, value.ci_high, text)


def chart_bars(report: ModelReport) -> list[Bar]:
    """Bars in figure order, the candidate first within each figure."""
    models = [report.candidate] + ([report.accepted] if report.accepted is not None else [])
    return [_bar(figure, attr, m) for figure, attr in FIGURES for m in models]
