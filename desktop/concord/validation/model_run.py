"""`concord validate model NAME`: the candidate's panel and judges on the reference set, beside
the model in force on the same cases, as a generator of progress events.

The model in force is the one the site accepted for the resources validated (the latest
acceptance), else, before any acceptance, the embedded default (accepted for demonstration
only). Its figures come from the reference case itself where that case was made by it with
the same resources -- what the clinicians reviewed -- and from a fresh silent run otherwise.
The candidate always runs afresh. Every run is stored as a silent case: compared, never
shown for review.

Figures per model: valid outputs (briefs that fit the schema), verified evidence, triggered
gates the briefs address, the agreement of its judges with the clinicians' decisions (grade
bands of overall scores and sub-scores; Cohen's kappa with a bootstrap 95% interval and n),
agreement with human ASTRID labels where the site has any, mean wall time per patient and
the peak resident memory of the model process.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from concord.astrid.agreement import model_agreement
from concord.astrid.llm_judge import JudgeSettings, judge_items
from concord.domain import Brief, BriefStatus, Case, CaseMode
from concord.errors import Cancelled, InputError, ModelError
from concord.llm.default_model import DEFAULT_MODEL_SHA256
from concord.llm.registry import ModelEntry
from concord.llm.runtime import Runtime
from concord.pipeline import PanelSettings
from concord.resources import Resources
from concord.services import Services
from concord.site import SiteStore, acceptances, evaluate, load_policy
from concord.site.figures import (
    Agreement,
    CheckResult,
    ModelFigures,
    ModelReport,
    Rate,
    RecordFigures,
)
from concord.validation.measure import machine_state, peak_memory_mb
from concord.validation.reference import ReferenceCase, ReferenceSet, model_labels, reference_set
from concord.validation.stats import kappa_with_interval

DEFAULT_SETTINGS = PanelSettings(judges=1, max_specialists=3)
"""The demo's panel: three specialists, one judge run."""


@dataclass(frozen=True)
class ValidationEvent:
    """Progress: `done` of `total` patient runs; the last event carries the report."""

    done: int
    total: int
    message: str
    report: ModelReport | None = None


@dataclass
class _Side:
    """One model's runs, as they come in."""

    role: str
    entry: ModelEntry | None
    model_name: str
    model_sha256: str
    records: list[RecordFigures] = field(default_factory=list)
    cases: dict[str, Case | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    astrid: Agreement | None = None


def case_figures(ref: ReferenceCase, case: Case | None, **extra: object) -> RecordFigures:
    """One model's figures on one reference patient, from its case."""
    base = {"record_id": ref.record.record_id, "record_name": ref.record.name}
    if case is None:
        return RecordFigures(case_id="", **base, **extra)
    briefs: Sequence[Brief] = case.briefs
    triggered = {g.gate_id for g in case.gates if g.status.value == "triggered"}
    return RecordFigures(
        case_id=case.case_id,
        briefs=Rate(
            numerator=sum(b.status != BriefStatus.FAILED for b in briefs), denominator=len(briefs)
        ),
        evidence=Rate(
            numerator=sum(e.alignment.verified for b in briefs for e in b.evidence),
            denominator=sum(len(b.evidence) for b in briefs),
        ),
        gates=Rate(
            numerator=len(triggered - set(case.mutual_omissions)), denominator=len(triggered)
        ),
        worst_grade=case.worst_grade,
        **base,
        **extra,
    )


def _total(records: Sequence[RecordFigures], name: str) -> Rate:
    total = Rate()
    for r in records:
        total = total + getattr(r, name)
    return total


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def judge_agreement(
    chosen: Sequence[ReferenceCase], cases: dict[str, Case | None], resources: Resources
) -> Agreement:
    """Kappa of the model's grade bands against the clinicians' on every overall score and
    sub-score a clinician decided on the chosen reference cases."""
    human: list[str] = []
    model: list[str] = []
    for ref in chosen:
        wanted = ref.judge_labels(resources.scoring)
        got = model_labels(cases.get(ref.record.record_id), wanted, resources.scoring)
        for target_id, label in wanted.items():
            human.append(label)
            model.append(got[target_id])
    return kappa_with_interval(human, model)


def _figures(side: _Side, chosen: Sequence[ReferenceCase], resources: Resources) -> ModelFigures:
    records = side.records
    return ModelFigures(
        role=side.role,
        model_name=side.model_name,
        model_sha256=side.model_sha256,
        records=sum(1 for r in records if r.case_id),
        valid_outputs=_total(records, "briefs"),
        verified_evidence=_total(records, "evidence"),
        gates_addressed=_total(records, "gates"),
        judge_agreement=judge_agreement(chosen, side.cases, resources),
        astrid_agreement=side.astrid,
        seconds_per_patient=_mean([r.seconds for r in records]),
        peak_memory_mb=max((r.peak_memory_mb for r in records if r.peak_memory_mb), default=None),
        per_record=tuple(records),
        notes=tuple(side.notes),
    )


def model_in_force(
    svc: Services, resources: Resources, reference: ReferenceSet
) -> tuple[str, str, str]:
    """(role, model name, sha256) of the model the candidate is compared with: the latest
    acceptance's (for these resources where there is one); before any acceptance, the
    demonstration model the reference cases were made with (the embedded default)."""
    accepted = acceptances(svc.repo)
    if accepted:
        current = [a for a in accepted if a.versions == resources.versions] or accepted
        latest = current[-1]
        return "accepted", latest.model_name, latest.model_sha256
    demo = [r.case for r in reference.cases if r.case.mode is CaseMode.DEMONSTRATION]
    if demo:
        return "demonstration", demo[-1].model_name, demo[-1].model_sha256
    name = next(
        (e.name for e in svc.models.entries() if e.sha256 == DEFAULT_MODEL_SHA256),
        "embedded default",
    )
    return "demonstration", name, DEFAULT_MODEL_SHA256


def _entry_by_sha(svc: Services, sha256: str) -> ModelEntry | None:
    return next((e for e in svc.models.entries() if e.sha256 == sha256), None)


def _run_one(
    svc: Services,
    runtime: Runtime,
    ref: ReferenceCase,
    *,
    resources: Resources,
    settings: PanelSettings,
    user: str,
    should_stop: Callable[[], bool],
) -> Generator[str, None, tuple[Case | None, float, str]]:
    """A silent run of the panel on the reference record, yielding its progress lines;
    returns (case, seconds, error)."""
    t0 = time.perf_counter()
    case = None
    try:
        for event in svc.run_panel(
            ref.record, runtime, settings, should_stop, resources=resources, silent=True
        ):
            yield f"[{event.stage}] {event.message}"
            if event.case is not None:
                case = event.case
    except Cancelled:
        raise
    except ModelError as exc:
        return None, time.perf_counter() - t0, exc.one_line()
    seconds = time.perf_counter() - t0
    assert case is not None
    svc.repo.save_case(case, user)
    return case, seconds, ""


def _astrid(
    svc: Services, runtime: Runtime, reference: ReferenceSet, sample: int | None
) -> Agreement | None:
    """Pooled agreement with the human ASTRID labels (CR, RA, CF high/low), where any."""
    if not reference.astrid_items:
        return None
    human: list[str] = []
    judge: list[str] = []
    for set_id, items in reference.astrid_items.items():
        chosen = items[:sample] if sample else items
        run = None
        for event in judge_items(runtime, chosen, set_id, JudgeSettings(runs=1)):
            run = event.run or run
        if run is None:
            continue
        table = model_agreement([run], chosen, reference.astrid_labels)
        for metric in table.metrics.values():
            confusion = metric.get("confusion")
            if not confusion:
                continue
            for h, row in enumerate(confusion):
                for j, count in enumerate(row):
                    human += ["yes" if h else "no"] * int(count)
                    judge += ["yes" if j else "no"] * int(count)
    agreement = kappa_with_interval(human, judge)
    return agreement.model_copy(update={"note": "pooled over CR, RA and CF; " + agreement.note})


def validate_model(
    svc: Services,
    model: str,
    *,
    user: str,
    sample: int | None = None,
    resources: Resources | None = None,
    settings: PanelSettings | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    runtime_for: Callable[[str], Runtime] | None = None,
) -> Iterator[ValidationEvent]:
    """Run the candidate (and, where needed, the model in force) on the reference set; the
    last event carries the stored report (see the module doc). `runtime_for(name)`: how a
    registered model is loaded (default: the services' shared runtime)."""
    load = runtime_for or svc.runtime
    used = resources or svc.resources
    settings = settings or DEFAULT_SETTINGS
    policy = load_policy()  # a bad policy file stops here, before any model runs
    if sample is not None and sample < 1:
        raise InputError("--sample must be 1 or more", subject=str(sample))
    reference = reference_set(svc.repo)
    if not reference.cases:
        raise InputError(
            "no reference cases: a clinician has decided no case yet (concord decide ...)"
        )
    chosen = reference.cases[:sample] if sample else reference.cases
    entry = svc.model_entry(model)
    candidate = _Side("candidate", entry, entry.name, entry.sha256)
    role, name, sha = model_in_force(svc, used, reference)
    base = None if sha == entry.sha256 else _Side(role, _entry_by_sha(svc, sha), name, sha)
    if base is not None and base.entry is None:
        base.notes.append("not installed in the model store: reused reference cases only")
    reuse = {
        ref.record.record_id
        for ref in chosen
        if base is not None
        and ref.case.model_sha256 == base.model_sha256
        and ref.case.resources in (None, used.versions)
    }
    runs_needed = len(chosen) + sum(
        1 for ref in chosen if base is not None and base.entry and ref.record.record_id not in reuse
    )
    total, done = max(runs_needed, 1), 0
    started = machine_state()

    yield ValidationEvent(done, total, f"{len(chosen)} reference patient(s); {entry.name}")
    sides = [candidate] + ([base] if base is not None else [])
    for side in sides:
        runtime = load(side.entry.name) if side.entry is not None else None
        for ref in chosen:
            rid = ref.record.record_id
            if side is base and rid in reuse:
                if not side.notes or "reused" not in side.notes[-1]:
                    side.notes.append(
                        "reused the reference cases it wrote (time: that run's; memory: "
                        "not measured)"
                    )
                side.cases[rid] = ref.case
                side.records.append(
                    case_figures(ref, ref.case, reused=True, seconds=ref.case.timings.get("total"))
                )
                continue
            if runtime is None:
                side.cases[rid] = None
                side.records.append(case_figures(ref, None, error="model not installed"))
                continue
            yield ValidationEvent(done, total, f"{side.model_name}: {ref.record.name}")
            run = _run_one(
                svc,
                runtime,
                ref,
                resources=used,
                settings=settings,
                user=user,
                should_stop=should_stop,
            )
            while True:
                try:
                    line = next(run)
                except StopIteration as finished:
                    case, seconds, error = finished.value
                    break
                yield ValidationEvent(done, total, f"{side.model_name}: {line}")
            done += 1
            side.cases[rid] = case
            side.records.append(
                case_figures(
                    ref,
                    case,
                    seconds=round(seconds, 1),
                    peak_memory_mb=peak_memory_mb(runtime),
                    error=error,
                )
            )
            note = f"{side.model_name}: {ref.record.name} done in {seconds:.0f} s"
            yield ValidationEvent(done, total, note + (f" ({error})" if error else ""))
        if runtime is not None and reference.astrid_items:
            yield ValidationEvent(done, total, f"{side.model_name}: ASTRID items")
            side.astrid = _astrid(svc, runtime, reference, sample)
    cand = _figures(candidate, chosen, used)
    accepted = _figures(base, chosen, used) if base is not None else None
    checks = evaluate(policy, cand, accepted)
    report = ModelReport(
        validation_id="VAL-" + uuid.uuid4().hex[:12],
        created_at=datetime.now(UTC),
        created_by=user,
        resources=used.versions,
        reference=reference.summary(chosen),
        sample=sample,
        candidate=cand,
        accepted=accepted,
        policy=policy.model_dump(mode="json"),
        policy_sha256=policy.sha256(),
        checks=tuple(CheckResult(**c.to_json()) for c in checks),
        passed=all(c.passed for c in checks),
        machine={"start": started, "end": machine_state(), "cpus": os.cpu_count()},
    )
    SiteStore(svc.repo).save_report(report)
    yield ValidationEvent(total, total, f"validation {report.validation_id} stored", report)
