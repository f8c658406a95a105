"""The layout of a text's lines: prose that wraps, table rows, list items, headings.

A line break means one of two things. In a table, a list or a form it ends a row, an item
or a field: what follows is another one. In a paragraph of prose it is only where the line
ran out of width (a letter re-wrapped by a word processor, a scan, a dictation system that
wraps at 80 columns): a reader reads on, and "Her potassium was" + line break + "6.6 mmol/L
this morning" is one sentence. `soft_wraps` finds the breaks of the second kind; every
other break is kept as the end of a row, item or field.

A line is a table row when a pipe stands between its cells, or a column gap: a tab or two
or more spaces, not after sentence punctuation (". " twice, "HISTORY:  The patient",
"HISTORY:<tab>The patient") nor after a word a sentence cannot end on ("she has
undiagnosed" with two spaces). Spaces are not columns on a scan's evenly spaced lines
(`evenly_spaced`), nor where a typist's stray double spaces sit in a line of prose ("takes
50 mg  twice daily and ...") unless the line above or below has a column starting at the
same place (a two-column table whose cells are sentences). Indentation is not a column.

A break between two non-blank lines is a soft wrap when neither line is a table row, the
next line is not a list item, a heading or a "Label:" field, the line before does not end a
sentence nor end in a colon, and one of these holds:
  * the next line starts in lower case ("an ejection fraction" / "of 25%");
  * the line before ends on a word that cannot end a sentence ("was", "of", "with", "the");
  * the line before is long prose (words, few digits) that ran to the paragraph's width,
    and the next line carries the sentence on (a long line breaks where the margin is, not
    where the sentence ends).
A short "Label: value" field, a short list item and a next line opening with a date end
where they are unless the line before ends on a word a sentence cannot end on ("PMH: no
history of" / "diabetes", "admitted on" / "12/03/2024 with ...").
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
"""...and at least this many characters: shorter lines end where the writer ended them."""
MIN_LIST_LINES = 3
"""...and not after this many short plain lines of its paragraph (a list without bullets)."""
PROSE_DIGIT_SHARE = 0.15
"""A line whose characters are more than this share digits is results, not prose."""
SENTENCE_MIN_WORDS = 8
SENTENCE_WORD_SHARE = 0.7
"""A line of at least SENTENCE_MIN_WORDS words, this share of its space-separated parts
holding a letter, is a sentence: double spaces typed inside it are not columns."""
TYPED_GAP = 2
"""The width of a typist's stray double space."""
EVEN_SPACING_MIN_GAPS = 4
"""A line needs at least this many wide spaces for its spacing to read as even."""
EVEN_SPACING_MAX_WIDTH = 3
"""...none of them wider than this (columns are aligned, so their gaps vary and grow)."""
EVEN_SPACING_WORD_SHARE = 2 / 3
"""...and at least this share of its space-separated parts holding a letter (prose, not a
row of values)."""
WORD_LOOK_BACK = 40
"""Characters looked back from a gap for the word before it."""
MAX_SCAN_PARAGRAPH = 50
"""Lines looked back along a scan's paragraph of evenly spaced lines."""

_LINE_RE = re.compile(r"[^\n]*")
_GAP_RE = re.compile(r"\S(?:\t|[ ]{2,})(?=\S)")
_PIPE_RE = re.compile(r"[|¦│┃]")
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
_SENTENCE_END_RE = re.compile(r"[.!?:;][\"')\]]*\s*$")
_LAST_WORD_RE = re.compile(r"([A-Za-z]+)[,]?\s*$")
_WORD_BEFORE_RE = re.compile(r"([A-Za-z]+)$")
_SPACING_RE = re.compile(r"[ \t]+")
_PIPES = "|¦│┃"
_CAPS_RE = re.compile(r"[A-Z][A-Z0-9 /&()\-]{2,}")


def soft_wraps(text: str) -> list[int]:
    """Offsets of the line feeds in `text` that are soft wraps of prose (module doc)."""
    if "\n" not in text:
        return []
    lines = _real_lines(text)
    out: list[int] = []
    widest = _paragraph_widths(text, lines)
    after_list = _after_short_lines(text, lines, widest)
    for i in range(len(lines) - 1):
        a, b = lines[i], lines[i + 1]
        if _is_soft(text, a, b, widest[i], width_counts=not after_list[i]):
            out.append(a[1])
    return out


def _real_lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of each line of `text`, its line feed left out."""
    lines = [(m.start(), m.end()) for m in _LINE_RE.finditer(text)]
    return [lines[0]] + [ln for ln in lines[1:] if ln[0] > 0 and text[ln[0] - 1] == "\n"]


def _after_short_lines(text: str, lines: list[tuple[int, int]], widest: list[int]) -> list[bool]:
    """For each line, whether it comes after at least MIN_LIST_LINES lines of its paragraph
    that are all short and plain (a list typed without bullets: "Metoprolol 2.5 mg once
    daily" ...): there the paragraph's width says nothing of where the line ran out of room.
    One pass: each line is looked at once, however long its paragraph (a lab printout of
    thousands of lines with no blank line between them)."""
    out: list[bool] = []
    run = 0  # the lines of the paragraph before this one
    all_short = True  # ... and whether each of them is short and plain
    for i, (start, end) in enumerate(lines):
        body = text[start:end]
        if not body.strip():  # a blank line follows its paragraph, and ends it
            out.append(False)  # (its own width is 0: no line before it is short beside it)
            run, all_short = 0, True
            continue
        out.append(run >= MIN_LIST_LINES and all_short)
        run += 1
        all_short = (
            all_short and len(body.rstrip()) < WIDTH_SHARE * widest[i] and not _ITEM_RE.match(body)
        )
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
    """Whether text[start:end] (one line) is a table row: a pipe between its cells, or a
    column gap (module doc)."""
    body = text[start:end].strip()
    if not body:
        return False
    if _PIPE_RE.search(body):
        return True
    gaps = _column_gaps(text[start:end])
    if not gaps:
        return False
    if _scanned(text, start, end):
        return False
    if all(width == TYPED_GAP for width in gaps.values()) and _sentence(body):
        return _aligned(text, start, end, gaps)
    return True


def _column_gaps(line: str) -> dict[int, int]:
    """Column gaps of `line`: where the cell after each starts -> the gap's width (a tab's is
    1). Spaces or a tab after sentence punctuation or after a word a sentence cannot end on
    are not gaps."""
    gaps = {}
    for m in _GAP_RE.finditer(line):
        if line[m.start()] in ".!?:,;":
            continue
        word = _WORD_BEFORE_RE.search(line[max(0, m.start() - WORD_LOOK_BACK) : m.start() + 1])
        if word is not None and word.group(1).lower() in CONTINUING_WORDS:
            continue
        gaps[m.end()] = m.end() - m.start() - 1
    return gaps


def _sentence(body: str) -> bool:
    """A line of words that reads as a sentence (SENTENCE_MIN_WORDS, SENTENCE_WORD_SHARE)."""
    parts = body.split()
    words = sum(any(c.isalpha() for c in p) for p in parts)
    return words >= SENTENCE_MIN_WORDS and words >= SENTENCE_WORD_SHARE * len(parts)


def _aligned(text: str, start: int, end: int, gaps: dict[int, int]) -> bool:
    """Whether the line above or below has a cell starting where one of `gaps` ends."""
    neighbours = []
    if start > 0:
        neighbours.append(text[text.rfind("\n", 0, start - 1) + 1 : start - 1])
    if end < len(text):
        below_end = text.find("\n", end + 1)
        neighbours.append(text[end + 1 : len(text) if below_end < 0 else below_end])
    return any(gaps.keys() & _column_gaps(line).keys() for line in neighbours)


def _scanned(text: str, start: int, end: int) -> bool:
    """Whether the line text[start:end] is a scan's evenly spaced prose: on its own, or as a
    line with fewer wide spaces going on a paragraph of such lines (`evenly_spaced`)."""
    if evenly_spaced(text[start:end]):
        return True
    for _ in range(MAX_SCAN_PARAGRAPH):
        if start == 0 or not evenly_spaced(text[start:end], paragraph=True):
            return False
        end = start - 1
        start = text.rfind("\n", 0, end) + 1
        if evenly_spaced(text[start:end]):
            return True
    return False


def evenly_spaced(line: str, paragraph: bool = False) -> bool:
    """Whether the wide spaces of `line` are its word spacing rather than column gaps: no
    tab or pipe, at least EVEN_SPACING_MIN_GAPS runs of 2..EVEN_SPACING_MAX_WIDTH spaces,
    at least twice as many as single spaces between words (a single space at a lone
    punctuation mark is a scan's too: "( left", "80 – 99 %"), and mostly words among the
    parts with a letter or digit ("Her  CRP  is  now  4  mg/L .", not
    "Hb  121  g/L  130-180  LOW"). A short line that goes on a `paragraph` of evenly spaced
    lines needs only one wide space ("no  visual  symptoms .")."""
    if "\t" in line or any(p in line for p in _PIPES):
        return False
    # the parts between the runs of spaces, so that run k lies between parts k and k + 1
    # (str.split() also splits at a carriage return or a form feed, which are not runs)
    body = line.strip()
    parts = _SPACING_RE.split(body)
    runs = [len(r) for r in _SPACING_RE.findall(body)]
    wide = sum(r > 1 for r in runs)
    if wide < (1 if paragraph else EVEN_SPACING_MIN_GAPS) or max(runs) > EVEN_SPACING_MAX_WIDTH:
        return False
    spoken = [any(c.isalnum() for c in p) for p in parts]
    single = sum(r == 1 and spoken[k] and spoken[k + 1] for k, r in enumerate(runs))
    if wide < 2 * single:
        return False
    words = sum(any(c.isalpha() for c in p) for p in parts)
    return words >= EVEN_SPACING_WORD_SHARE * sum(spoken)


def opens_entry(line: str) -> bool:
    """Whether `line` opens a list item, a "Label:" field or a dated entry of its own."""
    return bool(_ITEM_RE.match(line) or _FIELD_RE.match(line) or _DATED_RE.match(line))


def _is_soft(
    text: str, a: tuple[int, int], b: tuple[int, int], widest: int, *, width_counts: bool = True
) -> bool:
    first = text[a[0] : a[1]]
    second = text[b[0] : b[1]]
    if not first.strip() or not second.strip():
        return False
    if is_row(text, *a) or is_row(text, *b):
        return False
    if _ITEM_RE.match(second) or _FIELD_RE.match(second):
        return False
    if _SENTENCE_END_RE.search(first):
        return False
    last = _LAST_WORD_RE.search(first)
    continuing = last is not None and last.group(1).lower() in CONTINUING_WORDS
    if _DATED_RE.match(second) and not continuing:
        return False
    stripped = first.strip()
    if _CAPS_RE.fullmatch(stripped):
        return False  # a heading in capitals
    short_field = _FIELD_RE.match(first) is not None and len(first.rstrip()) < MIN_WRAP_WIDTH
    short_item = _ITEM_RE.match(first) is not None and len(stripped) < 25
    if (short_field or short_item) and not continuing:
        return False  # a short "Label: value" line is a complete field; a short list item
    head = second.lstrip()
    if head[:1].islower() or continuing:
        return True
    width = len(first.rstrip())
    return (
        width_counts
        and width >= MIN_WRAP_WIDTH
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
