"""Turning a clinician's accept/override/disposition into a Decision, what a case needs to
be signed, and how much of it a clinician reviewed.

Pure functions over domain types: the CLI and the UI both call these, then append the
Decision through the repository. What counts as one judgement, which are required and in
what order is `concord.adjudication.judgements`: every count here is of those.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from concord.adjudication.judgements import Judgement, case_judgements
from concord.adjudication.targets import case_targets
from concord.domain import (
    Case,
    Decision,
    DecisionAction,
    Disposition,
    Target,
    TargetKind,
    TargetRef,
    TargetRefError,
)
from concord.domain.decision import new_decision_id
from concord.domain.decision_history import standing_decisions
from concord.domain.decision_reason import Basis, decision_reason
from concord.errors import InputError, NotFoundError
from concord.store.codec import content_sha256

BULK_REASON_PREFIX = "bulk accept:"
"""How a bulk accept's reason begins (the one way it is recorded): such a judgement was
accepted with the others, not reviewed one by one."""
GATE_VALUES = ("triggered", "negated", "not_triggered")
DISPOSITION_VALUES = tuple(d.value for d in Disposition)
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


def disposition_target(case: Case, target_id: str) -> Target:
    """The disposition judgement of a red flag, named by the gate (`gate/<id>`) or by
    itself (`gate/<id>/disposition`); a gate that did not fire has none."""
    try:
        ref = TargetRef.parse(target_id)
    except TargetRefError as exc:
        raise InputError(str(exc), subject=target_id) from None
    if ref.gate_id is None:
        raise InputError(
            "a disposition is for a red flag: give --target gate/<gate_id>", subject=target_id
        )
    try:
        return find_target(case, TargetRef.disposition(ref.gate_id).format())
    except NotFoundError:
        raise InputError(
            f"gate {ref.gate_id} did not fire on this record: it needs no disposition",
            subject=f"{case.case_id}/{target_id}",
        ) from None


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
        TargetKind.DISPOSITION: DISPOSITION_VALUES,
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
    if ref.kind in (TargetKind.GATE, TargetKind.DISPOSITION):
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


def decision_basis(*, accepting: bool, blind: bool, disposition: bool) -> Basis:
    """What a case decision is, for the reason rule (`concord.domain.decision_reason`): a red
    flag's disposition always needs words; a blind answer and an accept of the AI's value as
    shown do not."""
    if disposition:
        return Basis.DISPOSITION
    if blind:
        return Basis.BLIND
    return Basis.ACCEPT if accepting else Basis.OVERRIDE


def make_decision(
    case: Case,
    target_id: str,
    *,
    user: str,
    reason: str,
    override: str | None = None,
    disposition: str | None = None,
    blind: bool = False,
    decision_id: str | None = None,
    at: datetime | None = None,
    known_gates: Collection[str] = (),
) -> Decision:
    """Accept (override is None) or override one judgement, or record the disposition of a
    red flag (`target_id` the gate or its disposition); the reason as `decision_basis` says. A
    disposition has no AI value: it is never an accept. `known_gates`: see `find_target`
    (a finding the screen missed)."""
    if disposition is not None:
        target = disposition_target(case, target_id)
        override = disposition
    else:
        target = find_target(case, target_id, known_gates)
    if target.kind is TargetKind.DISPOSITION and override is None:
        raise InputError(
            "a red flag needs a disposition (" + ", ".join(DISPOSITION_VALUES) + "), not an accept",
            subject=target_id,
        )
    basis = decision_basis(
        accepting=override is None, blind=blind, disposition=target.kind is TargetKind.DISPOSITION
    )
    reason = decision_reason(reason, basis, subject=target_id)
    if not user.strip():
        raise InputError("a decision needs the name of who made it", subject=target_id)
    new_value = target.value if override is None else parse_override(target, override)
    return Decision(
        decision_id=decision_id or new_decision_id(),
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
    """What a clinician must decide before signing, in order of harm: a disposition for
    every red flag, and every major disagreement about the patient (never an AI score)."""
    return [t for j in case_judgements(case) if j.required for t in j.targets]


def outstanding(case: Case, decisions: Iterable[Decision]) -> list[Target]:
    """Required judgements no clinician has decided (annotators' labels do not count, nor
    a decision withdrawn by an undo), in order of harm."""
    return outstanding_among(required_targets(case), decisions)


def outstanding_among(required: Iterable[Target], decisions: Iterable[Decision]) -> list[Target]:
    """`outstanding` with the case's required targets already listed (a caller replaying
    many decisions of one case lists them once)."""
    decided = {d.target_id for d in standing_decisions(decisions) if d.counts_for_signoff}
    return [t for t in required if t.id not in decided]


def missing_dispositions(case: Case, decisions: Iterable[Decision]) -> list[str]:
    """The red flags (gate ids) no clinician has given a disposition."""
    return [t.ref.subject for t in outstanding(case, decisions) if t.kind is TargetKind.DISPOSITION]


def is_bulk(decision: Decision) -> bool:
    """Accepted with the remaining optional judgements, not reviewed one by one."""
    return decision.reason.startswith(BULK_REASON_PREFIX)


@dataclass(frozen=True)
class ReviewTally:
    """How much of a case a clinician reviewed, counted in judgements (a group of failed
    quotes or a finding repeated in several comparisons is one judgement, as in the queue)."""

    total: int
    one_by_one: int
    bulk_accepted: int
    not_reviewed: int
    required: int
    required_left: int

    @property
    def decided(self) -> int:
        return self.one_by_one + self.bulk_accepted

    def sentence(self) -> str:
        """ "43 judgements: 5 reviewed one by one, 14 bulk-accepted, 24 not reviewed." """
        return (
            f"{self.total} judgement{'s' if self.total != 1 else ''}: {self.one_by_one} "
            f"reviewed one by one, {self.bulk_accepted} bulk-accepted, {self.not_reviewed} "
            "not reviewed"
        )


def _clinician_decisions(decisions: Iterable[Decision]) -> dict[str, Decision]:
    latest: dict[str, Decision] = {}
    for d in standing_decisions(decisions):
        if d.counts_for_signoff:
            latest[d.target_id] = d
    return latest


def judgement_state(judgement: Judgement, latest: dict[str, Decision]) -> str:
    """'one by one', 'bulk' or 'not reviewed' for one judgement, from the clinicians'
    standing decisions (target id -> latest)."""
    found = [latest.get(t.id) for t in judgement.targets]
    if any(d is None for d in found):
        return "not reviewed"
    return "bulk" if any(d is not None and is_bulk(d) for d in found) else "one by one"


def review_tally(case: Case, decisions: Iterable[Decision]) -> ReviewTally:
    latest = _clinician_decisions(decisions)
    judgements = case_judgements(case)
    states = [judgement_state(j, latest) for j in judgements]
    required = [j for j in judgements if j.required]
    left = sum(
        1
        for j, state in zip(judgements, states, strict=True)
        if j.required and state == "not reviewed"
    )
    return ReviewTally(
        total=len(judgements),
        one_by_one=states.count("one by one"),
        bulk_accepted=states.count("bulk"),
        not_reviewed=states.count("not reviewed"),
        required=len(required),
        required_left=left,
    )


def review_counts(case: Case, decisions: Iterable[Decision]) -> tuple[int, int]:
    """(judgements a clinician decided, judgements no clinician decided), over every
    judgement of the case, counted as `review_tally` counts them."""
    tally = review_tally(case, decisions)
    return tally.decided, tally.not_reviewed
