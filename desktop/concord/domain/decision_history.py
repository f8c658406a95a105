"""Which decisions still stand once undos are applied.

Decisions are appended, never edited, so an undo is itself a decision: a *withdrawal*, whose
`new_value` is None (no human value), made by the same user on the same case and target.
It withdraws that user's latest standing decision there, so the one before it (if any)
stands again. Every reader of the decision log that turns it into labels, agreement or
progress goes through `standing_decisions`.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from concord.domain.decision import Decision, DecisionAction, new_decision_id

UNDO_REASON = "undo: withdraws {decision_id}"


def chain_order(decisions: Iterable[Decision]) -> list[Decision]:
    """Decisions in audit-chain order (`Decision.seq`), never by their clocks' `at`: a clock
    set back or ahead cannot put a decision before or after another. Decisions not yet in
    the chain keep the order given, after those that are."""
    return sorted(decisions, key=lambda d: (d.seq is None, d.seq or 0))


def is_withdrawal(decision: Decision) -> bool:
    """An undo: the user withdraws their previous decision on this target."""
    return decision.new_value is None


def withdrawal_of(decision: Decision, user: str) -> Decision:
    """The undo of `decision`: a new decision with no human value, appended (never an edit);
    the decision before it on the same judgement, if any, stands again."""
    return Decision(
        decision_id=new_decision_id(),
        case_id=decision.case_id,
        target_id=decision.target_id,
        target_kind=decision.target_kind,
        action=DecisionAction.OVERRIDE,
        original_value=decision.original_value,
        new_value=None,
        reason=UNDO_REASON.format(decision_id=decision.decision_id),
        user=user,
        at=datetime.now(UTC),
        shown=decision.shown,
        blind=decision.blind,
        spans=decision.spans,
    )


def standing_decisions(decisions: Iterable[Decision]) -> list[Decision]:
    """The decisions not withdrawn, in their original order, without the withdrawals."""
    ordered = list(decisions)
    stacks: dict[tuple[str, str, str], list[int]] = {}
    withdrawn: set[int] = set()
    for n, decision in enumerate(ordered):
        key = (decision.case_id, decision.target_id, decision.user)
        stack = stacks.setdefault(key, [])
        if is_withdrawal(decision):
            withdrawn.add(n)
            if stack:
                withdrawn.add(stack.pop())
        else:
            stack.append(n)
    return [d for n, d in enumerate(ordered) if n not in withdrawn]
