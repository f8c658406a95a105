"""The judgements of a case as a clinician reviews them: which are required, in what order,
and which targets are decided together as one. Every count of judgements (the review queue,
the bulk-accept dialog, the sign dialog, the PDF, the signature row) counts these.

What is required before signing is clinical, never an AI score:

* a **disposition** for every red flag (triggered gate): proceed, postpone, refer, or not
  relevant here, with a reason;
* every **major disagreement** about the patient: the anaesthetist brief contradicting the
  record (CONFLICT), a claim about a red flag that its evidence does not support (OVERCALL),
  a quote that changed a number (UNVERIFIED_EVIDENCE). A gate missed by the AI (MISS,
  OMITTED_BY_PAIR) is decided through the gate's disposition, which comes first.

Required judgements come in order of harm: red flags missed by every agent, major red flags
the anaesthetist missed, the other red flags (major before moderate), then the rest; each
group in the case's own order. Optional judgements follow.

Grouped as one judgement: the quotes of one brief that code could not verify (one
UNVERIFIED_EVIDENCE disagreement each, repeated in every comparison the brief takes part
in), unless one is required; and a finding about the anaesthetist brief that reads word for
word the same in several comparisons.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from concord.adjudication.targets import case_targets
from concord.domain import (
    Case,
    Disagreement,
    DisagreementKind,
    Severity,
    Target,
    TargetKind,
)

GROUP_PREFIX = "quotes:"  # the failed quotes of one brief
REPEAT_PREFIX = "same:"  # one finding repeated in several comparisons
_ABOUT_A_GATE = (DisagreementKind.MISS, DisagreementKind.OMITTED_BY_PAIR)


class Harm(IntEnum):
    """Order of the required judgements; optional ones come last."""

    MISSED_BY_EVERY_AGENT = 0
    MAJOR_GATE_MISSED = 1
    RED_FLAG = 2
    OTHER_REQUIRED = 3
    OPTIONAL = 4


@dataclass(frozen=True)
class Judgement:
    """One line of the review: one target, or several decided together."""

    key: str  # the target id, or "quotes:<agent>" / "same:<first target id>" for a group
    targets: tuple[Target, ...]
    required: bool
    harm: Harm
    agent: str | None = None  # the failed quotes of this brief

    @property
    def target(self) -> Target:
        return self.targets[0]


def disagreement_of(case: Case, target: Target) -> Disagreement | None:
    """The disagreement a `disagreement` target stands for."""
    ref = target.ref
    if ref.kind is not TargetKind.DISAGREEMENT:
        return None
    for card in case.scorecards:
        if card.specialist == ref.specialist:
            for d in card.disagreements:
                if d.disagreement_id == ref.detail:
                    return d
    return None


def quote_brief(case: Case, target: Target) -> str | None:
    """Whose brief an unverified quote comes from (adjudication describes each one as
    "<agent> evidence <id> …"); None for any other judgement."""
    d = disagreement_of(case, target)
    if d is None or d.kind != DisagreementKind.UNVERIFIED_EVIDENCE:
        return None
    who = target.ref.subject
    for agent in ("anaesthetist", who):
        if d.description.startswith(f"{agent} evidence "):
            return agent
    return who


def missed_major_gates(case: Case) -> tuple[str, ...]:
    """Major gates the anaesthetist brief missed: raised only by a specialist, missed by both
    briefs of a comparison, or missed by every brief of the case."""
    major = {g.gate_id for g in case.gates if g.severity == Severity.MAJOR}
    missed = [
        d.gate_id
        for card in case.scorecards
        for d in card.disagreements
        if d.kind in _ABOUT_A_GATE and d.gate_id in major
    ]
    missed += [g for g in case.mutual_omissions if g in major]
    return tuple(dict.fromkeys(g for g in missed if g))


def is_required(case: Case, target: Target) -> bool:
    if target.kind is TargetKind.DISPOSITION:
        return True
    if target.kind is TargetKind.DISAGREEMENT:
        d = disagreement_of(case, target)
        return d is not None and d.severity == Severity.MAJOR and d.kind not in _ABOUT_A_GATE
    return False


def _harm(case: Case, target: Target, required: bool) -> Harm:
    if not required:
        return Harm.OPTIONAL
    gate_id = target.ref.gate_id
    if target.kind is not TargetKind.DISPOSITION or gate_id is None:
        return Harm.OTHER_REQUIRED
    if gate_id in case.mutual_omissions:
        return Harm.MISSED_BY_EVERY_AGENT
    if gate_id in missed_major_gates(case):
        return Harm.MAJOR_GATE_MISSED
    return Harm.RED_FLAG


def _repeat_key(case: Case, target: Target) -> tuple[str, ...] | None:
    """A disagreement about the anaesthetist brief reads the same in every comparison it
    is found in (an over-call, a vague claim): its kind, severity, description and items."""
    d = disagreement_of(case, target)
    if d is None or d.kind == DisagreementKind.UNVERIFIED_EVIDENCE:
        return None
    return (d.kind.value, d.severity.value, d.description, *d.items)


def _severity_rank(case: Case, target: Target) -> int:
    """Major red flags before moderate ones within a harm group."""
    gate_id = target.ref.gate_id
    gate = next((g for g in case.gates if g.gate_id == gate_id), None)
    return gate.severity.rank if gate is not None else 0


def case_judgements(case: Case) -> list[Judgement]:
    """Every judgement of the case: required ones by harm, then the optional ones."""
    targets = case_targets(case)
    required = {t.id for t in targets if is_required(case, t)}
    repeats: dict[tuple[str, ...], list[Target]] = {}
    for target in targets:
        finding = _repeat_key(case, target)
        if finding is not None:
            repeats.setdefault(finding, []).append(target)
    groups: dict[str, list[Target]] = {}
    agents: dict[str, str | None] = {}
    order: list[str] = []
    for target in targets:
        agent = None if target.id in required else quote_brief(case, target)
        repeat = _repeat_key(case, target)
        if agent is not None:
            key = GROUP_PREFIX + agent
        elif repeat is not None and len(repeats[repeat]) > 1:
            key = REPEAT_PREFIX + repeats[repeat][0].id
        else:
            key = target.id
        if key not in groups:
            order.append(key)
            agents[key] = agent
        groups.setdefault(key, []).append(target)
    out = []
    for key in order:
        members = tuple(groups[key])
        needed = any(t.id in required for t in members)
        harm = min(_harm(case, t, t.id in required) for t in members)
        out.append(Judgement(key, members, needed, harm, agents[key]))
    place = {j.key: n for n, j in enumerate(out)}
    return sorted(out, key=lambda j: (j.harm, _severity_rank(case, j.target), place[j.key]))
