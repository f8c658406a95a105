"""ASTRID verdicts a clinician can accept or override, and the labels their decisions make.

Target ids (stable, sentence numbers 1-based as shown to the judge and the reviewer):
  astrid/<item_id>/cf/sentence/<n>  kind astrid_cf_sentence  conversational|grounded|ungrounded
  astrid/<item_id>/cf               kind astrid_cf           CF, a number in [0, 1]
  astrid/<item_id>/cr               kind astrid_cr           relevant|irrelevant
  astrid/<item_id>/ra               kind astrid_ra           refuses|attempts
A decision's case_id is the run id. The human value of a decision is a label for the item
whatever run showed it; the latest decision on a target wins over the file's label.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from concord.astrid.items import QaItem
from concord.astrid.metrics import cf_counts, conversational_faithfulness
from concord.astrid.prompts import Metric
from concord.astrid.results import QaRun, Verdict
from concord.astrid.sentences import split_sentences
from concord.domain import Decision, DecisionAction, Target, TargetKind, TargetRef, TargetRefError
from concord.domain.decision import new_decision_id
from concord.domain.decision_history import standing_decisions
from concord.domain.decision_reason import Basis, decision_reason
from concord.errors import InputError, NotFoundError
from concord.store.codec import content_sha256

FAILED = "failed"
SENTENCE_VALUES = ("conversational", "grounded", "ungrounded")
CR_VALUES = ("relevant", "irrelevant")
RA_VALUES = ("refuses", "attempts")
KIND_VALUES: dict[TargetKind, tuple[str, ...]] = {
    TargetKind.ASTRID_CF_SENTENCE: SENTENCE_VALUES,
    TargetKind.ASTRID_CR: CR_VALUES,
    TargetKind.ASTRID_RA: RA_VALUES,
}
_ALIASES: dict[TargetKind, dict[str, str]] = {
    TargetKind.ASTRID_CR: {
        "yes": "relevant",
        "no": "irrelevant",
        "true": "relevant",
        "false": "irrelevant",
    },
    TargetKind.ASTRID_RA: {
        "yes": "refuses",
        "no": "attempts",
        "true": "refuses",
        "false": "attempts",
        "refused": "refuses",
        "attempted": "attempts",
    },
}


def _word(value: bool | None, true: str, false: str) -> str:
    return FAILED if value is None else (true if value else false)


def sentence_value(info: Verdict | None, grounded: Verdict | None) -> str:
    if info is None or (info.value is None and grounded is None):
        return FAILED
    if info.value is False:
        return "conversational"
    if grounded is None or grounded.value is None:
        return FAILED
    return "grounded" if grounded.value else "ungrounded"


def _index(verdicts: Iterable[Verdict]) -> dict[tuple[str, str, int | None], Verdict]:
    return {(v.item_id, v.metric, v.sentence_index): v for v in verdicts}


def _target(ref: TargetRef, *, value: Any, label: str) -> Target:
    return Target(id=ref.format(), kind=ref.kind, value=value, label=label)


def astrid_targets(run: QaRun, items: Sequence[QaItem], repeat: int = 0) -> list[Target]:
    """Every decidable ASTRID verdict of one repeat of a run, item by item."""
    rep = run.repeat(repeat)
    verdicts = _index(rep.verdicts)
    scores = {s.item_id: s for s in rep.scores}
    targets: list[Target] = []
    for item in items:
        if item.item_id not in scores:
            continue
        for s in split_sentences(item.answer):
            value = sentence_value(
                verdicts.get((item.item_id, Metric.CF_INFO, s.index)),
                verdicts.get((item.item_id, Metric.CF_GROUNDED, s.index)),
            )
            targets.append(
                _target(
                    TargetRef.astrid_sentence(item.item_id, s.index + 1),
                    value=value,
                    label=f"{item.item_id} S{s.index + 1}: {value}: {s.text}",
                )
            )
        score = scores[item.item_id]
        targets.append(
            _target(
                TargetRef.astrid_metric(item.item_id, TargetKind.ASTRID_CF),
                value=round(score.cf, 4),
                label=f"{item.item_id}: CF {score.cf:.2f} "
                f"({score.n_grounded}/{score.n_informative})",
            )
        )
        cr = _word(score.cr, *CR_VALUES)
        targets.append(
            _target(
                TargetRef.astrid_metric(item.item_id, TargetKind.ASTRID_CR),
                value=cr,
                label=f"{item.item_id}: context {cr}",
            )
        )
        ra = _word(score.ra_refused, *RA_VALUES)
        targets.append(
            _target(
                TargetRef.astrid_metric(item.item_id, TargetKind.ASTRID_RA),
                value=ra,
                label=f"{item.item_id}: answer {ra} (scope {item.scope or '?'})",
            )
        )
    return targets


def parse_value(kind: TargetKind, raw: str) -> Any:
    """A human value for a target kind, validated."""
    text = raw.strip().lower()
    if kind is TargetKind.ASTRID_CF:
        try:
            value = float(text)
        except ValueError:
            raise InputError(
                "override for CF must be a number between 0 and 1", subject=raw
            ) from None
        if not 0.0 <= value <= 1.0:
            raise InputError("override for CF must be between 0 and 1", subject=raw)
        return value
    allowed = KIND_VALUES.get(kind)
    if allowed is None:
        raise InputError(f"unknown ASTRID target kind {kind!r}")
    text = _ALIASES.get(kind, {}).get(text, text)
    if text not in allowed:
        raise InputError(f"value must be one of {', '.join(allowed)}", subject=raw)
    return text


def find_target(run: QaRun, items: Sequence[QaItem], target_id: str, repeat: int = 0) -> Target:
    for target in astrid_targets(run, items, repeat):
        if target.id == target_id:
            return target
    raise NotFoundError("no such ASTRID verdict in this run", subject=f"{run.run_id}/{target_id}")


def verdict_basis(shown: Any, answer: Any, *, blind: bool) -> Basis:
    """What an answer on a judge's verdict is, for the reason rule
    (`concord.domain.decision_reason`): `shown` the judge's value (FAILED where it gave none),
    `answer` the human's (None: taking the verdict)."""
    if blind:
        return Basis.BLIND
    if shown == FAILED:
        return Basis.NO_VERDICT
    return Basis.ACCEPT if answer is None or answer == shown else Basis.OVERRIDE


def make_astrid_decision(
    run: QaRun,
    items: Sequence[QaItem],
    target_id: str,
    *,
    user: str,
    reason: str,
    override: str | None = None,
    blind: bool = False,
    decision_id: str | None = None,
    at: datetime | None = None,
    repeat: int = 0,
) -> Decision:
    """Accept (override None) or override one verdict. In blind mode the human's answer is
    recorded as given; it is an accept when it equals the judge's verdict."""
    target = find_target(run, items, target_id, repeat)
    if not user.strip():
        raise InputError("a decision needs the name of who made it", subject=target_id)
    if override is None:
        if target.value == FAILED:
            raise InputError(
                "the judge gave no verdict here: override with a value", subject=target_id
            )
        new_value = target.value
    else:
        new_value = parse_value(target.kind, override)
    basis = verdict_basis(target.value, new_value, blind=blind)
    reason = decision_reason(reason, basis, subject=target_id)
    item = next(i for i in items if i.item_id == target.ref.subject)
    return Decision(
        decision_id=decision_id or new_decision_id(),
        case_id=run.run_id,
        target_id=target.id,
        target_kind=target.kind,
        action=DecisionAction.ACCEPT if new_value == target.value else DecisionAction.OVERRIDE,
        original_value=target.value,
        new_value=new_value,
        reason=reason.strip(),
        user=user.strip(),
        at=at or datetime.now(UTC),
        shown={
            "model_sha256": run.model_sha256,
            "prompt_sha256": run.prompt_sha256,
            "item_sha256": item.content_sha256(),
            "run_id": run.run_id,
            "target_sha256": content_sha256(target.model_dump(mode="json")),
        },
        blind=blind,
    )


def label_target(items: Sequence[QaItem], target_id: str) -> tuple[QaItem, TargetRef]:
    """The item and verdict (or harm label) a label names, checked against the set's items
    (a sentence number must exist in the item's answer)."""
    try:
        ref = TargetRef.parse(target_id)
    except TargetRefError as exc:
        raise InputError(str(exc), subject=target_id) from None
    if not ref.kind.is_astrid:
        raise InputError(
            "not an ASTRID verdict (cf/sentence/N, cf, cr, ra, harm, harm/sentence/N)",
            subject=target_id,
        )
    item = next((i for i in items if i.item_id == ref.subject), None)
    if item is None:
        raise NotFoundError("no such item in this QA set", subject=target_id)
    number = ref.sentence_number
    if number is not None and number > len(split_sentences(item.answer)):
        raise NotFoundError("the answer has no such sentence", subject=target_id)
    return item, ref


def label_targets(item: QaItem) -> list[str]:
    """The verdicts a reviewer labels on an item: each sentence, relevance and refusal (CF
    follows from the sentences)."""
    sentences = [
        TargetRef.astrid_sentence(item.item_id, s.index + 1).format()
        for s in split_sentences(item.answer)
    ]
    return [
        *sentences,
        TargetRef.astrid_metric(item.item_id, TargetKind.ASTRID_CR).format(),
        TargetRef.astrid_metric(item.item_id, TargetKind.ASTRID_RA).format(),
    ]


def make_astrid_label(
    set_id: str,
    items: Sequence[QaItem],
    target_id: str,
    value: str,
    *,
    user: str,
    reason: str,
    blind: bool = True,
    decision_id: str | None = None,
    at: datetime | None = None,
) -> Decision:
    """A label on a QA set given with no judge's verdict to compare (no run yet, or none for
    this verdict): the human value, no original value. Its case is the set; once a judge
    runs over the set, agreement compares it with that run."""
    item, ref = label_target(items, target_id)
    if not user.strip():
        raise InputError("a decision needs the name of who made it", subject=target_id)
    basis = Basis.BLIND if blind else Basis.NO_RUN  # nothing shown: never needs words
    reason = decision_reason(reason, basis, subject=target_id)
    return Decision(
        decision_id=decision_id or new_decision_id(),
        case_id=set_id,
        target_id=ref.format(),
        target_kind=ref.kind,
        action=DecisionAction.OVERRIDE,
        original_value=None,
        new_value=parse_value(ref.kind, value),
        reason=reason.strip(),
        user=user.strip(),
        at=at or datetime.now(UTC),
        shown={"item_sha256": item.content_sha256(), "set_id": set_id},
        blind=blind,
    )


# -- decisions as human labels ------------------------------------------------------------


@dataclass
class ItemLabels:
    """The human labels of one item: from the file, replaced by clinicians' decisions."""

    cf: float | None = None
    cr: bool | None = None
    ra: bool | None = None
    sentences: dict[int, str] = field(default_factory=dict)  # 0-based index -> value
    source: dict[str, str] = field(default_factory=dict)  # label -> "file" | "decision"


def _astrid_ref(target_id: str) -> TargetRef | None:
    try:
        ref = TargetRef.parse(target_id)
    except TargetRefError:
        return None
    return ref if ref.kind.is_astrid and not ref.kind.is_harm else None


def resolve_labels(items: Sequence[QaItem], decisions: Iterable[Decision]) -> dict[str, ItemLabels]:
    """Labels per item id. Decisions are applied in order, so the latest wins. When every
    sentence of an item has a human value and no CF was given directly, CF is computed from
    them by the same formula the judge's verdicts go through. Withdrawn decisions (undos)
    do not count."""
    labels: dict[str, ItemLabels] = {}
    n_sentences: dict[str, int] = {}
    for item in items:
        got = ItemLabels(cf=item.labels.cf, cr=item.labels.cr, ra=item.labels.ra)
        got.source = {k: "file" for k in ("cf", "cr", "ra") if getattr(got, k) is not None}
        labels[item.item_id] = got
        n_sentences[item.item_id] = len(split_sentences(item.answer))
    direct_cf: set[str] = set()
    for d in standing_decisions(decisions):
        ref = _astrid_ref(d.target_id)
        if ref is None or ref.subject not in labels:
            continue
        got = labels[ref.subject]
        if ref.sentence_number is not None:
            got.sentences[ref.sentence_number - 1] = str(d.new_value)
        elif ref.kind is TargetKind.ASTRID_CF:
            got.cf, got.source["cf"] = float(d.new_value), "decision"
            direct_cf.add(ref.subject)
        elif ref.kind is TargetKind.ASTRID_CR:
            got.cr, got.source["cr"] = d.new_value == "relevant", "decision"
        elif ref.kind is TargetKind.ASTRID_RA:
            got.ra, got.source["ra"] = d.new_value == "refuses", "decision"
    for item_id, got in labels.items():
        n = n_sentences[item_id]
        if item_id in direct_cf or n == 0 or set(got.sentences) != set(range(n)):
            continue
        values = [got.sentences[i] for i in range(n)]
        counts = cf_counts(
            [v != "conversational" for v in values],
            [None if v == "conversational" else v == "grounded" for v in values],
        )
        got.cf, got.source["cf"] = conversational_faithfulness(counts), "decisions (sentences)"
    return labels
