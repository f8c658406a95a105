"""From OCR lines to the text of a page: rows top to bottom, words left to right, a blank
line where the page has a paragraph gap; every word keeps its offsets, box and confidence."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from concord.records.ocr.engines import ReadLine, ReadWord

PARAGRAPH_GAP = 0.9
"""A gap between rows larger than this many row heights becomes a blank line."""
SAME_ROW_OVERLAP = 0.5
"""Two detected lines whose vertical overlap is at least this share of the smaller one are
one row (a lab table's cells are often detected separately)."""


@dataclass(frozen=True)
class PlacedWord:
    start: int
    end: int
    word: ReadWord


@dataclass(frozen=True)
class PageText:
    text: str
    words: tuple[PlacedWord, ...]


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    top, bottom = max(a[1], b[1]), min(a[3], b[3])
    smaller = min(a[3] - a[1], b[3] - b[1])
    return (bottom - top) / smaller if smaller > 0 else 0.0


def _rows(lines: list[ReadLine]) -> list[list[ReadLine]]:
    rows: list[list[ReadLine]] = []
    for line in sorted(lines, key=lambda ln: (ln.box[1] + ln.box[3]) / 2):
        if rows and any(_overlap(line.box, other.box) >= SAME_ROW_OVERLAP for other in rows[-1]):
            rows[-1].append(line)
        else:
            rows.append([line])
    return rows


def page_text(lines: list[ReadLine]) -> PageText:
    """The page's text and where each word is in it."""
    rows = _rows([line for line in lines if line.words])
    if not rows:
        return PageText("", ())
    heights = [max(ln.box[3] for ln in row) - min(ln.box[1] for ln in row) for row in rows]
    typical = statistics.median(heights) or 1
    parts: list[str] = []
    placed: list[PlacedWord] = []
    offset = 0
    previous_bottom: int | None = None
    for row in rows:
        top = min(ln.box[1] for ln in row)
        if parts:
            gap_lines = (top - previous_bottom) / typical if previous_bottom is not None else 0
            separator = "\n\n" if gap_lines > PARAGRAPH_GAP else "\n"
            parts.append(separator)
            offset += len(separator)
        words = sorted((w for ln in row for w in ln.words), key=lambda w: w.box[0])
        for index, word in enumerate(words):
            if index:
                parts.append(" ")
                offset += 1
            parts.append(word.text)
            placed.append(PlacedWord(offset, offset + len(word.text), word))
            offset += len(word.text)
        previous_bottom = max(ln.box[3] for ln in row)
    return PageText("".join(parts), tuple(placed))
