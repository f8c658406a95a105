"""What the negation cues in a short text govern, read forwards (a small NegEx-style rule).

The scorecard asks it of a brief's bullet: "no bleomycin exposure" denies what a gate's
terms name instead of addressing it (`concord.adjudication.gates`). The cue words are the
context file's (`resources/lexicon/context.json`, read through
`concord.text.context_file.negation_words`), the ones the record screen and the verifier
read, so a cue a clinician adds there reaches all three. The scope rule is this module's: a
cue governs the few words after it; pseudo-negations ("no change", "not ruled out", "gram
negative", "nil by mouth") are not cues; the caller splits the text into clauses first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from concord.text.context_file import NegationWords, negation_words


def _alternation(phrases: Iterable[str]) -> re.Pattern[str]:
    ordered = sorted(set(phrases), key=len, reverse=True)
    body = "|".join(r"\s+".join(map(re.escape, p.split())) for p in ordered) or r"(?!x)x"
    return re.compile(rf"(?<![\w-])(?:{body})(?![\w-])", re.IGNORECASE)


@cache
def _pseudo(words: NegationWords) -> re.Pattern[str]:
    return _alternation(words.pseudo)


@cache
def _before_and(words: NegationWords, extra_cues: tuple[str, ...]) -> re.Pattern[str]:
    return _alternation((*words.before, *extra_cues))


def negated_words(text: str, *, words: int, extra_cues: tuple[str, ...] = ()) -> list[str]:
    """What each negation cue in `text` governs, read forwards: the `words` words after it
    ("no bleomycin exposure" -> "bleomycin exposure"), one string a cue, empty strings left
    out. `extra_cues` adds cues of the caller's own; pseudo-negations are not cues. The caller
    splits `text` into clauses first."""
    vocabulary = negation_words()
    blanked = _pseudo(vocabulary).sub(lambda m: " " * len(m.group()), text)
    found = []
    for cue in _before_and(vocabulary, extra_cues).finditer(blanked):
        after = " ".join(text[cue.end() :].split()[:words])
        if after:
            found.append(after)
    return found
