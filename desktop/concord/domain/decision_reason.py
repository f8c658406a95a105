"""The one rule for a decision's reason, whoever records it (the CLI, the desktop's case
queue, the QA session, EVAL grading).

A decision carries the words its maker gave. Whether it may go without words depends only on
what the maker did (`Basis`): taking the AI's value as it was shown, answering blind, labelling
where no AI value exists or the judge gave none needs no words, and the reason recorded then
says exactly that (it is a statement of what happened, never a made-up justification).
Replacing a value the maker could see, or deciding what to do about a red flag, is their own
judgement and needs their reason: without one the decision is refused.
"""

from __future__ import annotations

from enum import Enum

from concord.errors import InputError

ACCEPT_REASON = "accepted as shown"
BLIND_REASON = "blind answer"
LABEL_REASON = "labelled without a judge run"
NO_VERDICT_REASON = "answered where the judge gave no verdict"
MISSING_REASON = "a decision needs a reason"


class Basis(Enum):
    """What the decider did; its value is the reason recorded when they gave no words, or
    None where their words are required."""

    ACCEPT = ACCEPT_REASON
    """Took the AI's value as it was shown."""
    BLIND = BLIND_REASON
    """Answered without seeing the AI's value."""
    NO_RUN = LABEL_REASON
    """Labelled where no AI value exists (no judge run)."""
    NO_VERDICT = NO_VERDICT_REASON
    """Answered where the judge ran and gave no verdict."""
    OVERRIDE = None
    """Replaced a value they could see."""
    DISPOSITION = None
    """Decided what to do about a red flag (there is no AI value to accept)."""

    @property
    def needs_words(self) -> bool:
        return self.value is None


def decision_reason(said: str | None, basis: Basis, *, subject: str = "") -> str:
    """The reason to record: the maker's words (stripped) when they gave any; otherwise what
    `basis` records without words, or InputError where it needs them."""
    words = (said or "").strip()
    if words:
        return words
    if basis.value is None:
        raise InputError(MISSING_REASON, subject=subject or None)
    return str(basis.value)


def require_reason(reason: str, *, subject: str = "") -> str:
    """A stored decision always carries a reason (the recorder's last check): an empty one is
    refused."""
    return decision_reason(reason, Basis.OVERRIDE, subject=subject)
