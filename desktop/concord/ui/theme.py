"""Colours and labels shared by the views. Colour is never the only signal: every colour
comes with a text label (grade name, status word, badge text)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel

from concord.adjudication.config import load_scoring_config
from concord.adjudication.config import subscore_title as subscore_title
from concord.domain.brief import agent_title as agent_title

# Light tints for evidence highlights, one per agent (Okabe-Ito hues, pale enough that
# black text stays readable on them).
AGENT_TINTS: dict[str, str] = {
    "anaesthetist": "#cfe3ff",
    "cardiology": "#ffdcb0",
    "respiratory": "#cdeecd",
    "renal": "#e6d4f5",
    "haematology": "#fff0a0",
    "oncology": "#c8eeee",
    "endocrine": "#f7d3e6",
    "airway": "#dcdcdc",
    "surgeon": "#e8e8d0",
}
FALLBACK_TINT = "#e4e4e4"
CURRENT_SELECTION = "#ffb000"  # outline colour of the evidence of the selected bullet

RED_FLAG_BACKGROUND = "#c62828"  # a fired red flag in the record: white bold text on it
RED = "#b71c1c"
AMBER = "#f2b200"
MODERATE_TEXT = "#8a5a00"  # a moderate red flag, as text (readable on white)
NOT_SUPPORTED = "#8a5a00"  # a quote found that does not support its claim
GREEN = "#1b7a34"
GREY = "#6b6b6b"
FAILED_UNDERLINE = "#c00000"
FUZZY_UNDERLINE = "#7a5a00"


def agent_tint(agent: str) -> QColor:
    return QColor(AGENT_TINTS.get(agent, FALLBACK_TINT))


def grade_colours(grade: str | None, capped: bool = False) -> tuple[str, str]:
    """(background, foreground) for a grade, by its place among the scoring config's bands:
    green for the best band, red for the lower half or a capped score, amber between.
    Unknown grade -> grey."""
    position = load_scoring_config().grade_position(grade)
    if position is None:
        return "#e0e0e0", "#000000"
    if capped or position >= 0.5:
        return RED, "#ffffff"
    if position > 0:
        return AMBER, "#000000"
    return GREEN, "#ffffff"


def grade_label(grade: str | None, cap_lowered: bool = False) -> str:
    """The grade, with "(capped)" only when the cap for a missed major gate lowered the
    score (`Scorecard.cap_lowered`), not merely because the cap applied."""
    if grade is None:
        return "—"
    return f"{grade} (capped)" if cap_lowered else grade


STATUS_COLOURS: dict[str, str] = {
    "not run": "#6b6b6b",
    "running": "#1f5fbf",
    "needs review": "#b35c00",
    "reviewed": "#1b7a34",
    "signed": "#0b4f22",
    "run failed": "#b71c1c",
    "amended - re-sign required": "#b35c00",
}
STATUS_FALLBACK = "#b35c00"  # a state this table does not know yet: shown as needing review

SEVERITY_COLOURS: dict[str, tuple[str, str]] = {
    "major": (RED, "#ffffff"),
    "moderate": (AMBER, "#000000"),
    "minor": ("#d8d8d8", "#000000"),
}


def plain_label(
    text: str = "", *, bold: bool = False, wrap: bool = True, style: str = ""
) -> QLabel:
    """A label that shows its text as plain text, never as markup: patient text is data."""
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(wrap)
    sheet = "; ".join(s for s in ("font-weight:bold" if bold else "", style) if s)
    if sheet:
        label.setStyleSheet(sheet)
    return label
