"""Punctuation a dictation left as words: "... no heart failure period his wife says ...",
"new paragraph", "comma", "full stop", "next line".

Speech recognition and transcriptionists sometimes keep the dictated punctuation as words.
A reader reads them as the marks they stand for, so "no history of heart attack or stroke
period no heart failure period" is two sentences, and a negation does not run on into the
next one. `dictation_spans` gives each such word and the mark it stands for; "period" is
read as a full stop only where it cannot be the noun ("the post-operative period", "a period
of", "menstrual period").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_MARKS = {
    "period": ".",
    "full stop": ".",
    "fullstop": ".",
    "comma": ",",
    "colon": ":",
    "semicolon": ";",
    "semi-colon": ";",
    "new paragraph": "\n\n",
    "next paragraph": "\n\n",
    "new line": "\n",
    "next line": "\n",
}
_WORD_RE = re.compile(
    r"(?<![A-Za-z\-])(?:new\s+paragraph|next\s+paragraph|new\s+line|next\s+line|full\s+stop|"
    r"fullstop|period|comma|semi-?colon|colon)(?![A-Za-z\-])",
    re.IGNORECASE,
)
_NOUN_BEFORE = re.compile(
    r"(?<![A-Za-z])(?:the|a|an|this|that|each|every|same|any|whole|entire|short|long|brief|"
    r"extended|prolonged|initial|early|late|recovery|refractory|incubation|waiting|washout|"
    r"wash-out|follow-up|study|time|trial|grace|window|menstrual|last|post-?operative|"
    r"peri-?operative|post-?op|peri-?op|intra-?operative|neonatal|postnatal|postpartum|"
    r"post-?partum|puerperal|perinatal|latent|asymptomatic|symptom-free|stable|observation|"
    r"induction|maintenance|treatment|fasting|transition|two-week|one-week|six-week|"
    r"three-month|\d+-(?:day|week|month|year))\s+$",
    re.IGNORECASE,
)
_NOUN_AFTER = re.compile(r"\s+(?:of|in|when|during|before|after|between|from)(?![A-Za-z])", re.I)
_ORGAN_BEFORE = re.compile(
    r"(?<![A-Za-z])(?:colon|sigmoid|transverse|ascending|descending)\s*$", re.I
)


@dataclass(frozen=True)
class DictatedMark:
    """A dictated punctuation word at text[start:end] and the mark it stands for."""

    start: int
    end: int
    mark: str


def dictation_spans(text: str) -> list[DictatedMark]:
    """Every dictated punctuation word in `text` that stands for a mark, in order."""
    out: list[DictatedMark] = []
    for m in _WORD_RE.finditer(text):
        word = " ".join(m.group().lower().split())
        before = text[max(0, m.start() - 40) : m.start()]
        if word == "period" and (_NOUN_BEFORE.search(before) or _NOUN_AFTER.match(text, m.end())):
            continue  # "the post-operative period", "a period of"
        if word in ("colon", "comma", "semicolon", "semi-colon") and not _between_words(text, m):
            continue
        if word == "colon" and (
            _ORGAN_BEFORE.search(before)
            or _NOUN_AFTER.match(text, m.end())
            or _NOUN_BEFORE.search(before)
        ):
            continue  # "sigmoid colon", "cancer of the colon"
        mark = _MARKS[word]
        if mark in ".,:;":
            out.append(DictatedMark(_trim_space(text, m.start()), m.end(), mark))
        else:
            out.append(DictatedMark(m.start(), m.end(), mark))
    return out


def _between_words(text: str, m: re.Match[str]) -> bool:
    """A punctuation word is dictated when words stand on both sides of it in lower case."""
    left = re.search(r"[a-z0-9]\s+$", text[max(0, m.start() - 3) : m.start()])
    right = re.match(r"\s+[a-z]", text[m.end() : m.end() + 3])
    return left is not None and right is not None


def _trim_space(text: str, start: int) -> int:
    """Include the space before a mark's word, so "stroke period" reads "stroke."."""
    while start > 0 and text[start - 1] in " \t":
        start -= 1
    return start
