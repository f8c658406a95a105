"""Turning a clinician's accept/override into a Decision, and what a case needs to be signed.

Pure functions over domain types: the CLI and the UI both call these, then append the
Decision through the repository.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterable
from datetime import UTC, datetime
from typing import Any

from concord.adjudication.targets import case_targets
from concord.domain import (
    Case,
    Decision,
    DecisionAction,
    Target,
    TargetKind,
    TargetRef,
    TargetRefError,
)
from concord.domain.decision_history import standing_decisions
from concord.errors import InputError, NotFoundError
from concord.store.codec import content_sha256

GATE_VALUES = ("triggered", "negated", "not_triggered")
DISAGREEMENT_VALUES = ("confirmed", "rejected", "minor", "moderate", "major")
MATCH_VALUES = ("valid", "invalid")


def find_target(case: Case, target_id: str, known_gates: Collection[str] = ()) -> Target:
    """The judgement `target_id` names. `known_gates`: the gate ids of the case's gate set;
    a gate among them that the screen did not report is a judgement too (value
    'not_triggered'), so a clinician can add a finding the screen missed."""
    for target in case_targets(case):
        if target.id == target_id:
            return target
    missed = missed_gate_target(case, target_id, known_gates)
    if missed is not None:
        return missed
    raise NotFoundError("no such judgement in this case", subject=f"{case.case_id}/{target_id}")


def missed_gate_target(case: Case, target_id: str, known_gates: Collection[str]) -> Target | None:
    """`gate/<id>` for a known gate the screen did not report on this record."""
    try:
        ref = TargetRef.parse(target_id)
    except TargetRefError:
        return None
    reported = {g.gate_id for g in case.gates}
    if ref.kind is not TargetKind.GATE or ref.subject in reported or ref.subject not in known_gates:
        return None
    return Target(
        id=target_id,
        kind=TargetKind.GATE,
        value="not_triggered",
        label=f"Record screen: {ref.subject} (not reported by the screen)",
    )


def parse_override(target: Target, raw: str) -> Any:
    """Validate a human value for the kind of judgement it replaces."""
    raw = raw.strip()
    if target.kind in (TargetKind.SUBSCORE, TargetKind.OVERALL):
        upper = 1.0 if target.kind is TargetKind.SUBSCORE else 100.0
        try:
            value = float(raw)
        except ValueError:
            raise InputError(f"override for {target.id} must be a number", subject=raw) from None
        if not 0.0 <= value <= upper:
            raise InputError(
                f"override for {target.id} must be between 0 and {upper:g}", subject=raw
            )
        return value
    allowed = {
        TargetKind.GATE: GATE_VALUES,
        TargetKind.DISAGREEMENT: DISAGREEMENT_VALUES,
        TargetKind.MATCH: MATCH_VALUES,
    }.get(target.kind)
    if allowed is not None and raw not in allowed:
        raise InputError(
            f"override for {target.id} must be one of {', '.join(allowed)}", subject=raw
        )
    return raw


def shown_hashes(case: Case, target: Target) -> dict[str, str]:
    """Hashes of what the human was shown: model, prompts, inputs and the judgement itself."""
    prompts = sorted({b.prompt_sha256 for b in case.briefs if b.prompt_sha256})
    return {
        "model_sha256": case.model_sha256,
        "prompt_sha256": content_sha256(prompts),
        "record_id": case.record_id,
        "config_version": case.config_version,
        "target_sha256": content_sha256(target.model_dump(mode="json")),
    }


def target_spans(case: Case, target: Target) -> tuple[dict[str, Any], ...]:
    spans: list[dict[str, Any]] = []
    ref = target.ref
    if ref.kind is TargetKind.GATE:
        for gate in case.gates:
            if gate.gate_id == ref.subject:
                spans += [s.model_dump() for s in gate.evidence]
    elif ref.kind is TargetKind.DISAGREEMENT:
        for card in case.scorecards:
            if card.specialist == ref.specialist:
                for d in card.disagreements:
                    if d.disagreement_id == ref.detail:
                        spans += [s.model_dump() for s in d.spans]
    return tuple(spans)


def require_reason(reason: str, *, subject: str = "") -> str:
    """Every decision carries the reason its maker gave; an empty one is refused."""
    if not reason or not reason.strip():
        raise InputError("a decision needs a reason", subject=subject or None)
    return reason.strip()


def make_decision(
    case: Case,
    target_id: str,
    *,
    user: str,
    reason: str,
    override: str | None = None,
    blind: bool = False,
    decision_id: str | None = None,
    at: datetime | None = None,
    known_gates: Collection[str] = (),
) -> Decision:
    """Accept (override is None) or override one judgement. The reason is mandatory.
    `known_gates`: see `find_target` (a finding the screen missed)."""
    target = find_target(case, target_id, known_gates)
    require_reason(reason, subject=target_id)
    if not user.strip():
        raise InputError("a decision needs the name of who made it", subject=target_id)
    new_value = target.value if override is None else parse_override(target, override)
    return Decision(
        decision_id=decision_id or "DEC-" + uuid.uuid4().hex,
        case_id=case.case_id,
        target_id=target.id,
        target_kind=target.kind,
        action=DecisionAction.ACCEPT if override is None else DecisionAction.OVERRIDE,
        original_value=target.value,
        new_value=new_value,
        reason=reason.strip(),
        user=user.strip(),
        at=at or datetime.now(UTC),
        shown=shown_hashes(case, target),
        blind=blind,
        spans=target_spans(case, target),
    )


def required_targets(case: Case) -> list[Target]:
    """What a clinician must decide before signing: every fired gate, every overall score,
    and every major disagreement."""

    def required(target: Target) -> bool:
        if target.kind is TargetKind.GATE:
            return bool(target.value == "triggered")
        if target.kind is TargetKind.DISAGREEMENT:
            return bool(target.value.get("severity") == "major")
        return target.kind is TargetKind.OVERALL

    return [t for t in case_targets(case) if required(t)]


def outstanding(case: Case, decisions: Iterable[Decision]) -> list[Target]:
    """Required judgements no clinician has decided (annotators' labels do not count, nor
    a decision withdrawn by an undo)."""
    return outstanding_among(required_targets(case), decisions)


def outstanding_among(required: Iterable[Target], decisions: Iterable[Decision]) -> list[Target]:
    """`outstanding` with the case's required targets already listed (a caller replaying
    many decisions of one case lists them once)."""
    decided = {d.target_id for d in standing_decisions(decisions) if d.counts_for_signoff}
    return [t for t in required if t.id not in decided]


def review_counts(case: Case, decisions: Iterable[Decision]) -> tuple[int, int]:
    """(judgements a clinician decided, judgements no clinician decided), over every
    judgement of the case that can be decided."""
    decided = {d.target_id for d in standing_decisions(decisions) if d.counts_for_signoff}
    targets = [t.id for t in case_targets(case)]
    reviewed = sum(1 for t in targets if t in decided)
    return reviewed, len(targets) - reviewed
