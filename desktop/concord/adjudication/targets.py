"""Every judgement in a case that a human can accept or override, with a stable id."""

from __future__ import annotations

from concord.domain import Case, GateStatus, Target, TargetRef


def _target(ref: TargetRef, value: object, label: str) -> Target:
    return Target(id=ref.format(), kind=ref.kind, value=value, label=label)


def case_targets(case: Case) -> list[Target]:
    targets = [
        _target(
            TargetRef.gate(g.gate_id),
            g.status.value,
            f"Record screen: {g.title or g.gate_id} ({g.severity.value})",
        )
        for g in case.gates
    ]
    targets += [
        _target(
            TargetRef.disposition(g.gate_id),
            None,  # no AI value: the clinician says what to do about the red flag
            f"Red flag: {g.title or g.gate_id} ({g.severity.value}) — what will you do?",
        )
        for g in case.gates
        if g.status == GateStatus.TRIGGERED
    ]
    for card in case.scorecards:
        who = card.specialist
        targets.append(
            _target(
                TargetRef.overall(who),
                card.overall,
                f"{who}: overall {card.overall:g} ({card.grade})",
            )
        )
        targets += [
            _target(
                TargetRef.subscore(who, s.name),
                round(s.value, 4),
                f"{who}: {s.name.replace('_', ' ')} {s.value:.2f}",
            )
            for s in card.subscores
        ]
        targets += [
            _target(
                TargetRef.disagreement(who, d.disagreement_id),
                {"kind": d.kind.value, "severity": d.severity.value},
                f"{who}: {d.kind.value} ({d.severity.value}) {d.description}",
            )
            for d in card.disagreements
        ]
        targets += [
            _target(
                TargetRef.match(who, m.specialist_item, m.anaesthetist_item),
                m.method.value,
                f"{who}: {m.specialist_item} matched to {m.anaesthetist_item} by {m.method.value}",
            )
            for m in card.matches
        ]
    return targets
