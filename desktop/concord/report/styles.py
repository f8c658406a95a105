"""Page geometry, paragraph styles, colours and a table helper for the review PDF."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeAlias

from reportlab.lib import colors
from reportlab.lib.enums import TA_LEFT
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, Paragraph, Table, TableStyle

from concord.adjudication.config import load_scoring_config
from concord.report.fonts import esc, font_set

PAGE_SIZE = A4
MARGIN_X = 16 * mm
MARGIN_TOP = 22 * mm
MARGIN_BOTTOM = 18 * mm
FRAME_WIDTH = PAGE_SIZE[0] - 2 * MARGIN_X

INK = colors.HexColor("#1A1A1A")
MUTED = colors.HexColor("#555555")
RULE = colors.HexColor("#9E9E9E")
HEADER_BG = colors.HexColor("#E3E8EF")
ZEBRA_BG = colors.HexColor("#F6F7F9")

# Traffic light for grades: pale backgrounds so the dark text on them stays readable,
# and the grade is always printed as a word too (never colour alone).
GRADE_BG_BEST_TO_WORST = (
    colors.HexColor("#C8E6C9"),
    colors.HexColor("#FFF0B3"),
    colors.HexColor("#FFD3A6"),
    colors.HexColor("#F5B7B1"),
)


def grade_background(grade: str | None) -> colors.Color:
    """The pale background for a grade, by its place among the scoring config's bands."""
    position = load_scoring_config().grade_position(grade)
    if position is None:
        return colors.white
    return GRADE_BG_BEST_TO_WORST[round(position * (len(GRADE_BG_BEST_TO_WORST) - 1))]


STATUS_STYLE = {  # evidence check: (text colour, background)
    "EXACT": (colors.HexColor("#1B5E20"), colors.HexColor("#E6F4E7")),
    "FUZZY": (colors.HexColor("#6D4C00"), colors.HexColor("#FFF4D6")),
    "FAILED": (colors.HexColor("#B71C1C"), colors.HexColor("#FDE3E1")),
}
SEVERITY_COLOUR = {
    "major": colors.HexColor("#B71C1C"),
    "moderate": colors.HexColor("#8A5A00"),
    "minor": colors.HexColor("#555555"),
}
MODERATE_BG = colors.HexColor("#FFF4D6")
AMBER = colors.HexColor("#8A5A00")
"""A quote found in the record that does not carry the claim citing it."""
OK_TEXT = colors.HexColor("#1B5E20")
ALERT_BG = colors.HexColor("#FDE3E1")
ALERT_BORDER = colors.HexColor("#B71C1C")
OK_BG = colors.HexColor("#E6F4E7")


@dataclass(frozen=True)
class Styles:
    title: ParagraphStyle
    h1: ParagraphStyle
    h2: ParagraphStyle
    h3: ParagraphStyle
    body: ParagraphStyle
    small: ParagraphStyle
    cell: ParagraphStyle
    cell_bold: ParagraphStyle
    cell_head: ParagraphStyle
    mono: ParagraphStyle
    bullet: ParagraphStyle
    note: ParagraphStyle
    intro: ParagraphStyle
    subhead: ParagraphStyle


@functools.cache
def styles() -> Styles:
    fonts = font_set()
    base = ParagraphStyle(
        "base",
        fontName=fonts.regular,
        fontSize=9.5,
        leading=12.5,
        textColor=INK,
        alignment=TA_LEFT,
        splitLongWords=1,
    )
    return Styles(
        title=ParagraphStyle(
            "title", parent=base, fontName=fonts.bold, fontSize=16, leading=20, spaceAfter=4
        ),
        h1=ParagraphStyle(
            "h1",
            parent=base,
            fontName=fonts.bold,
            fontSize=13,
            leading=16,
            spaceBefore=10,
            spaceAfter=5,
            textColor=colors.HexColor("#0D2A4A"),
            keepWithNext=1,
        ),
        h2=ParagraphStyle(
            "h2",
            parent=base,
            fontName=fonts.bold,
            fontSize=11,
            leading=14,
            spaceBefore=8,
            spaceAfter=4,
            textColor=colors.HexColor("#0D2A4A"),
            keepWithNext=1,
        ),
        h3=ParagraphStyle(
            "h3",
            parent=base,
            fontName=fonts.bold,
            fontSize=9.5,
            leading=12,
            spaceBefore=6,
            spaceAfter=2,
            keepWithNext=1,
        ),
        body=base,
        small=ParagraphStyle("small", parent=base, fontSize=8, leading=10, textColor=MUTED),
        cell=ParagraphStyle("cell", parent=base, fontSize=8.5, leading=10.5),
        cell_bold=ParagraphStyle(
            "cell_bold", parent=base, fontName=fonts.bold, fontSize=8.5, leading=10.5
        ),
        cell_head=ParagraphStyle(
            "cell_head", parent=base, fontName=fonts.bold, fontSize=8, leading=10
        ),
        mono=ParagraphStyle("mono", parent=base, fontName=fonts.mono, fontSize=8, leading=10),
        bullet=ParagraphStyle("bullet", parent=base, leftIndent=14, bulletIndent=3, spaceAfter=2),
        note=ParagraphStyle("note", parent=base, fontSize=8.5, leading=11, textColor=MUTED),
        subhead=ParagraphStyle(
            "subhead", parent=base, fontName=fonts.italic, spaceBefore=2, keepWithNext=1
        ),
        intro=ParagraphStyle(
            "intro", parent=base, fontSize=8.5, leading=11, textColor=MUTED, keepWithNext=1
        ),
    )


def para(text: object, style: ParagraphStyle | None = None) -> Paragraph:
    """A paragraph of untrusted text, printed literally."""
    return Paragraph(esc(text), style or styles().body)


def markup(trusted_markup: str, style: ParagraphStyle | None = None) -> Paragraph:
    """A paragraph of markup built by this package (every untrusted piece passed through esc)."""
    return Paragraph(trusted_markup, style or styles().body)


def coloured(text_markup: str, colour: colors.Color, *, bold: bool = False) -> str:
    inner = f"<b>{text_markup}</b>" if bold else text_markup
    return f'<font color="{colour.hexval()}">{inner}</font>'


Cell: TypeAlias = str | Flowable


def table(
    rows: Sequence[Sequence[Cell]],
    widths: Sequence[float],
    *,
    header: bool = True,
    extra: Sequence[tuple[object, ...]] = (),
    zebra: bool = True,
) -> Table:
    """A wrapped, page-splittable table. String cells are untrusted text (escaped)."""
    st = styles()
    data: list[list[Flowable]] = []
    for r, row in enumerate(rows):
        cells: list[Flowable] = []
        for value in row:
            if isinstance(value, Flowable):
                cells.append(value)
            else:
                cells.append(para(value, st.cell_head if header and r == 0 else st.cell))
        data.append(cells)
    total = sum(widths)
    scale = FRAME_WIDTH / total if total > FRAME_WIDTH else 1.0
    commands: list[tuple[object, ...]] = [
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LEFTPADDING", (0, 0), (-1, -1), 3),
        ("RIGHTPADDING", (0, 0), (-1, -1), 3),
        ("TOPPADDING", (0, 0), (-1, -1), 2),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
        ("LINEBELOW", (0, 0), (-1, -1), 0.25, RULE),
        ("BOX", (0, 0), (-1, -1), 0.5, RULE),
    ]
    if header:
        commands += [
            ("BACKGROUND", (0, 0), (-1, 0), HEADER_BG),
            ("LINEBELOW", (0, 0), (-1, 0), 0.75, MUTED),
        ]
    if zebra:
        first = 1 if header else 0
        for r in range(first + 1, len(data), 2):
            commands.append(("BACKGROUND", (0, r), (-1, r), ZEBRA_BG))
    commands += list(extra)
    return Table(
        data,
        colWidths=[w * scale for w in widths],
        repeatRows=1 if header else 0,
        splitInRow=1,
        hAlign="LEFT",
        style=TableStyle(commands),
    )
