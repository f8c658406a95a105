"""Every label this installation holds, local and merged, as one list of `Label`s.

A label is a decision with how it was given (`LabelProvenance`), who gave it as this
installation names them (the local user, or `name@installation` for an annotator of another
installation whose package was merged) and what it is about: its *scope* (the QA or EVAL
set, so labels given on different judge runs or workstations of one set meet; the case for
a clinical judgement) and its *item* (the QA item, the EVAL answer, the case judgement).

Undos are applied per rater (`standing_decisions`), and each rater counts once per
judgement: their latest standing label.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from concord.astrid.store import AstridStore
from concord.domain import Decision, LabelProvenance, TargetKind, TargetRef, TargetRefError
from concord.domain.decision_history import standing_decisions
from concord.labels.reasons import CF_REASON, legacy_bulk
from concord.store import Repository
from concord.store.label_store import LabelStore

LOCAL = "local"


@dataclass(frozen=True)
class Label:
    decision: Decision
    provenance: LabelProvenance | None
    rater: str
    origin: str  # "local", or "package:<id>" for a merged label
    scope: str  # QA set id, EVAL set id, or case id

    @property
    def target_id(self) -> str:
        return self.decision.target_id

    @property
    def kind(self) -> TargetKind:
        return self.decision.target_kind

    @property
    def item(self) -> str:
        """The item the label is about: the QA item or EVAL answer; for a case, the case."""
        try:
            ref = TargetRef.parse(self.target_id)
        except TargetRefError:
            return self.scope
        return ref.subject if not ref.kind.is_case else self.scope

    @property
    def bulk(self) -> bool:
        """Accepted in bulk (from the provenance; for older decisions, from the reason)."""
        if self.provenance is not None and self.provenance.bulk is not None:
            return self.provenance.bulk
        return legacy_bulk(self.decision.reason)

    @property
    def derived(self) -> bool:
        """A CF computed from the rater's own sentence labels, not a judgement of its own."""
        return self.kind == TargetKind.ASTRID_CF and self.decision.reason == CF_REASON

    @property
    def judge_run(self) -> str | None:
        """The judge run that was shown with the label (None: none was shown)."""
        if self.provenance is not None and self.provenance.judge_run:
            return self.provenance.judge_run
        return self.decision.shown.get("run_id") or None

    @property
    def seconds(self) -> float | None:
        return None if self.provenance is None else self.provenance.seconds_on_item


def _scope_of(decision: Decision, provenance: LabelProvenance | None, runs: dict[str, str]) -> str:
    if provenance is not None and provenance.set_id:
        return provenance.set_id
    if decision.target_kind.is_astrid:
        return runs.get(decision.case_id, decision.shown.get("set_id", decision.case_id))
    return decision.case_id


def _latest(labels: Sequence[Label]) -> list[Label]:
    """Each rater's latest standing label per (scope, target), in log order."""
    latest: dict[tuple[str, str, str], Label] = {}
    by_id = {label.decision.decision_id: label for label in labels}
    for decision in standing_decisions([label.decision for label in labels]):
        label = by_id[decision.decision_id]
        key = (label.scope, label.target_id, label.rater)
        latest.pop(key, None)
        latest[key] = label
    return list(latest.values())


def collect_labels(repo: Repository) -> list[Label]:
    """Every rater's latest standing label on every judgement, local and merged."""
    store = AstridStore(repo)
    runs = {run_id: store.get_run(run_id).set_id for run_id in store.run_ids()}
    labels = LabelStore(repo)
    provenance = labels.provenance()
    local = []
    for d in repo.decisions():
        got = provenance.get(d.decision_id)
        local.append(Label(d, got, d.user, LOCAL, _scope_of(d, got, runs)))
    merged: dict[str, list[Label]] = {}
    for m in labels.merged_labels():
        label = Label(
            m.decision,
            m.provenance,
            m.rater,
            f"package:{m.package_id}",
            _scope_of(m.decision, m.provenance, runs),
        )
        merged.setdefault(m.rater, []).append(label)
    found = _latest(local)
    for group in merged.values():  # each rater's packages, in the order they labelled
        found += _latest(sorted(group, key=lambda x: x.decision.at))
    once: dict[tuple[str, str, str], Label] = {}
    for label in found:  # a rater both here and in a package: their latest label wins
        key = (label.scope, label.target_id, label.rater)
        if key not in once or once[key].decision.at <= label.decision.at:
            once[key] = label
    return list(once.values())
