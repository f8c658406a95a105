"""Every judgement in a case that a human can accept or override, with a stable id."""

from __future__ import annotations

from concord.domain import Case, Target


def case_targets(case: Case) -> list[Target]:
    targets = [
        Target(
            id=f"gate/{g.gate_id}",
            kind="gate",
            value=g.status.value,
            label=f"Record screen: {g.title or g.gate_id} ({g.severity.value})",
        )
        for g in case.gates
    ]
    for card in case.scorecards:
        who = card.specialist
        targets.append(
            Target(
                id=f"{who}/overall",
                kind="overall",
                value=card.overall,
                label=f"{who}: overall {card.overall:g} ({card.grade})",
            )
        )
        targets += [
            Target(
                id=f"{who}/subscore/{s.name}",
                kind="subscore",
                value=round(s.value, 4),
                label=f"{who}: {s.name.replace('_', ' ')} {s.value:.2f}",
            )
            for s in card.subscores
        ]
        targets += [
            Target(
                id=f"{who}/disagreement/{d.disagreement_id}",
                kind="disagreement",
                value={"kind": d.kind.value, "severity": d.severity.value},
                label=f"{who}: {d.kind.value} ({d.severity.value}) {d.description}",
            )
            for d in card.disagreements
        ]
        targets += [
            Target(
                id=f"{who}/match/{m.specialist_item}={m.anaesthetist_item}",
                kind="match",
                value=m.method.value,
                label=f"{who}: {m.specialist_item} matched to {m.anaesthetist_item} "
                f"by {m.method.value}",
            )
            for m in card.matches
        ]
    return targets
