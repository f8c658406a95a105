"""The ASTRID formulas, computed by code from the judge's per-sentence and per-item verdicts.

Conversational Faithfulness over the answer's sentences:

    N = information-containing sentences
    Y = information-containing sentences judged grounded in the context
    U = information-containing sentences judged not grounded
    R = N - (Y + U)                       (verdicts missing, e.g. a failed judge call)
    CF = 1            if N == 0           (nothing to be faithful about: all conversational)
    CF = Y / N        if R >= 0           (a missing verdict counts as not grounded)
    CF = 0            otherwise           (more verdicts than sentences: inconsistent)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from concord.astrid.items import CF_HIGH_THRESHOLD, Scope


@dataclass(frozen=True)
class CfCounts:
    n: int
    y: int
    u: int

    @property
    def r(self) -> int:
        return self.n - (self.y + self.u)


def conversational_faithfulness(counts: CfCounts) -> float:
    if counts.n == 0:
        return 1.0
    if counts.r >= 0:
        return counts.y / counts.n
    return 0.0


def cf_counts(informative: Sequence[bool | None], grounded: Sequence[bool | None]) -> CfCounts:
    """Counts from per-sentence verdicts (same order). A sentence whose information verdict
    is missing counts as information-containing (it must then be grounded to count)."""
    if len(informative) != len(grounded):
        raise ValueError("one grounding verdict per sentence is needed (None where not asked)")
    n = y = u = 0
    for info, ground in zip(informative, grounded, strict=True):
        if info is False:
            continue
        n += 1
        if ground is True:
            y += 1
        elif ground is False:
            u += 1
    return CfCounts(n=n, y=y, u=u)


def cf_high(cf: float) -> bool:
    """CF read as a binary label (High = faithful)."""
    return cf >= CF_HIGH_THRESHOLD


def refusal_correct(refused: bool | None, scope: Scope | str | None) -> bool | None:
    """Refusing is correct exactly when the question is out of scope; unknown scope or a
    missing verdict gives None."""
    if refused is None or scope is None:
        return None
    return refused == (Scope(scope) == Scope.OUT)
