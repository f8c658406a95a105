"""The reference set: what the site's clinicians decided, as the yardstick for a model or a
change of resources.

* Every stored case (not silent) with at least one clinician decision in force; where a
  record has several, its latest decided case.
* Gate decisions: a triggered gate a clinician accepted, or gave a disposition (the red
  flag was dealt with as present), is a *confirmed finding*; an
  override is a *regression case* for the screen -- a false fire (triggered, overridden to
  negated or not triggered) or a finding the clinician added as missed (negated or not
  triggered, overridden to triggered).
* Judge decisions: the clinician's value of each overall score and sub-score, read as its
  grade band; a model's judge agrees where its own value on the same record falls in the
  same band.
* ASTRID items with human labels and EVAL answers a clinician graded.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from concord.adjudication.config import ScoringConfig
from concord.astrid.store import AstridStore
from concord.astrid.targets import ItemLabels, resolve_labels
from concord.domain import Case, Decision, GateStatus, Record, TargetKind, TargetRef
from concord.domain.decision_history import standing_decisions
from concord.site.figures import ReferenceSummary
from concord.store import Repository

TRIGGERED = GateStatus.TRIGGERED.value
NOT_WRITTEN = "not written"
"""A model's label where it wrote no scorecard for the specialist a clinician judged."""


@dataclass(frozen=True)
class GateRegression:
    gate_id: str
    screen: str
    clinician: str

    @property
    def kind(self) -> str:
        return "false fire" if self.screen == TRIGGERED else "added as missed"


@dataclass(frozen=True)
class ReferenceCase:
    case: Case
    record: Record
    decisions: tuple[Decision, ...]
    """The clinician decisions in force on the case, one per target (the latest)."""

    @property
    def values(self) -> dict[str, object]:
        return {d.target_id: d.new_value for d in self.decisions}

    def gate_verdicts(self) -> dict[str, str]:
        """gate id -> what the clinician says of it ('triggered', 'negated', ...). A red
        flag given a disposition (proceed, postpone, refer, not relevant here) is a finding
        the clinician took as present: confirmed, unless they also decided the gate itself,
        which then says what they think of it (an override to negated is a false fire)."""
        out: dict[str, str] = {}
        for d in self.decisions:
            ref = TargetRef.parse(d.target_id)
            if ref.kind is TargetKind.DISPOSITION and ref.gate_id and d.new_value is not None:
                out.setdefault(ref.gate_id, TRIGGERED)
        for d in self.decisions:
            ref = TargetRef.parse(d.target_id)
            if ref.kind is TargetKind.GATE:
                out[ref.subject] = str(d.new_value)
        return out

    @property
    def confirmed(self) -> tuple[str, ...]:
        """Gates the clinician says fire on this record (accepted or added as missed)."""
        return tuple(g for g, v in self.gate_verdicts().items() if v == TRIGGERED)

    @property
    def regressions(self) -> tuple[GateRegression, ...]:
        found = []
        for d in self.decisions:
            ref = TargetRef.parse(d.target_id)
            if ref.kind is TargetKind.GATE and d.new_value != d.original_value:
                found.append(GateRegression(ref.subject, str(d.original_value), str(d.new_value)))
        return tuple(found)

    def judge_labels(self, scoring: ScoringConfig) -> dict[str, str]:
        """target id -> the clinician's grade band, for overall scores and sub-scores."""
        out: dict[str, str] = {}
        for d in self.decisions:
            label = band_of(d.target_kind, d.new_value, scoring)
            if label is not None:
                out[d.target_id] = label
        return out


def band_of(kind: TargetKind, value: object, scoring: ScoringConfig) -> str | None:
    """The grade band of an overall score (0-100) or a sub-score (0-1)."""
    if kind not in (TargetKind.OVERALL, TargetKind.SUBSCORE) or not isinstance(value, int | float):
        return None
    return scoring.grade(float(value) * (100.0 if kind is TargetKind.SUBSCORE else 1.0))


def model_labels(case: Case | None, target_ids: Iterable[str], scoring: ScoringConfig) -> dict:
    """target id -> a model's grade band on the same judgement of its own case."""
    out: dict[str, str] = {}
    cards = {c.specialist: c for c in case.scorecards} if case is not None else {}
    for target_id in target_ids:
        ref = TargetRef.parse(target_id)
        card = cards.get(ref.specialist or "")
        label = NOT_WRITTEN
        if card is not None and ref.kind is TargetKind.OVERALL:
            label = scoring.grade(card.overall)
        elif card is not None and ref.kind is TargetKind.SUBSCORE:
            sub = next((s for s in card.subscores if s.name == ref.detail), None)
            label = NOT_WRITTEN if sub is None else scoring.grade(sub.value * 100.0)
        out[target_id] = label
    return out


@dataclass
class ReferenceSet:
    cases: list[ReferenceCase]
    astrid_items: dict[str, list] = field(default_factory=dict)
    """set id -> its items that carry human labels."""
    astrid_labels: dict[str, ItemLabels] = field(default_factory=dict)
    eval_labelled: int = 0

    def summary(self, sampled: Iterable[ReferenceCase] = ()) -> ReferenceSummary:
        return ReferenceSummary(
            cases=len(self.cases),
            records=len({c.record.record_id for c in self.cases}),
            decisions=sum(len(c.decisions) for c in self.cases),
            gate_confirmations=sum(len(c.confirmed) for c in self.cases),
            regression_cases=sum(len(c.regressions) for c in self.cases),
            astrid_labelled=sum(len(v) for v in self.astrid_items.values()),
            eval_labelled=self.eval_labelled,
            sampled_records=tuple(c.record.record_id for c in sampled),
        )


def _in_force(decisions: Iterable[Decision]) -> tuple[Decision, ...]:
    latest: dict[str, Decision] = {}
    for d in standing_decisions(decisions):
        if d.counts_for_signoff and d.target_kind.is_case:
            latest[d.target_id] = d
    return tuple(latest.values())


def _labelled(labels: ItemLabels) -> bool:
    return any(v is not None for v in (labels.cf, labels.cr, labels.ra))


def reference_set(repo: Repository) -> ReferenceSet:
    """Read the reference set from the store (see the module doc)."""
    by_record: dict[str, ReferenceCase] = {}
    for summary in repo.list_cases():  # oldest first: a later decided case replaces
        if summary.mode is not None and not summary.mode.reviewable:
            continue
        decisions = _in_force(repo.decisions(case_id=summary.case_id))
        if not decisions:
            continue
        case = repo.get_case(summary.case_id)
        by_record[case.record_id] = ReferenceCase(
            case=case, record=repo.get_record(case.record_id), decisions=decisions
        )
    reference = ReferenceSet(cases=list(by_record.values()))
    every = repo.decisions()
    astrid = AstridStore(repo)
    for row in astrid.list_sets():
        items = astrid.items(str(row["set_id"]))
        labels = resolve_labels(items, every)
        labelled = [i for i in items if _labelled(labels[i.item_id])]
        if labelled:
            reference.astrid_items[str(row["set_id"])] = labelled
            reference.astrid_labels.update({i.item_id: labels[i.item_id] for i in labelled})
    graded = {
        d.target_id
        for d in standing_decisions(every)
        if d.target_kind is TargetKind.EVAL_GRADE and d.new_value is not None
    }
    reference.eval_labelled = len(graded)
    return reference
