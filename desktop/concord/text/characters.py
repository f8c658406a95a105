"""The characters a reader does not tell apart: one table for every reader of record text.

A clinician reading "K+ 6.3" does not see whether the dash in "25–30" is an en dash or a
hyphen, whether the quote marks are typographic, whether a zero-width space sits inside a
number or whether the "К" is Cyrillic. Every reader in Concord that compares text folds
the same characters, from this table:

* `DASHES` (hyphens, en and em dashes, the minus sign, small and full-width hyphen-minus)
  read as "-";
* `SINGLE_QUOTES` and `DOUBLE_QUOTES` read as ' and ";
* `LINE_BREAKS` (besides "\\n" and "\\r"): vertical tab, form feed, the ASCII separators,
  NEL and the Unicode line and paragraph separators end a line;
* `SUPERSCRIPT_DIGITS` and `SUPERSCRIPT_SIGNS` are an exponent's digits and signs;
* `LOOK_ALIKES`: Cyrillic and Greek letters that render as a Latin letter (the Greek letters
  clinicians use as symbols, µ α β γ δ, are not among them);
* `MULTIPLICATION_SIGNS` and `SPELLED_SIGNS`: signs plain text spells otherwise ("x",
  ">=", "<=");
* invisible characters (`is_invisible`: Unicode format characters, zero-width spaces and
  joiners, soft hyphen, BOM, bidirectional controls) are not seen.

What each reader makes of the folded text is its own rule, documented where it lives:

* The record screen (`concord.screen.reading`) reads what a person sees and keeps the
  offsets back to the record: look-alikes read as Latin letters, an exponent reads with a
  caret ("10⁹" reads "10^9", "cm²" reads "cm^2", as a lab system types it), "×" and "≥"
  stay as they are (its value patterns read them).
* Evidence verification (`concord.evidence.canonical`) compares tokens: NFKC, then an
  exponent's caret is dropped, so "10⁹", "10^9" and "109" are the same token "109" (a quote
  may spell an exponent either way, and the comparison is of words, not of their typing);
  "×" reads "x" and "≥" reads ">="; look-alikes are *not* folded (a quote that swaps a
  letter for a look-alike is not the same words).
* User names (`concord.accounts.names`) refuse invisible characters and compare names by
  Unicode's confusables skeleton, of which `LOOK_ALIKES` is a subset (a test keeps them in
  agreement).
"""

from __future__ import annotations

import unicodedata

DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\ufe58\ufe63\uff0d"
"""Hyphen, non-breaking hyphen, figure dash, en dash, em dash, horizontal bar, hyphen
bullet, minus sign, small em dash, small hyphen-minus, full-width hyphen-minus: read "-"."""
MINUS_SIGNS = "-\u2212"
"""What may stand for a minus sign before a number (besides a superscript minus)."""
APOSTROPHES = "\u2019\u02bc"
"""Right single quotation mark and modifier letter apostrophe: an apostrophe in a word
("O’Neil", "Crohn’s"), also read "'"."""
SINGLE_QUOTES = "\u2018\u201a\u201b\u2032\u2035\uff07\u00b4`" + APOSTROPHES
"""Typographic single quotes, prime, reversed prime, full-width apostrophe, acute accent,
grave accent (a backtick) and the apostrophes: read "'"."""
DOUBLE_QUOTES = "\u201c\u201d\u201e\u201f\u2033\u2036\uff02\u00ab\u00bb\u301d\u301e"
"""Typographic double quotes, double prime, full-width quote, guillemets, CJK double prime
quotes: read '"'."""
LINE_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
"""What ends a line besides "\\n" and "\\r": vertical tab, form feed, the file, group and
record separators, next line (NEL), line separator, paragraph separator."""
SUPERSCRIPT_DIGITS: dict[str, str] = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789", strict=True))
SUPERSCRIPT_SIGNS: dict[str, str] = {"⁺": "+", "⁻": "-", "⁼": "="}
LOOK_ALIKES: dict[str, str] = dict(
    zip(
        # Cyrillic capitals and small letters, then Greek, that render as Latin letters
        "АВЕЅІЈКМНОРСТХУаеіјорсхуѕԁԛԝ" + "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧονκι",
        "ABESIJKMHOPCTXYaeijopcxysdqw" + "ABEZHIKMNOPTYXovki",
        strict=True,
    )
)
LOOK_ALIKE_SCRIPTS = frozenset({"LATIN", "GREEK", "CYRILLIC"})
"""Scripts whose letters imitate each other."""
MULTIPLICATION_SIGNS = "\u00d7\u2715"
"""Multiplication sign and multiplication X: plain text writes "x"."""
SPELLED_SIGNS: dict[str, str] = {"\u2265": ">=", "\u2264": "<=", "\u2a7e": ">=", "\u2a7d": "<="}
"""Signs written as one character where plain text spells them with two."""
SOFT_HYPHEN = "\u00ad"
"""Invisible, except where it ends a line in the middle of a word (then it is a hyphen)."""
MIRRORED: dict[str, str] = dict(zip("()<>[]{}≤≥«»", ")(><][}{≥≤»«", strict=True))
"""Characters a right-to-left run shows as their mirror image."""
INVISIBLE_CATEGORY = "Cf"
"""Unicode's format characters: zero-width spaces and joiners, soft hyphen, word joiner, BOM,
bidirectional marks, embeddings, overrides and isolates."""

PUNCTUATION: dict[str, str] = {
    **dict.fromkeys(DASHES, "-"),
    **dict.fromkeys(SINGLE_QUOTES, "'"),
    **dict.fromkeys(DOUBLE_QUOTES, '"'),
}
"""Every dash and quote variant to its ASCII form: the part of the fold all readers share."""


def is_invisible(char: str) -> bool:
    """Whether `char` is a format character a reader does not see (`INVISIBLE_CATEGORY`)."""
    return unicodedata.category(char) == INVISIBLE_CATEGORY
