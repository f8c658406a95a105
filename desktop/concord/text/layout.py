"""The layout of a text's lines: prose that wraps, table rows, list items, headings.

A line break means one of two things. In a table, a list or a form it ends a row, an item
or a field: what follows is another one. In a paragraph of prose it is only where the line
ran out of width (a letter re-wrapped by a word processor, a scan, a dictation system that
wraps at 80 columns): a reader reads on, and "Her potassium was" + line break + "6.6 mmol/L
this morning" is one sentence. `soft_wraps` finds the breaks of the second kind; every
other break is kept as the end of a row, item or field.

A break between two non-blank lines is a soft wrap when neither line is a table row (a tab,
a pipe, or a column gap of two or more spaces between cells on a line that is not long
prose), the next line is not a list item, a heading, a "Label:" field or a dated entry,
the line before does not end a sentence, nor end in a colon or is a short "Label: value"
field, and one of these holds:
  * the next line starts in lower case ("an ejection fraction" / "of 25%");
  * the line before ends on a word that cannot end a sentence ("was", "of", "with", "the");
  * the line before is long prose (words, few digits) that ran to the paragraph's width,
    and the next line carries the sentence on (a long line breaks where the margin is, not
    where the sentence ends).
"""

from __future__ import annotations

import re

_CONTINUING = (
    "a an and are as at by for from had has have in into is of on or over the to was "
    "were with without than then which who whose that onto per via its his her their "
    "our your been being be also measured noted showing showed shows revealed "
    "demonstrating demonstrated reading read recorded approximately about around"
)
CONTINUING_WORDS = frozenset(_CONTINUING.split())
"""Words a sentence does not end on: a line ending on one continues on the next."""
WIDTH_SHARE = 0.8
"""A line at least this share of the paragraph's widest line ran out of width."""
MIN_WRAP_WIDTH = 45
PROSE_DIGIT_SHARE = 0.15
"""A line whose characters are more than this share digits is results, not prose."""
"""...and at least this many characters: shorter lines end where the writer ended them."""

_LINE_RE = re.compile(r"[^\n]*")
_GAP_RE = re.compile(r"\S(?:\t|[ ]{2,})(?=\S)")
_ROW_CHARS_RE = re.compile(r"[\t|¦│┃]")
_ITEM_RE = re.compile(
    r"[ \t]*(?:[-*•◦▪‣⁃●○■□►▶➢➤∙·#>]|\d{1,2}[.)](?!\d)|[a-zA-Z][.)](?=[ \t])|\(\w{1,3}\))[ \t]*"
)
_FIELD_RE = re.compile(r"[ \t]*[A-Za-z][A-Za-z0-9 /&+()'\-]{0,40}?[ \t]*:(?![/\d])")
_DATED_RE = re.compile(
    r"[ \t]*(?:\d{1,2}/\d{1,2}(?:/\d{2,4})?|\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[.\-]\d{1,2}[.\-]\d{2,4}|"
    r"\d{1,2}:\d{2}|"
    r"\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*)"
    r"(?![A-Za-z0-9])",
    re.IGNORECASE,
)
_SENTENCE_END_RE = re.compile(r"[.!?:;][\"')\]]*[ \t]*$")
_LAST_WORD_RE = re.compile(r"([A-Za-z]+)[,]?[ \t]*$")
_CAPS_RE = re.compile(r"[A-Z][A-Z0-9 /&()\-]{2,}")


def soft_wraps(text: str) -> list[int]:
    """Offsets of the line feeds in `text` that are soft wraps of prose (module doc)."""
    if "\n" not in text:
        return []
    lines = [(m.start(), m.end()) for m in _LINE_RE.finditer(text)]
    lines = [lines[0]] + [ln for ln in lines[1:] if ln[0] > 0 and text[ln[0] - 1] == "\n"]
    out: list[int] = []
    widest = _paragraph_widths(text, lines)
    for i in range(len(lines) - 1):
        a, b = lines[i], lines[i + 1]
        if _is_soft(text, a, b, widest[i]):
            out.append(a[1])
    return out


def _paragraph_widths(text: str, lines: list[tuple[int, int]]) -> list[int]:
    """For each line, the width of the widest line of its paragraph (blank lines part them)."""
    widths = [0] * len(lines)
    start = 0
    for i in range(len(lines) + 1):
        blank = i == len(lines) or not text[lines[i][0] : lines[i][1]].strip()
        if blank:
            width = max((_width(text, ln) for ln in lines[start:i]), default=0)
            for k in range(start, i):
                widths[k] = width
            start = i + 1
    return widths


def _width(text: str, line: tuple[int, int]) -> int:
    return len(text[line[0] : line[1]].rstrip())


def is_row(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] (one line) is a table row: a tab or a pipe, or a column gap
    that is not a sentence's double space."""
    line = text[start:end]
    if _ROW_CHARS_RE.search(line):
        return True
    return any(line[m.start()] not in ".!?:,;" for m in _GAP_RE.finditer(line))


def _is_soft(text: str, a: tuple[int, int], b: tuple[int, int], widest: int) -> bool:
    first = text[a[0] : a[1]]
    second = text[b[0] : b[1]]
    if not first.strip() or not second.strip():
        return False
    if is_row(text, *a) or is_row(text, *b):
        return False
    if _ITEM_RE.match(second) or _FIELD_RE.match(second) or _DATED_RE.match(second):
        return False
    if _SENTENCE_END_RE.search(first):
        return False
    if _FIELD_RE.match(first) and len(first.rstrip()) < MIN_WRAP_WIDTH:
        return False  # a short "Label: value" line is a complete field
    stripped = first.strip()
    if _CAPS_RE.fullmatch(stripped) or _ITEM_RE.match(first) and len(stripped) < 25:
        return False  # a heading in capitals; a short list item
    head = second.lstrip()
    if head[:1].islower():
        return True
    last = _LAST_WORD_RE.search(first)
    if last is not None and last.group(1).lower() in CONTINUING_WORDS:
        return True
    width = len(first.rstrip())
    return (
        width >= MIN_WRAP_WIDTH
        and width >= WIDTH_SHARE * widest
        and head[:1].isalnum()
        and _prose_like(first)
    )


def _prose_like(line: str) -> bool:
    """A line of words, not of results: at least eight words and few digits ("Na 121 (L),
    K 5.4 (H), Cl 84, CO2 17" is a list of results that ends where its writer ended it)."""
    words = line.split()
    visible = [c for c in line if not c.isspace()]
    digits = sum(c.isdigit() for c in visible)
    return len(words) >= 8 and digits <= PROSE_DIGIT_SHARE * len(visible)
