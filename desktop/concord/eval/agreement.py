"""Agreement from the decision log: judge vs human per metric and model, and between
annotators (Cohen's kappa for two, Fleiss' kappa for three or more).

A decision's `original_value` is what the judge showed and `new_value` the human value; a
decision with no original value (nothing was shown) has no judge to agree with. Each user
counts once per judgement: their latest standing decision (an undo withdraws one). The
record screen's gates are rules, not a model: they are credited to `RULE_BASED_SCREEN`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from concord.domain import Decision, TargetKind
from concord.domain.decision_history import standing_decisions
from concord.store.codec import to_json


def _key(value: Any) -> str:
    """Values compared as canonical JSON, so 0.5 == 0.5 and {"a": 1} == {"a": 1}."""
    return to_json(value)


def fleiss_kappa(table: np.ndarray) -> float:
    """Fleiss' kappa from an items x categories table of rater counts (same raters per item)."""
    counts = np.asarray(table, dtype=float)
    if counts.ndim != 2 or counts.shape[0] == 0:
        raise ValueError("need an items x categories table")
    raters = counts.sum(axis=1)
    if not np.all(raters == raters[0]) or raters[0] < 2:
        raise ValueError("every item needs the same number (>= 2) of ratings")
    n = raters[0]
    p_item = ((counts * counts).sum(axis=1) - n) / (n * (n - 1))
    p_cat = counts.sum(axis=0) / counts.sum()
    p_bar, p_expected = p_item.mean(), float((p_cat * p_cat).sum())
    if p_expected == 1.0:
        return 1.0 if p_bar == 1.0 else 0.0
    return float((p_bar - p_expected) / (1.0 - p_expected))


def cohen_kappa(a: Sequence[str], b: Sequence[str]) -> float | None:
    from sklearn.metrics import cohen_kappa_score

    if not a:
        return None
    if len(set(a) | set(b)) == 1:
        return 1.0  # total agreement on one category: sklearn returns nan
    return float(cohen_kappa_score(list(a), list(b)))


@dataclass(frozen=True)
class LabelDisagreement:
    target_id: str
    case_id: str
    values: dict[str, Any]  # who -> value ("judge" for the judge)
    decision_ids: tuple[str, ...]
    reason: str = ""


def _latest_by_user(decisions: Sequence[Decision]) -> dict[str, dict[str, Decision]]:
    """target_id -> user -> that user's latest decision on it."""
    out: dict[str, dict[str, Decision]] = {}
    for d in decisions:
        out.setdefault(d.target_id, {})[d.user] = d
    return out


RULE_BASED_SCREEN = "record screen (rules, no model)"
RULE_BASED_KINDS = frozenset({TargetKind.GATE})  # judged by the deterministic record screen


def latest_standing(decisions: Sequence[Decision]) -> list[Decision]:
    """Each user's latest standing decision per (case, judgement), in log order."""
    latest: dict[tuple[str, str, str], Decision] = {}
    for d in standing_decisions(decisions):
        key = (d.case_id, d.target_id, d.user)
        latest.pop(key, None)  # inserted again: the dict keeps the latest one's place
        latest[key] = d
    return list(latest.values())


def judge_vs_human(decisions: Sequence[Decision]) -> list[dict[str, Any]]:
    """One row per (metric = target_kind, model): n, accuracy, Cohen's kappa, disagreements."""
    groups: dict[tuple[str, str], list[Decision]] = {}
    for d in latest_standing(decisions):
        if d.original_value is None:
            continue
        if d.target_kind in RULE_BASED_KINDS:
            model = RULE_BASED_SCREEN
        else:
            model = d.shown.get("model_name") or d.shown.get("model_sha256", "")[:12] or "unknown"
        groups.setdefault((d.target_kind, model), []).append(d)
    rows = []
    for (metric, model), items in sorted(groups.items()):
        judge = [_key(d.original_value) for d in items]
        human = [_key(d.new_value) for d in items]
        agree = [j == h for j, h in zip(judge, human, strict=True)]
        rows.append(
            {
                "metric": metric,
                "model": model,
                "n": len(items),
                "accuracy": round(sum(agree) / len(items), 4),
                "kappa": _round(cohen_kappa(judge, human)),
                "disagreements": [
                    LabelDisagreement(
                        d.target_id,
                        d.case_id,
                        {"judge": d.original_value, d.user: d.new_value},
                        (d.decision_id,),
                        d.reason,
                    )
                    for d, ok in zip(items, agree, strict=True)
                    if not ok
                ],
            }
        )
    return rows


def _round(value: float | None) -> float | None:
    return None if value is None or np.isnan(value) else round(value, 4)


def between_annotators(decisions: Sequence[Decision]) -> list[dict[str, Any]]:
    """Per metric: Cohen's kappa for every pair of users over the targets both decided, and
    Fleiss' kappa over the targets every user of that metric decided (three users or more)."""
    by_metric: dict[str, list[Decision]] = {}
    for d in standing_decisions(decisions):
        by_metric.setdefault(d.target_kind, []).append(d)
    rows: list[dict[str, Any]] = []
    for metric, items in sorted(by_metric.items()):
        latest = _latest_by_user(items)
        users = sorted({u for per_target in latest.values() for u in per_target})
        for a, b in combinations(users, 2):
            shared = [t for t, per in latest.items() if a in per and b in per]
            if shared:
                rows.append(_group_row(metric, [a, b], shared, latest, "cohen"))
        if len(users) >= 3:
            shared = [t for t, per in latest.items() if all(u in per for u in users)]
            if shared:
                rows.append(_group_row(metric, users, shared, latest, "fleiss"))
    return rows


def _group_row(
    metric: str,
    users: list[str],
    targets: list[str],
    latest: dict[str, dict[str, Decision]],
    kind: str,
) -> dict[str, Any]:
    values = {u: [_key(latest[t][u].new_value) for t in targets] for u in users}
    if kind == "cohen":
        kappa = cohen_kappa(values[users[0]], values[users[1]])
    else:
        categories = sorted({v for vs in values.values() for v in vs})
        table = np.array(
            [
                [sum(values[u][i] == c for u in users) for c in categories]
                for i in range(len(targets))
            ]
        )
        kappa = fleiss_kappa(table)
    disagreements = []
    agree = 0
    for i, target in enumerate(targets):
        seen = {values[u][i] for u in users}
        if len(seen) == 1:
            agree += 1
            continue
        per = latest[target]
        disagreements.append(
            LabelDisagreement(
                target,
                per[users[0]].case_id,
                {u: per[u].new_value for u in users},
                tuple(per[u].decision_id for u in users),
            )
        )
    return {
        "metric": metric,
        "annotators": users,
        "kappa_kind": kind,
        "n": len(targets),
        "agreement": round(agree / len(targets), 4),
        "kappa": _round(kappa),
        "disagreements": disagreements,
    }


def as_json(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for row in rows:
        row = dict(row)
        row["disagreements"] = [
            d.__dict__ | {"decision_ids": list(d.decision_ids)} for d in row["disagreements"]
        ]
        out.append(row)
    return out
