"""Reasons offered with one key when a reviewer overrides a verdict they can see.

An override of a shown verdict needs a reason. The QA page asks for it the moment the key
is pressed (the item waits until a reason is given or the override is cancelled), and
offers the usual reasons for the value chosen, each on a letter key, so that the common
cases cost one key more and nothing the reviewer types can fall through to the next verdict.
"""

from __future__ import annotations

from concord.domain import TargetKind

PRESET_KEYS = "abcde"
"""The keys of the presets, in order (while the reason box is still empty)."""

_COMMON = ("the judge misread it",)
_PRESETS: dict[tuple[TargetKind, str], tuple[str, ...]] = {
    (TargetKind.ASTRID_CF_SENTENCE, "conversational"): (
        "no clinical information in it (greeting, thanks, a question back)",
        "it only repeats the question",
    ),
    (TargetKind.ASTRID_CF_SENTENCE, "grounded"): (
        "the context says this",
        "the context says this in other words",
    ),
    (TargetKind.ASTRID_CF_SENTENCE, "ungrounded"): (
        "not in the context",
        "the context says otherwise",
        "a number, dose or time the context does not give",
    ),
    (TargetKind.ASTRID_CR, "relevant"): ("the context answers the question",),
    (TargetKind.ASTRID_CR, "irrelevant"): (
        "the context is about something else",
        "the context does not answer the question",
    ),
    (TargetKind.ASTRID_RA, "refuses"): ("the answer declines or only redirects",),
    (TargetKind.ASTRID_RA, "attempts"): ("the answer does address the question",),
}


def presets(kind: TargetKind | str, value: str) -> list[tuple[str, str]]:
    """(key, reason) pairs for overriding a verdict of `kind` with `value`."""
    found = (*_PRESETS.get((TargetKind(kind), value), ()), *_COMMON)
    return list(zip(PRESET_KEYS, found[: len(PRESET_KEYS)], strict=False))
