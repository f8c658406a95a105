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

import hashlib
import json
import re
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from concord.astrid.items import QaItem
from concord.astrid.metrics import cf_counts, conversational_faithfulness
from concord.astrid.prompts import Metric
from concord.astrid.results import QaRun, Verdict
from concord.astrid.sentences import split_sentences
from concord.domain import Decision, DecisionAction, Target
from concord.errors import InputError, NotFoundError

FAILED = "failed"
SENTENCE_VALUES = ("conversational", "grounded", "ungrounded")
CR_VALUES = ("relevant", "irrelevant")
RA_VALUES = ("refuses", "attempts")
KIND_VALUES = {
    "astrid_cf_sentence": SENTENCE_VALUES,
    "astrid_cr": CR_VALUES,
    "astrid_ra": RA_VALUES,
}
_ALIASES = {
    "astrid_cr": {"yes": "relevant", "no": "irrelevant", "true": "relevant", "false": "irrelevant"},
    "astrid_ra": {
        "yes": "refuses",
        "no": "attempts",
        "true": "refuses",
        "false": "attempts",
        "refused": "refuses",
        "attempted": "attempts",
    },
}
_TARGET = re.compile(r"^astrid/(?P<item>[^/]+)/(?P<metric>cf|cr|ra)(?:/sentence/(?P<n>\d+))?$")


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


def _index(verdicts: Iterable[Verdict]) -> dict[tuple[str, Metric, int | None], Verdict]:
    return {(v.item_id, v.metric, v.sentence_index): v for v in verdicts}


def astrid_targets(run: QaRun, items: Sequence[QaItem], repeat: int = 0) -> list[Target]:
    """Every decidable ASTRID verdict of one repeat of a run, item by item."""
    rep = run.repeat(repeat)
    verdicts = _index(rep.verdicts)
    scores = {s.item_id: s for s in rep.scores}
    targets: list[Target] = []
    for item in items:
        if item.item_id not in scores:
            continue
        base = f"astrid/{item.item_id}"
        for s in split_sentences(item.answer):
            value = sentence_value(
                verdicts.get((item.item_id, Metric.CF_INFO, s.index)),
                verdicts.get((item.item_id, Metric.CF_GROUNDED, s.index)),
            )
            targets.append(
                Target(
                    id=f"{base}/cf/sentence/{s.index + 1}",
                    kind="astrid_cf_sentence",
                    value=value,
                    label=f"{item.item_id} S{s.index + 1}: {value}: {s.text}",
                )
            )
        score = scores[item.item_id]
        targets.append(
            Target(
                id=f"{base}/cf",
                kind="astrid_cf",
                value=round(score.cf, 4),
                label=f"{item.item_id}: CF {score.cf:.2f} "
                f"({score.n_grounded}/{score.n_informative})",
            )
        )
        cr = _word(score.cr, *CR_VALUES)
        targets.append(
            Target(
                id=f"{base}/cr", kind="astrid_cr", value=cr, label=f"{item.item_id}: context {cr}"
            )
        )
        ra = _word(score.ra_refused, *RA_VALUES)
        targets.append(
            Target(
                id=f"{base}/ra",
                kind="astrid_ra",
                value=ra,
                label=f"{item.item_id}: answer {ra} (scope {item.scope or '?'})",
            )
        )
    return targets


def parse_value(kind: str, raw: str) -> Any:
    """A human value for a target kind, validated."""
    text = raw.strip().lower()
    if kind == "astrid_cf":
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


def _sha(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def find_target(run: QaRun, items: Sequence[QaItem], target_id: str, repeat: int = 0) -> Target:
    for target in astrid_targets(run, items, repeat):
        if target.id == target_id:
            return target
    raise NotFoundError("no such ASTRID verdict in this run", subject=f"{run.run_id}/{target_id}")


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
    if not reason.strip():
        raise InputError("a decision needs a reason", subject=target_id)
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
    item_id = target_id.split("/")[1]
    item = next(i for i in items if i.item_id == item_id)
    return Decision(
        decision_id=decision_id or "DEC-" + uuid.uuid4().hex,
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
            "target_sha256": _sha(target.model_dump(mode="json")),
        },
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


def parse_target_id(target_id: str) -> tuple[str, str, int | None] | None:
    match = _TARGET.match(target_id)
    if match is None:
        return None
    n = match.group("n")
    return match.group("item"), match.group("metric"), None if n is None else int(n) - 1


def resolve_labels(items: Sequence[QaItem], decisions: Iterable[Decision]) -> dict[str, ItemLabels]:
    """Labels per item id. Decisions are applied in order, so the latest wins. When every
    sentence of an item has a human value and no CF was given directly, CF is computed from
    them by the same formula the judge's verdicts go through."""
    labels: dict[str, ItemLabels] = {}
    n_sentences: dict[str, int] = {}
    for item in items:
        got = ItemLabels(cf=item.labels.cf, cr=item.labels.cr, ra=item.labels.ra)
        got.source = {k: "file" for k in ("cf", "cr", "ra") if getattr(got, k) is not None}
        labels[item.item_id] = got
        n_sentences[item.item_id] = len(split_sentences(item.answer))
    direct_cf: set[str] = set()
    for d in decisions:
        parsed = parse_target_id(d.target_id)
        if parsed is None or parsed[0] not in labels:
            continue
        item_id, metric, sentence = parsed
        got = labels[item_id]
        if sentence is not None:
            got.sentences[sentence] = str(d.new_value)
        elif metric == "cf":
            got.cf, got.source["cf"] = float(d.new_value), "decision"
            direct_cf.add(item_id)
        elif metric == "cr":
            got.cr, got.source["cr"] = d.new_value == "relevant", "decision"
        elif metric == "ra":
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
