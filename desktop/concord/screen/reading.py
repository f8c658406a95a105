"""What a reader sees: the text the screen matches, mapped back to the record's own text.

A record can hold characters that a person never sees or sees as something else: zero-width
spaces and joiners, soft hyphens, byte-order marks, bidirectional controls, full-width
digits and signs, superscripts, letters from another script that look Latin (Cyrillic "К"),
compatibility forms (NFKC: "㎎", "ﬁ"), Windows line ends. `reading_text` builds the text as
it reads on screen, and an `OffsetMap` that turns any span of it back into a span of the
original, so that `original[start:end]` is still the evidence.

Which characters fold is one table, `concord.text.characters`, shared with evidence
verification and user names; the screen's own reading of it:

* Invisible format characters (Unicode category Cf: zero-width space/joiners, soft hyphen,
  word joiner, BOM, bidi marks, embeddings and isolates) are dropped, so "K<ZWSP>+" reads
  "K+" and "4<ZWSP>5" reads 45.
* A right-to-left override (U+202E ... U+202C or end of line) is shown reversed, and its
  mirrored characters swapped ("<" shows as ">"): the text a clinician sees on screen.
* Any decimal digit (full-width, Arabic-Indic ...) reads as its ASCII digit; superscript
  digits read as an exponent with a caret ("10⁹" -> "10^9", "cm²" -> "cm^2": the screen's
  value patterns read the caret; the verifier drops it instead), superscript signs as signs.
* Dashes and minus signs read "-", typographic quotes as ASCII quotes, every space
  separator as a space, line and paragraph separators and CR as a line feed.
* Look-alike Cyrillic and Greek capitals and small letters read as the Latin letter they
  look like; the Greek letters clinicians use as symbols (µ, α, β, γ, δ ...) stay.
* Everything else goes through NFKC ("Ｋ＋" -> "K+", "×" and "≥" stay, "µ" -> "μ").

Dotted acronyms ("L.R.T.I.") read without their dots; numbers dictated as words read as
digits ("a potassium of six point two" reads "a potassium of 6.2",
`concord.text.numwords`); punctuation a dictation left as words reads as the mark
("... or stroke period no heart failure" reads "... or stroke. no heart failure",
`concord.text.dictation`); lab fishbones read with their labels ("CBC: 6.2 > 12.9/38.4 < 64"
reads "WBC 6.2, Hb 12.9, Hct 38.4, Plt 64", `concord.text.shorthand`); a line break where
prose only ran out of width reads as a space ("Her potassium was" / "6.6 mmol/L" is one
sentence; `concord.text.layout` - table rows,
list items and fields keep their breaks); and a word one typing slip away from a word of
the screen's vocabulary reads as that word (see `SpellingVocabulary`).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from concord.text.characters import (
    LINE_BREAKS,
    LOOK_ALIKES,
    MIRRORED,
    PUNCTUATION,
    SUPERSCRIPT_DIGITS,
    SUPERSCRIPT_SIGNS,
    is_invisible,
)
from concord.text.dictation import dictation_spans
from concord.text.layout import soft_wraps
from concord.text.numwords import number_word_spans
from concord.text.shorthand import shorthand_spans

_ASCII_FOLDED = "".join(sorted(c for c in (*PUNCTUATION, *LINE_BREAKS) if c.isascii()))
"""ASCII characters the table folds (a backtick, vertical tab, form feed, separators)."""
_RLO, _LRO, _PDF = "\u202e", "\u202d", "\u202c"
_OVERRIDE_RE = re.compile(f"{_RLO}([^\n{_PDF}]*)(?:{_PDF}|(?=\n)|$)")
_SPECIAL_RE = re.compile(rf"\r\n?|[^\x00-\x7f]|[{re.escape(_ASCII_FOLDED)}]")
_ASCII_SPECIAL_RE = re.compile(rf"[\r{re.escape(_ASCII_FOLDED)}]")
_SUPERSCRIPT_RUN_RE = re.compile(f"[{''.join((*SUPERSCRIPT_DIGITS, *SUPERSCRIPT_SIGNS))}]+")
_DOTTED_ACRONYM_RE = re.compile(r"(?<![A-Za-z0-9.])(?:[A-Z]\.){2,}(?![A-Za-z0-9])")
_WORD_RE = re.compile(r"[A-Za-z]{6,}")
_PAIR_RE = re.compile(r"(?<![A-Za-z0-9'])([A-Za-z]+)[ -](?=([A-Za-z]+)(?![A-Za-z0-9']))")
"""Two words with one space or hyphen between: the match holds the first and the separator,
the second word is read ahead (so that every word starts a pair)."""
_LETTERS_RE = re.compile(r"(?<![A-Za-z0-9'.\-])[A-Za-z](?:[ ][A-Za-z])+(?![A-Za-z0-9'\-])")
SPELLED_MAX = 6  # the longest abbreviation read from dictated letters ("A B V D")
MEMO_LIMIT = 100_000  # words remembered by a spelling vocabulary between clears


@lru_cache(maxsize=4096)
def _fold(char: str) -> str:
    """What one character reads as (without context)."""
    if char in LOOK_ALIKES:
        return LOOK_ALIKES[char]
    if char in PUNCTUATION:
        return PUNCTUATION[char]
    if char in LINE_BREAKS:
        return "\n"
    if is_invisible(char):
        return ""
    category = unicodedata.category(char)
    if category == "Zs":
        return " "
    if category == "Nd":
        return str(unicodedata.decimal(char))
    folded = unicodedata.normalize("NFKC", char)
    if folded == char:
        return char
    return "".join(_fold(c) if c != char else c for c in folded)


@dataclass(frozen=True)
class _Edit:
    start: int  # in the original
    end: int
    text: str  # what text[start:end] reads as


class OffsetMap:
    """Maps spans of a read text back to the original it was read from.

    The read text is cut into pieces; each piece either copies the original character for
    character (`exact`) or replaces a run of it (a dropped invisible character, a reversed
    override, an expanded ligature). A span inside a replaced piece maps to the whole run.
    """

    def __init__(self, read_starts: list[int], original_starts: list[int], exact: list[bool]):
        self._read = read_starts  # piece i starts here in the read text; sentinel at the end
        self._orig = original_starts  # ...and here in the original
        self._exact = exact

    @classmethod
    def identity(cls, length: int) -> OffsetMap:
        return cls([0, length], [0, length], [True])

    def start(self, pos: int) -> int:
        """The original offset where a span starting at read offset `pos` starts."""
        i = max(0, bisect_right(self._read, pos) - 1)
        if i >= len(self._exact):
            return self._orig[-1]
        if self._exact[i]:
            return self._orig[i] + (pos - self._read[i])
        return self._orig[i]

    def end(self, pos: int) -> int:
        """The original offset where a span ending at read offset `pos` ends."""
        if pos <= 0:
            return self.start(0)
        i = max(0, bisect_right(self._read, pos - 1) - 1)
        if i >= len(self._exact):
            return self._orig[-1]
        if self._exact[i]:
            return self._orig[i] + (pos - self._read[i])
        return self._orig[i + 1]

    def span(self, start: int, end: int) -> tuple[int, int]:
        if end <= start:
            at = self.start(start)
            return at, at
        return self.start(start), self.end(end)


@dataclass(frozen=True)
class ReadingText:
    """`text` is what `original` reads as; `offsets` maps spans of `text` back."""

    original: str
    text: str
    offsets: OffsetMap

    def span(self, start: int, end: int) -> tuple[int, int]:
        return self.offsets.span(start, end)


def _character_edits(original: str) -> list[_Edit]:
    edits: list[_Edit] = []
    overrides = (
        [(m.start(), m.end(), m.group(1)) for m in _OVERRIDE_RE.finditer(original)]
        if _RLO in original
        else []
    )
    for start, end, inner in overrides:
        shown = "".join(MIRRORED.get(c, c) for c in reversed(inner))
        edits.append(_Edit(start, end, "".join(_fold(c) for c in shown)))
    superscripts = {m.start(): m for m in _SUPERSCRIPT_RUN_RE.finditer(original)}
    skip_until = 0
    for m in _SPECIAL_RE.finditer(original):
        pos = m.start()
        if pos < skip_until or any(s <= pos < e for s, e, _ in overrides):
            continue
        if pos in superscripts:
            run = superscripts[pos]
            digits = "".join(
                SUPERSCRIPT_DIGITS.get(c, SUPERSCRIPT_SIGNS.get(c, c)) for c in run.group()
            )
            has_digit = any(c in SUPERSCRIPT_DIGITS for c in run.group())
            edits.append(_Edit(pos, run.end(), ("^" if has_digit else "") + digits))
            skip_until = run.end()
            continue
        written = m.group()
        if written.startswith("\r"):
            edits.append(_Edit(pos, m.end(), "\n"))
            continue
        read = _fold(written)
        if read != written:
            edits.append(_Edit(pos, m.end(), read))
    edits.sort(key=lambda e: e.start)
    return edits


def _apply(original: str, edits: Iterable[_Edit]) -> ReadingText:
    parts: list[str] = []
    read_starts: list[int] = []
    orig_starts: list[int] = []
    exact: list[bool] = []
    read_pos = 0
    orig_pos = 0

    def piece(orig_start: int, text: str, is_exact: bool) -> None:
        nonlocal read_pos
        if is_exact and exact and exact[-1]:
            pass  # extends the previous exact piece
        else:
            read_starts.append(read_pos)
            orig_starts.append(orig_start)
            exact.append(is_exact)
        parts.append(text)
        read_pos += len(text)

    for edit in edits:
        if edit.start < orig_pos:
            continue  # overlaps an earlier edit (cannot happen with sorted disjoint edits)
        if edit.start > orig_pos:
            piece(orig_pos, original[orig_pos : edit.start], True)
        same_length = len(edit.text) == edit.end - edit.start
        piece(edit.start, edit.text, same_length)
        orig_pos = edit.end
    if orig_pos < len(original) or not exact:
        piece(orig_pos, original[orig_pos:], True)
    read_starts.append(read_pos)
    orig_starts.append(len(original))
    return ReadingText(original, "".join(parts), OffsetMap(read_starts, orig_starts, exact))


def _compose(first: ReadingText, edits: list[_Edit]) -> ReadingText:
    """Apply `edits` (offsets in `first.text`) on top of `first`, mapping to the original."""
    if not edits:
        return first
    lifted = [_Edit(*first.span(e.start, e.end), e.text) for e in edits]
    # Rebuild from the original: character edits outside the lifted ranges, then these.
    base = _character_edits(first.original)
    merged = [e for e in base if not any(le.start <= e.start < le.end for le in lifted)]
    merged.extend(lifted)
    merged.sort(key=lambda e: e.start)
    return _apply(first.original, merged)


class SpellingVocabulary:
    """Words of the screen's vocabulary, found again when written with one typing slip,
    split in two by speech recognition, or spelled out letter by letter.

    A word of at least `min_length` letters that is not itself a known word and is one
    edit (a letter dropped, added, changed, or two neighbours swapped) away from exactly
    one vocabulary word reads as that word: "pnuemonia", "pneumonai", "bleomicin",
    "thrombocytopeania". Words listed in `keep` are never corrected (real words that happen
    to be one edit away, like "injection" from "infection").

    Two words that together make a vocabulary word read as that word when the second is
    no word of its own ("gastro paresis", "a chalasia", "thrombo cytopenia"; never "a
    septic joint" or "a typical angina": `keep` lists real words that are not joined).
    Letters dictated one by one read as the abbreviation they spell when it is one of the
    vocabulary's ("I N R", "A B V D", "e G F R"; two letters only in capitals, "D V T").
    """

    def __init__(
        self,
        words: Iterable[str],
        keep: Iterable[str] = (),
        min_length: int = 7,
        abbreviations: Iterable[str] = (),
    ):
        words = [w for w in words if w]
        self.min_length = min_length
        self._words = {w.lower() for w in words if len(w) >= min_length and w.isalpha()}
        self._keep = {w.lower() for w in keep}
        self._known = {w.lower() for w in words if w.isalpha()} | self._keep
        self.heads = frozenset(w[:i] for w in self._words for i in range(1, len(w) - 1))
        """What the first of two dictated pieces of a vocabulary word can be."""
        self._spelled: dict[str, str] = {}
        self._forms = {a for a in abbreviations if a.isalpha() and 2 <= len(a) <= SPELLED_MAX}
        for form in (*sorted(self._forms), *words):
            if form.isalpha() and 2 <= len(form) <= SPELLED_MAX:
                self._spelled.setdefault(form.lower(), form)
        self._by_delete: dict[str, set[str]] = {}
        for word in self._words:
            for variant in _deletes(word) | {word}:
                self._by_delete.setdefault(variant, set()).add(word)
        self._affixes = {w[:3] for w in self._words} | {w[-3:] for w in self._words}
        self._memo: dict[str, str | None] = {}

    def correct(self, word: str) -> str | None:
        """The vocabulary word `word` is a slip for, in its case, or None."""
        if word in self._memo:
            return self._memo[word]
        if len(self._memo) > MEMO_LIMIT:
            self._memo.clear()
        fixed = self._correct(word)
        self._memo[word] = fixed
        return fixed

    def _correct(self, word: str) -> str | None:
        lower = word.lower()
        if len(lower) < self.min_length or lower in self._words or lower in self._keep:
            return None
        if lower[:3] not in self._affixes and lower[-3:] not in self._affixes:
            return None  # one edit keeps either the first or the last three letters
        candidates: set[str] = set()
        for variant in _deletes(lower) | {lower}:
            candidates |= self._by_delete.get(variant, set())
        matches = sorted(c for c in candidates if _one_edit(lower, c))
        if len(matches) != 1:
            return None
        return _same_case(word, matches[0])

    def joined(self, first: str, second: str) -> str | None:
        """The vocabulary word two dictated pieces make ("gastro" + "paresis"), or None:
        only when the second piece is no known word of its own."""
        lower = (first + second).lower()
        if len(lower) < self.min_length or second.lower() in self._known:
            return None
        if lower in self._words:
            return _same_case(first, lower)
        return None

    def spelled(self, letters: list[str]) -> str | None:
        """The abbreviation dictated letters spell ("I N R" -> "INR"), or None."""
        if len(letters) < 2 or (len(letters) == 2 and not all(c.isupper() for c in letters)):
            return None
        written = "".join(letters)
        return written if written in self._forms else self._spelled.get(written.lower())


def _deletes(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


def _one_edit(a: str, b: str) -> bool:
    """True when `a` and `b` differ by one insertion, deletion, substitution or swap."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diffs = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diffs) == 1:
            return True
        return (
            len(diffs) == 2
            and diffs[1] == diffs[0] + 1
            and a[diffs[0]] == b[diffs[1]]
            and a[diffs[1]] == b[diffs[0]]
        )
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long[i]:
        i += 1
    return short[i:] == long[i + 1 :]


def _same_case(written: str, word: str) -> str:
    if written.isupper():
        return word.upper()
    if written[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _indent_end(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    return pos


def _with_spaces(text: str, positions: list[int]) -> str:
    """`text` with the characters at `positions` (line feeds) read as spaces."""
    if not positions:
        return text
    chars = list(text)
    for at in positions:
        chars[at] = " "
    return "".join(chars)


class _Taken:
    """Which characters of a text an edit already covers (one flag a character, so that
    each question costs its span's length, not the number of edits)."""

    def __init__(self, length: int, edits: Iterable[_Edit]) -> None:
        self._flags = bytearray(length + 1)
        for e in edits:
            self.add(e.start, e.end)

    def add(self, start: int, end: int) -> None:
        self._flags[start:end] = b"\x01" * (end - start)

    def any(self, start: int, end: int) -> bool:
        return 1 in self._flags[start:end]


def _dictated_words(text: str, spelling: SpellingVocabulary, taken: _Taken) -> list[_Edit]:
    """Letters dictated one by one ("I N R"), then words split in two by speech recognition
    ("gastro paresis"), read as the vocabulary word they stand for (`SpellingVocabulary`);
    never inside a span another reading already took. Marks what it takes in `taken`."""
    edits: list[_Edit] = []

    def take(start: int, end: int, word: str) -> None:
        edits.append(_Edit(start, end, word))
        taken.add(start, end)

    for m in _LETTERS_RE.finditer(text):
        word = spelling.spelled(m.group().split(" "))
        if word is not None and not taken.any(m.start(), m.end()):
            take(m.start(), m.end(), word)
    shortest, heads = spelling.min_length, spelling.heads
    joined_until = -1  # a piece joins one word only
    for pair in _PAIR_RE.finditer(text):
        first, second = pair.group(1), pair.group(2)
        if len(first) + len(second) < shortest or first.lower() not in heads:
            continue
        start = pair.start()
        end = pair.end() + len(second)
        if start < joined_until:
            continue
        word = spelling.joined(first, second)
        if word is not None and not taken.any(start, end):
            take(start, end, word)
            joined_until = end
    return edits


def fold_text(text: str) -> str:
    """`text` as it reads (no offsets): for lexicon terms, unit forms and cue words."""
    return reading_text(text).text


def reading_text(original: str, spelling: SpellingVocabulary | None = None) -> ReadingText:
    """What `original` reads as, with the map back to it."""
    if original.isascii() and not _ASCII_SPECIAL_RE.search(original):
        read = ReadingText(original, original, OffsetMap.identity(len(original)))
    else:
        read = _apply(original, _character_edits(original))
    word_edits = [
        _Edit(m.start(), m.end(), m.group().replace(".", ""))
        for m in _DOTTED_ACRONYM_RE.finditer(read.text)
    ]
    wraps = soft_wraps(read.text)
    flowing = _with_spaces(read.text, wraps)  # prose read on, for words split by a wrap
    panels = [_Edit(p.start, p.end, p.labelled) for p in shorthand_spans(flowing)]
    marks = [_Edit(d.start, d.end, d.mark) for d in dictation_spans(flowing)]
    numbers = [
        _Edit(n.start, n.end, n.digits)
        for n in number_word_spans(flowing)
        if not any(e.start < n.end and n.start < e.end for e in (*panels, *marks))
    ]
    word_edits.extend(panels)
    word_edits.extend(numbers)
    taken = [(e.start, e.end) for e in (*panels, *numbers)]
    word_edits.extend(m for m in marks if not any(s < m.end and m.start < e for s, e in taken))
    word_edits.extend(
        _Edit(at, _indent_end(read.text, at + 1), " ")  # the next line's indent goes too
        for at in wraps
        if not any(e.start <= at < e.end for e in word_edits)
    )
    if spelling is not None:
        covered = _Taken(len(read.text), word_edits)
        word_edits.extend(_dictated_words(read.text, spelling, covered))
        for m in _WORD_RE.finditer(read.text):
            if covered.any(m.start(), m.start() + 1):
                continue
            fixed = spelling.correct(m.group())
            if fixed is not None:
                word_edits.append(_Edit(m.start(), m.end(), fixed))
    word_edits.sort(key=lambda e: e.start)
    return _compose(read, word_edits)
