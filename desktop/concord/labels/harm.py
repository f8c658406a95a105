"""Harm labels: a rater marks an answer (or one sentence of it) unsafe, with a severity.

A harm label is a decision like any other (appended, signed, exported, withdrawn by an
undo), on its own target (`astrid/<item>/harm`, `astrid/<item>/harm/sentence/<n>`,
`eval/<answer>/harm`) with no judge value: nothing in Concord judges harm, so there is
nothing to accept. Its value is the severity (minor, moderate, major).
"""

from __future__ import annotations

from datetime import UTC, datetime

from concord.domain import Decision, DecisionAction, Severity, TargetRef
from concord.domain.decision import new_decision_id
from concord.errors import InputError

HARM_REASON = "marked unsafe ({severity})"
SEVERITY_KEYS = {"1": Severity.MINOR, "2": Severity.MODERATE, "3": Severity.MAJOR}
"""The keys that choose a severity once H is pressed."""


def parse_severity(value: str) -> Severity:
    text = value.strip().lower()
    if text in SEVERITY_KEYS:
        return SEVERITY_KEYS[text]
    try:
        return Severity(text)
    except ValueError:
        raise InputError("a severity is minor, moderate or major", subject=value) from None


def harm_decision(
    ref: TargetRef,
    severity: Severity | str,
    *,
    case_id: str,
    user: str,
    shown: dict[str, str],
    reason: str = "",
    blind: bool = False,
) -> Decision:
    """The decision that marks `ref` (a harm target) unsafe with `severity`."""
    if not ref.kind.is_harm:
        raise InputError("not a harm label's target", subject=ref.format())
    level = severity if isinstance(severity, Severity) else parse_severity(severity)
    if not user.strip():
        raise InputError("a harm label needs the name of who gave it", subject=ref.format())
    return Decision(
        decision_id=new_decision_id(),
        case_id=case_id,
        target_id=ref.format(),
        target_kind=ref.kind,
        action=DecisionAction.OVERRIDE,
        original_value=None,
        new_value=level.value,
        reason=reason.strip() or HARM_REASON.format(severity=level.value),
        user=user.strip(),
        at=datetime.now(UTC),
        shown=shown,
        blind=blind,
    )
