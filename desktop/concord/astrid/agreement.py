"""Judge-versus-human agreement per metric, the layout of Table 3 of the ASTRID paper.

For each judge model (one row) and metric: accuracy, precision, recall, F1 (positive class:
CF High, context relevant, answer refuses), Cohen's kappa and the confusion matrix, each
as mean and sd over the model's repeated runs (sample sd; 0 for a single run). Items whose
verdicts for the metric failed, or that have no human label, are left out and counted.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import (
    accuracy_score,
    cohen_kappa_score,
    confusion_matrix,
    precision_recall_fscore_support,
)

from concord.astrid.items import QaItem
from concord.astrid.metrics import cf_high
from concord.astrid.prompts import Metric
from concord.astrid.results import QaRun, RepeatResult, VerdictStatus
from concord.astrid.targets import ItemLabels

TABLE_METRICS = ("cf", "cr", "ra")
SENTENCE_METRICS = ("cf_sentence_info", "cf_sentence_grounded")
STATS = ("accuracy", "precision", "recall", "f1", "kappa")
POSITIVE = {
    "cf": "CF High",
    "cr": "relevant",
    "ra": "refuses",
    "cf_sentence_info": "information",
    "cf_sentence_grounded": "grounded",
}


def binary_agreement(human: Sequence[bool], judge: Sequence[bool]) -> dict[str, Any]:
    """Agreement of one set of paired binary labels (scikit-learn does the arithmetic).
    Kappa is None where it is undefined (both raters constant and equal)."""
    y_true = np.asarray(human, dtype=int)
    y_pred = np.asarray(judge, dtype=int)
    if len(y_true) == 0:
        return {"n": 0, **{s: None for s in STATS}, "confusion": [[0, 0], [0, 0]]}
    precision, recall, f1, _ = precision_recall_fscore_support(
        y_true, y_pred, average="binary", pos_label=1, labels=[0, 1], zero_division=0
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        kappa = float(cohen_kappa_score(y_true, y_pred, labels=[0, 1]))
    return {
        "n": int(len(y_true)),
        "accuracy": float(accuracy_score(y_true, y_pred)),
        "precision": float(precision),
        "recall": float(recall),
        "f1": float(f1),
        "kappa": None if math.isnan(kappa) else kappa,
        "confusion": confusion_matrix(y_true, y_pred, labels=[0, 1]).tolist(),
    }


def _pairs(
    rep: RepeatResult, items: Sequence[QaItem], labels: Mapping[str, ItemLabels]
) -> dict[str, tuple[list[bool], list[bool], int]]:
    """Per metric: (human, judge, left out) over one repeat."""
    scores = {s.item_id: s for s in rep.scores}
    failed: dict[str, set[str]] = {}
    sentence: dict[tuple[str, str, int], bool | None] = {}
    for v in rep.verdicts:
        if v.status != VerdictStatus.OK:
            key = "cf" if v.metric in (Metric.CF_INFO, Metric.CF_GROUNDED) else str(v.metric)
            failed.setdefault(v.item_id, set()).add(key)
        if v.sentence_index is not None:
            sentence[(v.item_id, v.metric, v.sentence_index)] = v.value
    out: dict[str, tuple[list[bool], list[bool], int]] = {
        m: ([], [], 0) for m in (*TABLE_METRICS, *SENTENCE_METRICS)
    }

    def add(metric: str, human: bool | None, judge: bool | None, usable: bool = True) -> None:
        h, j, left = out[metric]
        if human is None:
            return
        if judge is None or not usable:
            out[metric] = (h, j, left + 1)
            return
        h.append(human)
        j.append(judge)

    for item in items:
        score, got = scores.get(item.item_id), labels.get(item.item_id)
        if score is None or got is None:
            continue
        bad = failed.get(item.item_id, set())
        add("cf", None if got.cf is None else cf_high(got.cf), cf_high(score.cf), "cf" not in bad)
        add("cr", got.cr, score.cr)
        add("ra", got.ra, score.ra_refused)
        for index, value in got.sentences.items():
            info = sentence.get((item.item_id, Metric.CF_INFO, index))
            add("cf_sentence_info", value != "conversational", info)
            if value != "conversational" and info is not False:
                add(
                    "cf_sentence_grounded",
                    value == "grounded",
                    sentence.get((item.item_id, Metric.CF_GROUNDED, index)),
                )
    return out


def _mean_sd(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"mean": None, "sd": None}
    sd = float(np.std(values, ddof=1)) if len(values) > 1 else 0.0
    return {"mean": float(np.mean(values)), "sd": sd}


@dataclass(frozen=True)
class ModelAgreement:
    model_name: str
    runs: tuple[str, ...]
    repeats: int
    metrics: dict[str, dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model_name,
            "runs": list(self.runs),
            "repeats": self.repeats,
            "metrics": self.metrics,
        }


def model_agreement(
    runs: Sequence[QaRun], items: Sequence[QaItem], labels: Mapping[str, ItemLabels]
) -> ModelAgreement:
    """One row: every repeat of every run given (all by one judge model)."""
    per_metric: dict[str, list[dict[str, Any]]] = {
        m: [] for m in (*TABLE_METRICS, *SENTENCE_METRICS)
    }
    for run in runs:
        for rep in run.repeats:
            for metric, (human, judge, left) in _pairs(rep, items, labels).items():
                per_metric[metric].append({**binary_agreement(human, judge), "left_out": left})
    metrics: dict[str, dict[str, Any]] = {}
    for metric, results in per_metric.items():
        if not any(r["n"] for r in results):
            if metric in SENTENCE_METRICS:
                continue
            metrics[metric] = {
                "n": 0,
                "positive": POSITIVE[metric],
                "note": "no human labels for this metric",
            }
            continue
        summary: dict[str, Any] = {
            "positive": POSITIVE[metric],
            "n": [r["n"] for r in results],
            "left_out": [r["left_out"] for r in results],
        }
        for stat in STATS:
            summary[stat] = _mean_sd([r[stat] for r in results if r[stat] is not None])
        summary["confusion"] = np.sum([r["confusion"] for r in results], axis=0).tolist()
        summary["confusion_layout"] = (
            "[[human no & judge no, human no & judge yes], "
            "[human yes & judge no, human yes & judge yes]], "
            "summed over repeats"
        )
        metrics[metric] = summary
    return ModelAgreement(
        model_name=runs[0].model_name if runs else "",
        runs=tuple(r.run_id for r in runs),
        repeats=sum(len(r.repeats) for r in runs),
        metrics=metrics,
    )


def agreement_table(
    runs: Sequence[QaRun], items: Sequence[QaItem], labels: Mapping[str, ItemLabels]
) -> list[ModelAgreement]:
    """One row per judge model (runs grouped by model name and hash)."""
    groups: dict[tuple[str, str], list[QaRun]] = {}
    for run in runs:
        groups.setdefault((run.model_name, run.model_sha256), []).append(run)
    return [model_agreement(group, items, labels) for group in groups.values()]


def refusal_vs_scope(run: QaRun) -> dict[str, Any]:
    """Refusal accuracy against scope: the share of scoped items where the answer refused
    exactly when the question was out of scope, mean and sd over repeats."""
    shares = []
    n = []
    for rep in run.repeats:
        known = [s.ra_correct for s in rep.scores if s.ra_correct is not None]
        n.append(len(known))
        if known:
            shares.append(sum(known) / len(known))
    return {"n": n, **_mean_sd(shares)}


def _cell(stat: dict[str, float | None] | None) -> str:
    if not stat or stat.get("mean") is None:
        return "-"
    return f"{stat['mean']:.2f} ± {stat['sd']:.3f}"


def render_table(rows: Sequence[ModelAgreement]) -> str:
    """Plain-text Table 3: one row per judge model; accuracy, F1 and kappa per metric."""
    head = ["model"] + [f"{m.upper()} {s}" for m in TABLE_METRICS for s in ("acc", "F1", "κ")]
    body = []
    for row in rows:
        cells = [row.model_name]
        for metric in TABLE_METRICS:
            got = row.metrics.get(metric, {})
            cells += [_cell(got.get("accuracy")), _cell(got.get("f1")), _cell(got.get("kappa"))]
        body.append(cells)
    widths = [max(len(str(r[i])) for r in [head, *body]) for i in range(len(head))]
    lines = [
        "  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) for r in [head, *body]
    ]
    return "\n".join(lines)
