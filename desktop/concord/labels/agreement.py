"""Agreement worth trusting, from every label the installation holds (local and merged).

* **Judge vs human**, per metric and judge, with the labels given *blind* (the judge's value
  was hidden, or there was none yet) apart from those given with the judge's value on
  screen. A blind ASTRID label is compared with every judge run over its set, whenever it
  ran; a label given with a run on screen only with that run; a blind EVAL grade with the
  latest reward-model prediction for the answer. Bulk accepts (Ctrl+Shift+A, Enter on the
  rest of a QA item) are left out and counted.
* **Between annotators**: Cohen's kappa with its 95% bootstrap interval for every pair of
  raters (across workstations once their packages are merged), Fleiss' kappa for three or
  more; bulk accepts left out.
* **Per annotator**: how often they accept the judge's value when it is shown, seconds per
  item, labels given in bulk; a warning above `MAX_ACCEPTANCE` or under `MIN_SECONDS`.
* **Gold items** (honeypots seeded by a lead): each annotator's labels on them scored
  against the lead's answers (else the set file's labels).
* **Unsafe**: every answer or sentence a rater marked unsafe, most severe first.

Values are compared as categories: a CF as High/Low (the ASTRID cut-off), every other value
as its text.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations
from typing import Any

import numpy as np

from concord.adjudication.config import ScoringConfig, load_scoring_config
from concord.astrid.items import QaItem
from concord.astrid.metrics import cf_high
from concord.astrid.results import QaRun
from concord.astrid.store import AstridStore
from concord.astrid.targets import FAILED, astrid_targets
from concord.domain import Severity, TargetKind, TargetRef
from concord.eval.agreement import (
    RULE_BASED_KINDS,
    RULE_BASED_SCREEN,
    LabelDisagreement,
    fleiss_kappa,
)
from concord.eval.eval_store import EvalStore
from concord.labels.collect import Label, collect_labels
from concord.labels.kappa import Kappa, cohen_kappa_interval
from concord.store import Repository
from concord.store.codec import to_json
from concord.store.label_store import LabelStore
from concord.validation.reference import band_of

MAX_ACCEPTANCE = 0.95
MIN_SECONDS = 2.0
MIN_FOR_WARNING = 10
"""A rater's acceptance rate is only warned about over at least this many verdicts shown,"""
MIN_ITEMS_FOR_WARNING = 5
"""and their time per item over at least this many timed items."""
JUDGED_ASTRID = frozenset(
    {
        TargetKind.ASTRID_CF_SENTENCE,
        TargetKind.ASTRID_CF,
        TargetKind.ASTRID_CR,
        TargetKind.ASTRID_RA,
    }
)


def category(kind: TargetKind | str, value: Any) -> str | None:
    """The value as the category agreement compares (None: no value)."""
    if value is None:
        return None
    if kind == TargetKind.ASTRID_CF:
        try:
            return "High" if cf_high(float(value)) else "Low"
        except (TypeError, ValueError):
            return str(value)
    if kind in (TargetKind.OVERALL, TargetKind.SUBSCORE):
        # a score is compared by its grade band, as site validation compares it: 31 raw
        # overall scores are 31 categories that no two raters could share
        band = band_of(TargetKind(kind), value, _scoring())
        if band is not None:
            return band
    if kind == TargetKind.DISAGREEMENT and isinstance(value, Mapping) and "severity" in value:
        return str(value["severity"])  # the judge's {kind, severity}; a human gives a severity
    return value if isinstance(value, str) else to_json(value)


@cache
def _scoring() -> ScoringConfig:
    return load_scoring_config()


@dataclass
class _Pairs:
    """Paired (judge, human) categories of one row, with what each pair came from."""

    judge: list[str] = field(default_factory=list)
    human: list[str] = field(default_factory=list)
    labels: list[Label] = field(default_factory=list)
    where: list[str] = field(default_factory=list)  # run / case / set the judge value is from
    raters: set[str] = field(default_factory=set)
    bulk: int = 0


def _confusion(judge: Sequence[str], human: Sequence[str]) -> dict[str, Any]:
    categories = sorted(set(judge) | set(human))
    counts = [[0] * len(categories) for _ in categories]
    for j, h in zip(judge, human, strict=True):
        counts[categories.index(j)][categories.index(h)] += 1
    return {"categories": categories, "rows_judge_cols_human": counts}


def _kappa_fields(kappa: Kappa) -> dict[str, Any]:
    return kappa.json()


class _Judges:
    """The judge's value for each (set, target) from every stored judge run, and the latest
    reward-model prediction for EVAL answers."""

    def __init__(self, repo: Repository) -> None:
        self.astrid = AstridStore(repo)
        self.eval = EvalStore(repo)
        self._runs: dict[str, list[QaRun]] = {}
        self._items: dict[str, list[QaItem]] = {}
        self._values: dict[str, dict[str, Any]] = {}
        for run_id in self.astrid.run_ids():
            run = self.astrid.get_run(run_id)
            self._runs.setdefault(run.set_id, []).append(run)

    def runs(self, set_id: str) -> list[QaRun]:
        return self._runs.get(set_id, [])

    def items(self, set_id: str) -> list[QaItem]:
        if set_id not in self._items:
            self._items[set_id] = self.astrid.items(set_id)
        return self._items[set_id]

    def value(self, run: QaRun, target_id: str) -> Any:
        if run.run_id not in self._values:
            self._values[run.run_id] = {
                t.id: t.value for t in astrid_targets(run, self.items(run.set_id))
            }
        return self._values[run.run_id].get(target_id)

    def prediction(self, answer_id: str) -> tuple[str, str] | None:
        """(grade, reward-model version) of the latest prediction for an EVAL answer."""
        found = self.eval.latest_prediction(answer_id)
        return None if found is None else (found.grade, found.version)


def _judge_model(label: Label) -> str:
    d = label.decision
    if d.target_kind in RULE_BASED_KINDS:
        return RULE_BASED_SCREEN
    return d.shown.get("model_name") or d.shown.get("model_sha256", "")[:12] or "unknown"


def _judge_pairs(labels: Sequence[Label], judges: _Judges) -> dict[tuple[str, str, bool], _Pairs]:
    rows: dict[tuple[str, str, bool], _Pairs] = {}

    def add(label: Label, judge: str, blind: bool, judge_value: Any, where: str) -> None:
        j = category(label.kind, judge_value)
        h = category(label.kind, label.decision.new_value)
        if j is None or h is None or judge_value == FAILED:
            return
        row = rows.setdefault((str(label.kind), judge, blind), _Pairs())
        if label.bulk:
            row.bulk += 1
            return
        row.judge.append(j)
        row.human.append(h)
        row.labels.append(label)
        row.where.append(where)
        row.raters.add(label.rater)

    for label in labels:
        d = label.decision
        if label.kind.is_harm or d.new_value is None:
            continue
        seen = not d.blind and d.original_value is not None
        if label.kind in JUDGED_ASTRID:
            runs = judges.runs(label.scope)
            if seen:
                runs = [r for r in runs if r.run_id == label.judge_run]
            for run in runs:
                add(label, run.model_name, not seen, judges.value(run, label.target_id), run.run_id)
        elif label.kind == TargetKind.EVAL_GRADE:
            if seen:
                version = d.shown.get("reward_model_version", "")
                add(label, f"reward model {version}".strip(), False, d.original_value, d.case_id)
                continue
            answer_id = TargetRef.parse(label.target_id).subject
            predicted = judges.prediction(answer_id)
            if predicted is not None:
                add(label, f"reward model {predicted[1]}", True, predicted[0], d.case_id)
        elif label.kind.is_case and d.original_value is not None:
            add(label, _judge_model(label), bool(d.blind), d.original_value, d.case_id)
    return rows


def judge_vs_human(labels: Sequence[Label], judges: _Judges) -> list[dict[str, Any]]:
    """One row per (metric, judge, blind): n, accuracy, kappa with its interval, the
    judge x human confusion matrix, the disagreements, the bulk accepts left out."""
    out = []
    for (metric, judge, blind), pairs in sorted(_judge_pairs(labels, judges).items()):
        n = len(pairs.judge)
        agree = [j == h for j, h in zip(pairs.judge, pairs.human, strict=True)]
        kappa = cohen_kappa_interval(pairs.judge, pairs.human)
        out.append(
            {
                "metric": metric,
                "model": judge,
                "blind": blind,
                "n": n,
                "raters": sorted(pairs.raters),
                "accuracy": round(sum(agree) / n, 4) if n else None,
                **_kappa_fields(kappa),
                "confusion": _confusion(pairs.judge, pairs.human),
                "bulk_left_out": pairs.bulk,
                "disagreements": [
                    LabelDisagreement(
                        label.target_id,
                        where,
                        {"judge": j, label.rater: h},
                        (label.decision.decision_id,),
                        label.decision.reason,
                    )
                    for label, where, j, h, ok in zip(
                        pairs.labels, pairs.where, pairs.judge, pairs.human, agree, strict=True
                    )
                    if not ok
                ],
            }
        )
    return out


def _usable(label: Label) -> bool:
    return label.decision.new_value is not None and not label.bulk


def between_annotators(labels: Sequence[Label]) -> list[dict[str, Any]]:
    """Per metric: Cohen's kappa (with its interval) for every pair of raters over the
    judgements both labelled, Fleiss' kappa over those every rater labelled (3 or more)."""
    by_metric: dict[str, dict[tuple[str, str], dict[str, Label]]] = {}
    for label in labels:
        if _usable(label):
            key = (label.scope, label.target_id)
            by_metric.setdefault(str(label.kind), {}).setdefault(key, {})[label.rater] = label
    rows: list[dict[str, Any]] = []
    for metric, per_target in sorted(by_metric.items()):
        raters = sorted({r for per in per_target.values() for r in per})
        for a, b in combinations(raters, 2):
            shared = [k for k, per in per_target.items() if a in per and b in per]
            if shared:
                rows.append(_rater_row(metric, [a, b], shared, per_target, "cohen"))
        if len(raters) >= 3:
            shared = [k for k, per in per_target.items() if all(r in per for r in raters)]
            if shared:
                rows.append(_rater_row(metric, raters, shared, per_target, "fleiss"))
    return rows


def _rater_row(
    metric: str,
    raters: list[str],
    keys: list[tuple[str, str]],
    per_target: dict[tuple[str, str], dict[str, Label]],
    kind: str,
) -> dict[str, Any]:
    values = {
        r: [category(metric, per_target[k][r].decision.new_value) or "" for k in keys]
        for r in raters
    }
    if kind == "cohen":
        kappa = cohen_kappa_interval(values[raters[0]], values[raters[1]]).json()
    else:
        categories = sorted({v for vs in values.values() for v in vs})
        table = np.array(
            [[sum(values[r][i] == c for r in raters) for c in categories] for i in range(len(keys))]
        )
        kappa = {"n": len(keys), "kappa": round(fleiss_kappa(table), 4), "ci95": None}
    agree = 0
    disagreements = []
    for i, key in enumerate(keys):
        if len({values[r][i] for r in raters}) == 1:
            agree += 1
            continue
        per = per_target[key]
        disagreements.append(
            LabelDisagreement(
                key[1],
                per[raters[0]].decision.case_id,
                {r: per[r].decision.new_value for r in raters},
                tuple(per[r].decision.decision_id for r in raters),
            )
        )
    return {
        "metric": metric,
        "annotators": raters,
        "kappa_kind": kind,
        **kappa,
        "agreement": round(agree / len(keys), 4),
        "disagreements": disagreements,
    }


def per_annotator(labels: Sequence[Label]) -> list[dict[str, Any]]:
    """Per rater: labels, items, acceptance of the judge's shown value, seconds per item,
    bulk accepts, and the warnings they earn."""
    out = []
    for rater in sorted({label.rater for label in labels}):
        own = [
            x
            for x in labels
            if x.rater == rater
            and not x.derived
            and not x.kind.is_harm
            and x.decision.new_value is not None
        ]
        if not own:
            continue
        shown = [x for x in own if not x.decision.blind and x.decision.original_value is not None]
        accepted = sum(
            category(x.kind, x.decision.new_value) == category(x.kind, x.decision.original_value)
            for x in shown
        )
        per_item: dict[tuple[str, str], float] = {}
        for x in own:
            if x.seconds is not None:
                key = (x.scope, x.item)
                per_item[key] = max(per_item.get(key, 0.0), x.seconds)
        seconds = statistics.median(per_item.values()) if per_item else None
        acceptance = round(accepted / len(shown), 4) if shown else None
        warnings = []
        if (
            acceptance is not None
            and len(shown) >= MIN_FOR_WARNING > 0
            and (acceptance > MAX_ACCEPTANCE)
        ):
            warnings.append(
                f"{rater} accepted the judge on {acceptance:.0%} of {len(shown)} verdicts "
                f"shown (over {MAX_ACCEPTANCE:.0%}): check they are not rubber-stamping"
            )
        timed = len(per_item) >= MIN_ITEMS_FOR_WARNING
        if seconds is not None and timed and seconds < MIN_SECONDS:
            warnings.append(
                f"{rater} spent {seconds:.1f} s per item (median of {len(per_item)} items, "
                f"under {MIN_SECONDS:g} s): too fast to have read them"
            )
        out.append(
            {
                "rater": rater,
                "labels": len(own),
                "items": len({(x.scope, x.item) for x in own}),
                "blind": sum(bool(x.decision.blind) for x in own),
                "bulk": sum(x.bulk for x in own),
                "shown": len(shown),
                "accepted": accepted,
                "acceptance_rate": acceptance,
                "seconds_per_item": None if seconds is None else round(seconds, 2),
                "timed_items": len(per_item),
                "warnings": warnings,
            }
        )
    return out


def _gold_answers(
    labels: Sequence[Label], judges: _Judges, set_id: str, item_id: str, seeder: str
) -> dict[str, str]:
    """target id -> the gold category: the seeder's labels on the item, else the file's."""
    answers: dict[str, str] = {}
    item = next((i for i in judges.items(set_id) if i.item_id == item_id), None)
    if item is not None:
        file = item.labels
        for kind, value, words in (
            (TargetKind.ASTRID_CR, file.cr, ("relevant", "irrelevant")),
            (TargetKind.ASTRID_RA, file.ra, ("refuses", "attempts")),
        ):
            if value is not None:
                answers[TargetRef.astrid_metric(item_id, kind).format()] = words[0 if value else 1]
        if file.cf is not None:
            answers[TargetRef.astrid_metric(item_id, TargetKind.ASTRID_CF).format()] = (
                "High" if cf_high(file.cf) else "Low"
            )
    for x in labels:
        mine = x.rater == seeder and x.scope == set_id and x.item == item_id
        if mine and _usable(x) and x.kind in JUDGED_ASTRID:
            answers[x.target_id] = category(x.kind, x.decision.new_value) or ""
    return answers


def gold_scores(labels: Sequence[Label], judges: _Judges, gold: dict[str, dict[str, str]]) -> list:
    """Per rater: their labels on gold items against the gold answers."""
    scores: dict[str, Counter[str]] = {}
    for set_id, items in gold.items():
        for item_id, seeder in items.items():
            answers = _gold_answers(labels, judges, set_id, item_id, seeder)
            for x in labels:
                if x.scope != set_id or x.item != item_id or x.rater == seeder or not _usable(x):
                    continue
                expected = answers.get(x.target_id)
                if expected is None:
                    continue
                got = scores.setdefault(x.rater, Counter())
                got["n"] += 1
                got["correct"] += category(x.kind, x.decision.new_value) == expected
                got[f"item:{set_id}/{item_id}"] = 1
    return [
        {
            "rater": rater,
            "gold_items": sum(1 for k in c if k.startswith("item:")),
            "n": c["n"],
            "correct": c["correct"],
            "accuracy": round(c["correct"] / c["n"], 4) if c["n"] else None,
        }
        for rater, c in sorted(scores.items())
    ]


def unsafe_marks(labels: Iterable[Label]) -> list[dict[str, Any]]:
    """Every standing harm label, the most severe first."""
    marks = []
    for x in labels:
        if not x.kind.is_harm or x.decision.new_value is None:
            continue
        ref = TargetRef.parse(x.target_id)
        try:
            severity = Severity(str(x.decision.new_value))
        except ValueError:
            continue
        marks.append(
            {
                "scope": x.scope,
                "item": ref.subject,
                "sentence": ref.sentence_number,
                "target_id": x.target_id,
                "severity": severity.value,
                "rater": x.rater,
                "reason": x.decision.reason,
                "case_id": x.decision.case_id,
            }
        )
    order = {s.value: s.rank for s in Severity}
    return sorted(marks, key=lambda m: (order[m["severity"]], m["scope"], m["item"], m["rater"]))


@dataclass(frozen=True)
class AgreementReport:
    labels: int
    judge: list[dict[str, Any]]
    annotators: list[dict[str, Any]]
    per_annotator: list[dict[str, Any]]
    gold: list[dict[str, Any]]
    unsafe: list[dict[str, Any]]

    @property
    def warnings(self) -> list[str]:
        return [w for row in self.per_annotator for w in row["warnings"]]

    @property
    def bulk_left_out(self) -> int:
        return sum(r["bulk_left_out"] for r in self.judge)

    def json(self) -> dict[str, Any]:
        def rows(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
            return [
                {
                    **r,
                    "disagreements": [
                        d.__dict__ | {"decision_ids": list(d.decision_ids)}
                        for d in r["disagreements"]
                    ],
                }
                for r in found
            ]

        return {
            "labels": self.labels,
            "judge_vs_human": rows(self.judge),
            "human_vs_human": rows(self.annotators),
            "per_annotator": self.per_annotator,
            "gold": self.gold,
            "unsafe": self.unsafe,
            "bulk_left_out": self.bulk_left_out,
            "warnings": self.warnings,
        }


def unsafe_first(rows: list[dict[str, Any]], unsafe: list[dict[str, Any]]) -> None:
    """Put the disagreements on items marked unsafe first in each row."""
    marked = {m["item"] for m in unsafe}

    def key(d: LabelDisagreement) -> bool:
        try:
            return TargetRef.parse(d.target_id).subject not in marked
        except ValueError:
            return True

    for row in rows:
        row["disagreements"] = sorted(row["disagreements"], key=key)


def agreement_report(repo: Repository) -> AgreementReport:
    labels = collect_labels(repo)
    judges = _Judges(repo)
    unsafe = unsafe_marks(labels)
    judge = judge_vs_human(labels, judges)
    annotators = between_annotators(labels)
    unsafe_first(judge, unsafe)
    unsafe_first(annotators, unsafe)
    return AgreementReport(
        labels=len(labels),
        judge=judge,
        annotators=annotators,
        per_annotator=per_annotator(labels),
        gold=gold_scores(labels, judges, LabelStore(repo).gold_items()),
        unsafe=unsafe,
    )
