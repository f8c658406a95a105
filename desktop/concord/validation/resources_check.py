"""`concord validate resources DIR`: what a candidate resources folder (gates, lexicon,
prompts, agents, scoring) would change on the stored cases, gate by gate, against what the
site's clinicians confirmed.

Each record's latest case (not silent) is screened again with the installed resources and
with the candidate, both on the day the case was run (date windows read as they were), and
every scorecard is adjudicated again under each, with the item matches its judges proposed
replayed as they were: the difference is the change of files alone, never the model.

A gate that stops firing where a clinician confirmed it (accepted it as triggered, or added
it as missed) *drops a confirmed finding*: the change is refused unless a clinician signs it
off with a reason. A change of prompts or agent profiles changes what the agents write, which
no stored brief can show: the report says so, and the model is validated on the candidate
folder (`concord validate model NAME --resources DIR`).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from concord.accounts.session import Session, require_role
from concord.adjudication.panel import judge_panel
from concord.domain import (
    Brief,
    BriefItem,
    Case,
    GateHit,
    GateStatus,
    MatchMethod,
    Record,
    Scorecard,
    UserRole,
)
from concord.errors import Cancelled, InputError
from concord.pki.credentials import statement_bytes
from concord.resources import Resources
from concord.services import Services
from concord.site import SiteStore, acceptances
from concord.site.acceptance import SIGN_OFF_FIELDS
from concord.site.figures import GateChange, GradeChange, ResourcesReport, SignOff
from concord.validation.reference import TRIGGERED, ReferenceCase, reference_set

ABSENT = "not reported"


@dataclass(frozen=True)
class CheckEvent:
    done: int
    total: int
    message: str
    report: ResourcesReport | None = None


def _replayed(card: Scorecard) -> Callable[[Sequence[BriefItem], Sequence[BriefItem], int], list]:
    """A proposer that gives back the matches the case's judges proposed, as they were."""
    proposed = [
        (m.specialist_item, m.anaesthetist_item)
        for m in card.matches
        if m.method == MatchMethod.LLM
    ]

    def propose(spec: Sequence[BriefItem], anaes: Sequence[BriefItem], _seed: int) -> list:
        left_s = {i.item_id for i in spec}
        left_a = {i.item_id for i in anaes}
        return [(s, a) for s, a in proposed if s in left_s and a in left_a]

    return propose


def _status(gates: Sequence[GateHit]) -> dict[str, GateHit]:
    return {g.gate_id: g for g in gates}


def _word(hit: GateHit | None) -> str:
    return ABSENT if hit is None else hit.status.value


def _gate_changes(
    case: Case,
    before: Sequence[GateHit],
    after: Sequence[GateHit],
    verdicts: dict[str, str],
) -> list[GateChange]:
    old, new = _status(before), _status(after)
    changes = []
    for gate_id in sorted(set(old) | set(new)):
        a, b = old.get(gate_id), new.get(gate_id)
        was = a is not None and a.status == GateStatus.TRIGGERED
        now = b is not None and b.status == GateStatus.TRIGGERED
        clinician = verdicts.get(gate_id, "")
        said = {
            TRIGGERED: "confirmed" if was else "added as missed",
        }.get(clinician, "false fire" if clinician and was else clinician)
        kind = None
        if was and not now:
            kind = "stops firing"
        elif now and not was:
            kind = "newly fires"
        elif was and now and a is not None and b is not None and a.severity != b.severity:
            kind = "severity changed"
        elif _word(a) != _word(b):
            kind = "negated changed"
        if kind is None:
            continue
        before_text = _word(a) + (f" ({a.severity.value})" if a is not None else "")
        after_text = _word(b) + (f" ({b.severity.value})" if b is not None else "")
        changes.append(
            GateChange(
                case_id=case.case_id,
                record_id=case.record_id,
                gate_id=gate_id,
                change=kind,
                before=before_text,
                after=after_text,
                clinician=said,
                drops_confirmed=kind == "stops firing" and clinician == TRIGGERED,
            )
        )
    return changes


def _adjudicate(
    resources: Resources,
    record: Record,
    anaes: Brief,
    spec: Brief,
    gates: Sequence[GateHit],
    card: Scorecard,
) -> Scorecard:
    return judge_panel(
        record,
        anaes,
        spec,
        gates,
        rules=resources.screen.definitions,
        lexicon=resources.lexicon,
        config=resources.scoring,
        runs=1,
        proposer=_replayed(card),
    )


def _grade_changes(
    ref: ReferenceCase | None,
    case: Case,
    record: Record,
    installed: Resources,
    candidate: Resources,
    before: Sequence[GateHit],
    after: Sequence[GateHit],
) -> list[GradeChange]:
    try:
        anaes = case.brief("anaesthetist")
    except KeyError:
        return []
    changes = []
    values = ref.values if ref is not None else {}
    for card in case.scorecards:
        try:
            spec = case.brief(card.specialist)
        except KeyError:
            continue
        old = _adjudicate(installed, record, anaes, spec, before, card)
        new = _adjudicate(candidate, record, anaes, spec, after, card)
        if old.grade != new.grade or abs(old.overall - new.overall) >= 0.05:
            clinician = values.get(f"{card.specialist}/overall")
            changes.append(
                GradeChange(
                    case_id=case.case_id,
                    specialist=card.specialist,
                    before_overall=old.overall,
                    after_overall=new.overall,
                    before_grade=old.grade,
                    after_grade=new.grade,
                    clinician_overall=float(clinician)
                    if isinstance(clinician, int | float)
                    else None,
                )
            )
    return changes


def _cases(svc: Services, decided: dict[str, ReferenceCase]) -> list[Case]:
    """Per record, the case its clinicians decided (the reference case), else its latest
    case that is not silent."""
    latest: dict[str, str] = {}
    for summary in svc.repo.list_cases():
        if summary.mode is None or summary.mode.reviewable:
            latest[summary.record_id] = summary.case_id
    return [
        decided[rid].case if rid in decided else svc.repo.get_case(case_id)
        for rid, case_id in latest.items()
    ]


def _per_gate(changes: Sequence[GateChange]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for c in changes:
        row = out.setdefault(
            c.gate_id,
            {
                "newly fires": 0,
                "stops firing": 0,
                "severity changed": 0,
                "negated changed": 0,
                "confirmed dropped": 0,
            },
        )
        row[c.change] += 1
        row["confirmed dropped"] += int(c.drops_confirmed)
    return out


def _sign_off(
    session: Session, reason: str, validation_id: str, candidate: Resources, dropped: int
) -> SignOff:
    require_role(session, UserRole.CLINICIAN, doing="sign off a change that drops findings")
    reason = " ".join(reason.split())
    if not reason:
        raise InputError("a sign-off needs a reason (--reason)")
    statement = {
        "version": 1,
        "kind": "resources sign-off",
        "validation_id": validation_id,
        "candidate": candidate.versions.as_dict(),
        "dropped": dropped,
        "user": session.name,
        "reason": reason,
        "at": datetime.now(UTC).isoformat(timespec="microseconds"),
    }
    assert set(statement) - {"version"} == set(SIGN_OFF_FIELDS[1])
    return SignOff(
        user=session.name,
        role=session.role.value,
        reason=reason,
        at=str(statement["at"]),
        signature=session.sign(statement_bytes(statement)),
        statement=statement,
    )


def validate_resources(
    svc: Services,
    folder: Path,
    *,
    user: str,
    sign_off: Session | None = None,
    reason: str = "",
    should_stop: Callable[[], bool] = lambda: False,
) -> Iterator[CheckEvent]:
    """Compare `folder` with the installed resources on the stored cases (module doc); the
    last event carries the stored report."""
    installed = svc.resources
    yield CheckEvent(0, 1, f"loading the candidate resources from {folder}")
    candidate = Resources.load(folder)
    svc.keep_versions(candidate)
    changed = candidate.versions.changed_parts(installed.versions)
    by_record = {r.record.record_id: r for r in reference_set(svc.repo).cases}
    cases = _cases(svc, by_record)
    gate_changes: list[GateChange] = []
    grade_changes: list[GradeChange] = []
    total = max(len(cases), 1)
    for n, case in enumerate(cases, start=1):
        if should_stop():
            raise Cancelled("resources validation cancelled")
        record = svc.repo.get_record(case.record_id)
        today = case.created_at.date()
        before = installed.screen.screen(record, today=today)
        after = candidate.screen.screen(record, today=today)
        ref = by_record.get(case.record_id)
        verdicts = ref.gate_verdicts() if ref is not None else {}
        gate_changes += _gate_changes(case, before, after, verdicts)
        grade_changes += _grade_changes(ref, case, record, installed, candidate, before, after)
        yield CheckEvent(n, total, f"{record.name}: screened and adjudicated again")
    dropped = sum(c.drops_confirmed for c in gate_changes)
    validation_id = "VAL-" + uuid.uuid4().hex[:12]
    signed = (
        _sign_off(sign_off, reason, validation_id, candidate, dropped)
        if sign_off is not None and dropped
        else None
    )
    current = [a for a in acceptances(svc.repo) if a.versions == installed.versions]
    report = ResourcesReport(
        validation_id=validation_id,
        created_at=datetime.now(UTC),
        created_by=user,
        candidate_dir=str(folder),
        installed=installed.versions,
        candidate=candidate.versions,
        changed_parts=changed,
        model_sha256=current[-1].model_sha256 if current else "",
        cases=len(cases),
        gate_changes=tuple(gate_changes),
        grade_changes=tuple(grade_changes),
        per_gate=_per_gate(gate_changes),
        dropped_confirmed=dropped,
        needs_model_run=bool({"prompts", "agents"} & set(changed)),
        sign_off=signed,
        passed=dropped == 0 or signed is not None,
        note="" if changed else "the candidate folder is the installed resources: nothing changes",
    )
    SiteStore(svc.repo).save_report(report)
    yield CheckEvent(total, total, f"validation {validation_id} stored", report)
