"""Negation cues around a span of clinical text (a small NegEx-style rule set).

A cue negates what follows it within the same clause and a few words
(`negation_cue_before`), or what precedes it closely (`negation_cue_after`, for
"pneumonia - resolved", "MI ruled out"). Clauses end at sentence punctuation, a blank line,
a new line that does not continue the sentence (starts with anything but a lower-case
letter), and terminators such as "but" or "however". Pseudo-negations ("no change",
"not ruled out", "gram negative", "nil by mouth") are ignored.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache

PRE_WINDOW_WORDS = 6
"""A cue must be within this many words before the span."""
POST_WINDOW_WORDS = 3
"""A post-cue must be within this many words after the span."""
_LOOK_CHARS = 240

PRE_CUES: tuple[str, ...] = (
    "no history of",
    "no evidence of",
    "no signs of",
    "no sign of",
    "no known",
    "negative for",
    "ruled out",
    "rules out",
    "free of",
    "absence of",
    "not on",
    "denies",
    "denied",
    "deny",
    "without",
    "never",
    "not",
    "no",
    "nil",
    "none",
    "resolved",
)
POST_CUES: tuple[str, ...] = (
    "resolved",
    "ruled out",
    "excluded",
    "negative",
    "absent",
    "not seen",
    "not found",
    "not detected",
    "not present",
    "denied",
    "none",
)
PSEUDO_NEGATIONS: tuple[str, ...] = (
    "not ruled out",
    "cannot be ruled out",
    "can not be ruled out",
    "not been ruled out",
    "not excluded",
    "cannot be excluded",
    "no change",
    "no increase",
    "no further",
    "not only",
    "not certain",
    "not sure",
    "gram negative",
    "nil by mouth",
    "without difficulty",
    "without stopping",
)
TERMINATORS: tuple[str, ...] = (
    "but",
    "however",
    "although",
    "though",
    "except",
    "apart from",
    "aside from",
    "yet",
    "whereas",
    "nevertheless",
)


def _alternation(phrases: tuple[str, ...]) -> re.Pattern[str]:
    ordered = sorted(phrases, key=len, reverse=True)
    body = "|".join(r"\s+".join(map(re.escape, p.split())) for p in ordered)
    return re.compile(rf"(?<![\w-])(?:{body})(?![\w-])", re.IGNORECASE)


_PRE = _alternation(PRE_CUES)
_POST = _alternation(POST_CUES)
_ANY = _alternation(tuple(set(PRE_CUES) | set(POST_CUES)))
_PSEUDO = _alternation(PSEUDO_NEGATIONS)
_TERMINATOR = _alternation(TERMINATORS)
_BOUNDARY = re.compile(r"[.!?;](?=\s|$)|\n[ \t]*\n|\n(?=[ \t]*[^a-z\s])|\f")
_WORD = re.compile(r"\S+")
_PHRASE_END = re.compile(r"[,;:.!?](?=\s|$)|\n")


def _blank_pseudo(text: str) -> str:
    return _PSEUDO.sub(lambda m: " " * len(m.group()), text)


def _cue_text(match: re.Match[str]) -> str:
    return " ".join(match.group().lower().split())


def negation_cue_before(text: str, start: int) -> str | None:
    """The negation cue governing text[start:], if one stands in the same clause within
    PRE_WINDOW_WORDS words before `start`; returned lower-case ('no history of')."""
    lo = max(0, start - _LOOK_CHARS)
    prefix = text[lo:start]
    # look one character past `start`: whether a newline ends the clause depends on it
    scan = text[lo : start + 1]
    boundaries = [m for m in _BOUNDARY.finditer(scan) if m.end() <= len(prefix)]
    if boundaries:
        prefix = prefix[boundaries[-1].end() :]
    words = list(_WORD.finditer(prefix))
    if len(words) > PRE_WINDOW_WORDS:
        prefix = prefix[words[-PRE_WINDOW_WORDS].start() :]
    terminators = list(_TERMINATOR.finditer(prefix))
    if terminators:
        prefix = prefix[terminators[-1].end() :]
    cues = list(_PRE.finditer(_blank_pseudo(prefix)))
    return _cue_text(cues[-1]) if cues else None


def negation_cue_after(text: str, end: int) -> str | None:
    """A post-negation cue ('resolved', 'ruled out', 'negative' ...) within
    POST_WINDOW_WORDS words after `end` in the same clause, lower-case, else None."""
    suffix = text[end : end + _LOOK_CHARS]
    boundary = _BOUNDARY.search(suffix)
    if boundary:
        suffix = suffix[: boundary.start()]
    words = list(_WORD.finditer(suffix))
    if len(words) > POST_WINDOW_WORDS:
        suffix = suffix[: words[POST_WINDOW_WORDS - 1].end()]
    terminator = _TERMINATOR.search(suffix)
    if terminator:
        suffix = suffix[: terminator.start()]
    cue = _POST.search(_blank_pseudo(suffix))
    return _cue_text(cue) if cue else None


def negation_cues_in(text: str) -> Counter[str]:
    """Every negation cue (pre or post) inside `text`, counted, pseudo-negations excluded."""
    return Counter(_cue_text(m) for m in _ANY.finditer(_blank_pseudo(text)))


def negation_cue_leading(text: str) -> str | None:
    """A negation cue in the opening phrase of `text` (before the first , ; : or sentence
    end, and within PRE_WINDOW_WORDS words): the extract carries its own negation.
    Lower-case, else None."""
    words = list(_WORD.finditer(text))
    head = text[: words[PRE_WINDOW_WORDS - 1].end()] if len(words) > PRE_WINDOW_WORDS else text
    head = _PHRASE_END.split(head, maxsplit=1)[0]
    cue = _PRE.search(_blank_pseudo(head))
    return _cue_text(cue) if cue else None


@cache
def _pre_cues_and(extra_cues: tuple[str, ...]) -> re.Pattern[str]:
    return _alternation(PRE_CUES + extra_cues)


def negated_words(text: str, *, words: int, extra_cues: tuple[str, ...] = ()) -> list[str]:
    """What each negation cue in `text` governs, read forwards: the `words` words after it
    ("no bleomycin exposure" -> "bleomycin exposure"), one string a cue, empty strings left
    out. `extra_cues` adds cues of the caller's own; pseudo-negations are not cues. The caller
    splits `text` into clauses first."""
    found = []
    for cue in _pre_cues_and(extra_cues).finditer(_blank_pseudo(text)):
        after = " ".join(text[cue.end() :].split()[:words])
        if after:
            found.append(after)
    return found
