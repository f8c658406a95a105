"""Deterministic sentence splitting of an answer, with character spans.

Greetings, acknowledgements and follow-up questions stay sentences of their own ("Hi
there!", "Sorry to hear that.", "Anything else?"): they are what Conversational
Faithfulness must not penalise, so they have to be seen and judged. A sentence ends at
. ! ? (and runs of them, with closing quotes or brackets) followed by whitespace, or at a
line break; not after a known abbreviation, an initial, or inside a number like 2.5.
Every sentence satisfies `answer[start:end] == text`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SPLITTER_VERSION = "astrid-sentences/1"

ABBREVIATIONS = frozenset(
    {
        "dr",
        "mr",
        "mrs",
        "ms",
        "prof",
        "sr",
        "jr",
        "st",
        "vs",
        "etc",
        "eg",
        "e.g",
        "ie",
        "i.e",
        "approx",
        "appt",
        "no",
        "tel",
        "dept",
        "min",
        "mins",
        "hr",
        "hrs",
        "wk",
        "wks",
        "mg",
        "ml",
        "am",
        "a.m",
        "pm",
        "p.m",
        "fig",
        "ref",
        "nb",
    }
)
"""Words after which a full stop does not end a sentence (compared lower-case, no dot)."""
MAY_END_SENTENCE = frozenset({"etc", "no", "am", "a.m", "pm", "p.m"})
"""Abbreviations that do end a sentence when a capitalised word follows ("... 3 p.m. Thanks")."""

_END = re.compile(r"[.!?\u2026]+[\"'\u2019\u201d)\]]*(?=\s|$)|\n+")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")


@dataclass(frozen=True)
class Sentence:
    index: int
    start: int
    end: int
    text: str


def _is_abbreviation(answer: str, dot: int) -> bool:
    """True when the '.' at `dot` closes an abbreviation or an initial (e.g. "Dr.", "J.")."""
    match = _WORD_BEFORE.search(answer[:dot])
    if match is None:
        return False
    word = match.group(1).lower().rstrip(".")
    if word in ABBREVIATIONS:
        return True
    return len(word) == 1 and word.isalpha() and match.group(1)[0].isupper()


def _cut_points(answer: str) -> list[int]:
    cuts: list[int] = []
    for match in _END.finditer(answer):
        token = match.group(0)
        if token.startswith("\n"):
            cuts.append(match.start())
            continue
        if token == "." and _is_abbreviation(answer, match.start()):
            before = _WORD_BEFORE.search(answer[: match.start()])
            word = before.group(1).lower().rstrip(".") if before else ""
            following = answer[match.end() :].lstrip()
            if not (word in MAY_END_SENTENCE and following[:1].isupper()):
                continue
        cuts.append(match.end())
    return cuts


def split_sentences(answer: str) -> list[Sentence]:
    """The answer's sentences in order, stripped, with spans; empty pieces are dropped."""
    sentences: list[Sentence] = []
    start = 0
    for cut in [*_cut_points(answer), len(answer)]:
        piece = answer[start:cut]
        stripped = piece.strip()
        if stripped:
            lead = len(piece) - len(piece.lstrip())
            s = start + lead
            sentences.append(Sentence(len(sentences), s, s + len(stripped), stripped))
        start = max(start, cut)
    return sentences
