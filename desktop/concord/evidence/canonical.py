"""The canonical token form of text: what "the same words" means for verification.

Text is first cleaned, character by character, keeping where each character came from:
  - invisible characters (Unicode format characters: zero-width spaces and joiners, soft
    hyphens, bidirectional controls, BOM) are dropped; a soft hyphen at a line wrap counts
    as a hyphen;
  - NFKC (m² -> m2, µ -> μ, 10⁹ -> 109, full-width digits and signs -> ASCII, ligatures
    split); a caret before a digit is the plain-text spelling of a superscript and goes too
    (10^9 -> 109, cm^2 -> cm2, 10^-3 -> 10-3, as 10⁻³);
  - dash variants (hyphen, en and em dash, minus sign ...) -> "-", quote variants -> ' and ",
    the multiplication sign × -> x, the comparison signs ≥ and ≤ -> their plain-text
    spellings >= and <=.
The clean text is then cut into tokens: words (letters, with hyphenated parts joined, also
across a line wrap: "haemo-\\nglobin" and "drug-eluting" give "haemoglobin" and
"drugeluting"), numbers (digits with inner . or , : "6.3", "45,000") and single symbols.
Tokens are case-folded. Bullets at the start of a line (•, -, * ... followed by a space)
and table pipes are not tokens: they are layout. Whitespace is never a token; what lay
between two tokens is kept as flags (a space, a line break, a blank line, a column gap).
Wide spaces are a column gap only on a line that is a table row in the layout model
(`concord.text.layout.is_row`): a scan's evenly spaced words, two spaces after a heading's
colon or typed inside a sentence are not columns. Which line breaks are soft wraps of prose
is the layout model's too (`TokenText.soft_wraps`).

Every token keeps its span in the original text, so a run of tokens is always
`text[start:end]` of the record.
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

from concord.text.layout import is_row, soft_wraps

SEPARATOR = "\x1f"
"""Joins tokens for searching; a whitespace character, so never part of a token."""

# flags of a token: what lies between it and the token before it
SPACE = 1  # whitespace or layout (never glued to the previous token)
NEWLINE = 2  # a line break
BLANK = 4  # a blank line or a page break
GAP = 8  # a column gap on the same line: a tab, 2+ spaces, or a table pipe
BULLET = 16  # a bullet or list marker was skipped
LOWER = 32  # the token itself starts with a lower-case letter (the line continues a sentence)
WORD = 64  # the token is a word or a number (not a symbol)
COMPOUND = 128  # the token is a hyphenated word, its parts joined

_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\ufe58\ufe63\uff0d"
_SINGLE_QUOTES = "\u2018\u2019\u201a\u201b\u2032\u2035\u00b4`"
_DOUBLE_QUOTES = "\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb\u301d\u301e"
_ONE_TO_ONE = str.maketrans(
    {
        **dict.fromkeys(_DASHES, "-"),
        **dict.fromkeys(_SINGLE_QUOTES, "'"),
        **dict.fromkeys(_DOUBLE_QUOTES, '"'),
        "\u00d7": "x",
        "\u2715": "x",
    }
)
_SPELLED = {"\u2265": ">=", "\u2264": "<=", "\u2a7e": ">=", "\u2a7d": "<="}
"""Signs written as one character where plain text spells them with two."""
_SOFT_HYPHEN = "\u00ad"
_LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_SPECIAL = re.compile(
    r"[^\x00-\x7f]+|(?<=[^\W_])\^(?=[-\u2212\u207b]?[\d\u2070-\u2079\u00b2\u00b3\u00b9])"
)
"""What `clean` must look at character by character: non-ASCII runs and exponent carets."""
_BREAK = f"(?:\\r\\n|[{_LINE_BREAKS}])"
_TOKEN = re.compile(
    rf"""
    (?P<space>\s*)
    (?:
    (?P<word>[^\W\d_]+(?:-(?:[ \t]*{_BREAK}[ \t]*)?[^\W\d_]+)*)
  | (?P<num>\d+(?:[.,]\d+)*|\.\d+)
  | (?P<sym>\S)
    )
    """,
    re.VERBOSE,
)
_JOINERS = re.compile(r"[-\s]+")
BULLETS = frozenset("•◦▪▫‣⁃●○■□►▶➢➤∙·*-")
"""A line starting with one of these and a space is a list item; the marker is layout."""
PIPES = frozenset("|¦│┃")
SENTENCE_PUNCTUATION = frozenset(".!?")


def _clean_cluster(text: str, start: int, end: int) -> str:
    """Clean form of text[start:end], one base character and its combining marks."""
    first = text[start]
    if first == "^":
        return ""  # an exponent caret
    if first == _SOFT_HYPHEN:
        wraps = start > 0 and text[start - 1].isalpha()
        rest = text[end : end + 8].lstrip(" \t")
        return "-" if wraps and rest[:1] and rest[0] in _LINE_BREAKS else ""
    if first in _SPELLED and end == start + 1:
        return _SPELLED[first]
    if unicodedata.category(first) == "Cf":
        return unicodedata.normalize("NFKC", text[start + 1 : end])
    return unicodedata.normalize("NFKC", text[start:end])


@dataclass(frozen=True)
class CleanText:
    """`text` cleaned (module doc), with the way back to the original as segments: from
    clean offset `clean_at[i]` on, characters either follow the original one for one from
    `orig_at[i]` (`orig_end[i]` == -1), or all come from original [orig_at[i], orig_end[i])
    (a character that cleaning changed). No segments: the same as the original."""

    text: str
    clean_at: array[int]
    orig_at: array[int]
    orig_end: array[int]

    def _start(self, k: int) -> tuple[int, int]:
        """Original [start, end) of clean character k."""
        i = bisect_right(self.clean_at, k) - 1
        if self.orig_end[i] < 0:
            at = self.orig_at[i] + k - self.clean_at[i]
            return at, at + 1
        return self.orig_at[i], self.orig_end[i]

    def original(self, start: int, end: int) -> tuple[int, int]:
        """Original [start, end) of clean text[start:end] (end > start)."""
        if not self.clean_at:
            return start, end
        return self._start(start)[0], self._start(end - 1)[1]

    def to_clean(self, offset: int) -> int:
        """The clean offset where original `offset` lands (a dropped character lands on
        what follows it)."""
        if not self.clean_at:
            return offset
        i = bisect_right(self.orig_at, offset) - 1
        if i < 0:
            return 0
        after = self.clean_at[i + 1] if i + 1 < len(self.clean_at) else len(self.text)
        if self.orig_end[i] < 0:
            return min(self.clean_at[i] + offset - self.orig_at[i], after)
        return self.clean_at[i] if offset < self.orig_end[i] else after


def clean(text: str) -> CleanText:
    """The clean form of `text` (see the module doc); ASCII text costs one translate."""
    segments: tuple[array[int], array[int], array[int]] = (array("q"), array("q"), array("q"))
    if text.isascii() and "^" not in text:
        return CleanText(text.translate(_ONE_TO_ONE), *segments)
    clean_at, orig_at, orig_end = segments
    parts: list[str] = []
    size = position = 0  # clean length so far; original offset so far

    def segment(original: int, end: int) -> None:
        clean_at.append(size)
        orig_at.append(original)
        orig_end.append(end)

    for match in _SPECIAL.finditer(text):
        run_start, run_end = match.span()
        if run_start > position and unicodedata.combining(text[run_start]):
            run_start -= 1  # the base character composes with the marks after it
        if run_start > position:
            segment(position, -1)
            parts.append(text[position:run_start])
            size += run_start - position
        at = run_start
        while at < run_end:
            stop = at + 1
            while stop < run_end and unicodedata.combining(text[stop]):
                stop += 1
            out = _clean_cluster(text, at, stop)
            if out:
                segment(at, stop)
                parts.append(out)
                size += len(out)
            at = stop
        position = run_end
    segment(position, -1)
    parts.append(text[position:])
    return CleanText("".join(parts).translate(_ONE_TO_ONE), *segments)


def canonical_word(surface: str) -> str:
    """The canonical token of one word or number as it appears in clean text."""
    return _JOINERS.sub("", surface).casefold()


def _between_flags(between: str, previous: str | None) -> int:
    """Flags for the text between two tokens (whitespace and skipped layout only)."""
    if not between:
        return 0
    if between == " ":
        return SPACE
    flags = SPACE
    breaks = between.replace("\r\n", "\n")
    lines = sum(breaks.count(c) for c in _LINE_BREAKS)
    if lines:
        flags |= NEWLINE
        if lines >= 2 or "\f" in breaks:
            flags |= BLANK
        return flags
    if previous is None:
        return flags  # indentation before the first token
    if any(p in between for p in PIPES):
        return flags | GAP
    if ("\t" in between or "  " in between) and previous not in SENTENCE_PUNCTUATION:
        flags |= GAP
    return flags


BLOCK_CHARS = 1 << 20
"""Text is tokenised a block at a time, so memory follows the tokens, not regex matches."""
_CHUNK_TOKENS = 1 << 16


def _blocks(text: str) -> Iterator[tuple[int, int]]:
    """[start, end) blocks of about BLOCK_CHARS, cut after a line break that no token can
    span (not a hyphen at a wrap)."""
    start = 0
    while start < len(text):
        end = len(text)
        at = text.find("\n", start + BLOCK_CHARS)
        while at >= 0:
            if not text[max(start, at - 16) : at].rstrip(" \t\r").endswith("-"):
                end = at + 1
                break
            at = text.find("\n", at + 1)
        yield start, end
        start = end


class _Builder:
    """Accumulates tokens compactly: joined in chunks, offsets and spans in arrays."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.chunks: list[str] = []
        self.chunk: list[str] = []
        self.offsets: array[int] = array("q", [1])
        self.starts: array[int] = array("q")
        self.ends: array[int] = array("q")
        self.flags = bytearray()
        self.previous: str | None = None
        self.previous_end = 0
        self.pending = 0  # flags of layout skipped since the previous token
        self.offset = 1  # where the next token starts in the joined string

    def block(self, start: int, end: int) -> None:
        source, chunk, offset = self.source, self.chunk, self.offset
        offsets, starts, ends, flags = self.offsets, self.starts, self.ends, self.flags
        position = start  # matches are contiguous: each is whitespace then one token
        carried = source[self.previous_end : start]  # whitespace ending the block before
        for space, word, number, symbol in _TOKEN.findall(source, start, end):
            position += len(space)
            token_start = position
            if carried:
                space, carried = carried + space, ""
            if not space:
                between = 0
            elif space == " ":
                between = SPACE
            else:
                between = _between_flags(space, self.previous)
            if symbol:
                position += 1
                if symbol in PIPES:  # layout, keeping the line break before it
                    self.pending |= between | SPACE | GAP
                    self.previous_end = position
                    continue
                if symbol in BULLETS and (self.previous is None or between & NEWLINE):
                    after = source[position : position + 1]
                    if not after or after.isspace():
                        self.pending |= between | BULLET | SPACE
                        self.previous_end = position
                        continue
                token = symbol.casefold()
                flag = between
            elif word:
                position += len(word)
                token = canonical_word(word) if "-" in word else word.casefold()
                flag = between | WORD | (COMPOUND if "-" in word else 0)
                if word[0].islower():
                    flag |= LOWER
            else:
                position += len(number)
                token = number
                flag = between | WORD
            chunk.append(token)
            if len(chunk) >= _CHUNK_TOKENS:
                self.chunks.append(SEPARATOR.join(chunk))
                chunk.clear()
            offset += len(token) + 1
            offsets.append(offset)
            starts.append(token_start)
            ends.append(position)
            flags.append(flag | self.pending)
            self.pending = 0
            self.previous = token
            self.previous_end = position
        self.offset = offset
        if position > self.previous_end:
            self.previous_end = position

    def joined(self) -> str:
        if self.chunk:
            self.chunks.append(SEPARATOR.join(self.chunk))
        if not self.chunks:
            return SEPARATOR
        return SEPARATOR + SEPARATOR.join(self.chunks) + SEPARATOR


def _without_false_gaps(text: str, starts: array[int], flags: bytearray) -> None:
    """Clear the GAP flag of tokens on the lines of `text` (the clean text) that are not
    table rows in the layout model (`concord.text.layout.is_row`): a scan's evenly spaced
    prose, two spaces after a heading's colon, a typist's double space inside a sentence."""
    k, count = 0, len(flags)
    while k < count:
        if not flags[k] & GAP:
            k += 1
            continue
        line_start = text.rfind("\n", 0, starts[k]) + 1
        line_end = text.find("\n", starts[k])
        line_end = len(text) if line_end < 0 else line_end
        after = bisect_left(starts, line_end, k)
        if not is_row(text, line_start, line_end):
            for j in range(k, after):
                flags[j] &= ~GAP
        k = max(after, k + 1)


_OTHER_BREAKS = str.maketrans(dict.fromkeys("\r\v\f\x1c\x1d\x1e\x85\u2028\u2029", "\n"))


def _soft_wrap_tokens(tt: TokenText) -> frozenset[int]:
    """Tokens that follow a soft wrap of prose (`concord.text.layout.soft_wraps`) in `tt`."""
    text = tt.cleaned.text
    if not text.isascii() or "\r" in text:
        # every line break as a line feed, a CRLF's carriage return as a space (same length)
        text = text.replace("\r\n", " \n").translate(_OTHER_BREAKS)
    return frozenset(
        k
        for at in soft_wraps(text)
        if (k := bisect_left(tt.starts, at)) < len(tt) and tt.flags[k] & NEWLINE
    )


@dataclass(frozen=True)
class TokenText:
    """The canonical tokens of an original string, with their spans and flags.

    Tokens are stored joined by SEPARATOR (one string, cheap for long records);
    `offsets[i]` is where token i starts in `joined` (offsets[n] = len(joined) + 1)."""

    text: str
    cleaned: CleanText
    joined: str
    offsets: array[int]
    starts: array[int]  # in the clean text (`span` gives original offsets)
    ends: array[int]
    flags: bytearray

    @classmethod
    def of(cls, text: str) -> TokenText:
        cleaned = clean(text)
        build = _Builder(cleaned.text)
        for start, end in _blocks(cleaned.text):
            build.block(start, end)
        _without_false_gaps(cleaned.text, build.starts, build.flags)
        return cls(
            text, cleaned, build.joined(), build.offsets, build.starts, build.ends, build.flags
        )

    def __len__(self) -> int:
        return len(self.flags)

    def token(self, index: int) -> str:
        return self.joined[self.offsets[index] : self.offsets[index + 1] - 1]

    def tokens(self, start: int = 0, end: int | None = None) -> list[str]:
        end = len(self) if end is None else end
        if start >= end:
            return []
        return self.joined[self.offsets[start] : self.offsets[end] - 1].split(SEPARATOR)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Original [start, end) of tokens start..end-1 (end > start)."""
        return self.cleaned.original(self.starts[start], self.ends[end - 1])

    def covering(self, start: int, end: int) -> tuple[int, int]:
        """Token range [first, last) of the tokens inside original text[start:end] (partly
        inside counts); first == last when there are none."""
        clean_start, clean_end = self.cleaned.to_clean(start), self.cleaned.to_clean(end)
        return bisect_left(self.ends, clean_start + 1), bisect_left(self.starts, clean_end)

    def surface(self, start: int, end: int) -> str:
        """The original text of tokens start..end-1, whitespace collapsed ('' if none)."""
        if start >= end:
            return ""
        a, b = self.span(start, end)
        return " ".join(self.text[a:b].split())

    def parts(self, index: int) -> list[str]:
        """The case-folded parts of token `index` as written: "moderate-severe" gives
        ["moderate", "severe"], "left-\\nsided" gives ["left", "sided"]."""
        if not self.flags[index] & COMPOUND:
            return [self.token(index)]
        a, b = self.span(index, index + 1)
        return [p for p in _JOINERS.split(clean(self.text[a:b]).text.casefold()) if p]

    def find(self, needle: Sequence[str], limit: int) -> Iterator[int]:
        """Token indices where `needle` occurs as a contiguous run, first `limit` ones."""
        if not needle:
            return
        key = SEPARATOR + SEPARATOR.join(needle) + SEPARATOR
        at = self.joined.find(key)
        found = 0
        while at >= 0 and found < limit:
            yield bisect_left(self.offsets, at + 1)
            found += 1
            at = self.joined.find(key, at + 1)

    def glued(self, index: int) -> bool:
        """Whether token `index` follows the previous token with nothing between them."""
        return 0 < index < len(self) and not self.flags[index] & SPACE

    def is_word(self, index: int) -> bool:
        return bool(self.flags[index] & WORD)

    @cached_property
    def soft_wraps(self) -> frozenset[int]:
        """Tokens that follow a line break that is a soft wrap of prose, not the end of a
        row, item or field (the layout model, `concord.text.layout`)."""
        return _soft_wrap_tokens(self)
