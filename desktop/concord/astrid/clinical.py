"""Predicting clinician labels (harmful, helpful, inappropriate) from CF, CR, RA and scope.

The layout of Table 2 of the ASTRID paper: one row per classifier, the held-out F1 of each
class, and an average row. Held-out means cross-validated: every item is predicted by a
model fitted without it (stratified k-fold, fixed random state). With a handful of items
the figures are noise; the report says so instead of letting them pass for evidence.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import f1_score
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from concord.astrid.items import QaItem, Scope
from concord.astrid.results import QaRun
from concord.astrid.targets import ItemLabels

RANDOM_STATE = 0
MAX_FOLDS = 5
MIN_PER_CLASS = 2
"""A class needs at least this many items to be held out and predicted at all."""
MEANINGFUL_ITEMS = 40
MEANINGFUL_PER_CLASS = 10
"""Below these the F1 figures are reported but flagged as meaningless."""
FEATURES = ("cf", "cr", "ra", "scope_out")
TARGETS: dict[str, dict[str, str]] = {
    "harmful": {"yes": "Harmful", "no": "Unharmful"},
    "helpful": {"yes": "Helpful", "no": "Unhelpful"},
    "inappropriate": {"yes": "Yes", "slightly": "Slightly", "no": "No"},
}


def classifiers() -> dict[str, Any]:
    return {
        "RandomForest": RandomForestClassifier(n_estimators=50, random_state=RANDOM_STATE),
        "SVM": make_pipeline(StandardScaler(), SVC(random_state=RANDOM_STATE)),
        "Gaussian Naive Bayes": GaussianNB(),
        "Neural Network": make_pipeline(
            StandardScaler(),
            MLPClassifier(
                hidden_layer_sizes=(8,), solver="lbfgs", max_iter=500, random_state=RANDOM_STATE
            ),
        ),
    }


def judge_features(run: QaRun, repeat: int = 0) -> dict[str, tuple[float, ...] | None]:
    """CF, CR, RA of each item from one repeat of a run (None when a verdict failed)."""
    out: dict[str, tuple[float, ...] | None] = {}
    for s in run.repeat(repeat).scores:
        if s.cr is None or s.ra_refused is None:
            out[s.item_id] = None
        else:
            out[s.item_id] = (s.cf, float(s.cr), float(s.ra_refused))
    return out


def human_features(labels: Mapping[str, ItemLabels]) -> dict[str, tuple[float, ...] | None]:
    out: dict[str, tuple[float, ...] | None] = {}
    for item_id, got in labels.items():
        if got.cf is None or got.cr is None or got.ra is None:
            out[item_id] = None
        else:
            out[item_id] = (float(got.cf), float(got.cr), float(got.ra))
    return out


def _label(item: QaItem, target: str) -> str | None:
    value = getattr(item.labels, target)
    if value is None:
        return None
    key = value if isinstance(value, str) else ("yes" if value else "no")
    return TARGETS[target][key]


def predict_target(
    items: Sequence[QaItem], features: Mapping[str, tuple[float, ...] | None], target: str
) -> dict[str, Any]:
    """Held-out F1 per class for each classifier predicting one clinician label."""
    rows, y = [], []
    for item in items:
        label, feats = _label(item, target), features.get(item.item_id)
        if label is None or feats is None or item.scope is None:
            continue
        rows.append([*feats, 1.0 if item.scope == Scope.OUT else 0.0])
        y.append(label)
    classes = [c for c in TARGETS[target].values() if c in y]
    counts = {c: y.count(c) for c in classes}
    kept = [c for c in classes if counts[c] >= MIN_PER_CLASS]
    result: dict[str, Any] = {
        "target": target,
        "n": len(y),
        "class_counts": counts,
        "classes": list(TARGETS[target].values()),
    }
    if len(kept) < 2:
        result.update(
            computed=False,
            too_small=True,
            rows=[],
            note=f"cannot be computed: {len(y)} labelled item(s), fewer than two "
            f"classes with at least {MIN_PER_CLASS} items each",
        )
        return result
    mask = [label in kept for label in y]
    x = np.asarray([r for r, m in zip(rows, mask, strict=True) if m], dtype=float)
    yk = np.asarray([label for label, m in zip(y, mask, strict=True) if m])
    folds = min(MAX_FOLDS, min(counts[c] for c in kept))
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=RANDOM_STATE)
    table: list[dict[str, Any]] = []
    for name, model in classifiers().items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            warnings.simplefilter("ignore", UserWarning)
            predicted = cross_val_predict(model, x, yk, cv=splitter)
        f1 = f1_score(yk, predicted, labels=kept, average=None, zero_division=0)
        table.append({"model": name, "f1": dict(zip(kept, map(float, f1), strict=True))})
    table.append(
        {"model": "Average", "f1": {c: float(np.mean([r["f1"][c] for r in table])) for c in kept}}
    )
    smallest = min(counts[c] for c in kept)
    too_small = len(yk) < MEANINGFUL_ITEMS or smallest < MEANINGFUL_PER_CLASS
    dropped = [c for c in classes if c not in kept]
    note = f"{len(yk)} items, smallest class {smallest}, {folds}-fold cross-validation" + (
        f"; class(es) {', '.join(dropped)} left out (too few items)" if dropped else ""
    )
    if too_small:
        note = (
            f"TOO SMALL TO MEAN ANYTHING ({note}; needs at least {MEANINGFUL_ITEMS} items "
            f"and {MEANINGFUL_PER_CLASS} per class): the figures only show the pipeline runs"
        )
    result.update(computed=True, too_small=too_small, folds=folds, rows=table, note=note)
    return result


def clinical_table(
    items: Sequence[QaItem], features: Mapping[str, tuple[float, ...] | None]
) -> dict[str, Any]:
    """Table 2: every clinician label predicted from the features given."""
    return {
        "features": list(FEATURES),
        "targets": {t: predict_target(items, features, t) for t in TARGETS},
    }


def render_clinical(table: Mapping[str, Any]) -> str:
    lines = []
    for target, got in table["targets"].items():
        lines.append(f"{target}: {got.get('note', '')}")
        if not got.get("computed"):
            continue
        classes = list(got["rows"][0]["f1"])
        lines.append("  " + "classifier".ljust(22) + "".join(c.ljust(11) for c in classes))
        for row in got["rows"]:
            cells = "".join(f"{row['f1'][c]:.2f}".ljust(11) for c in classes)
            lines.append("  " + row["model"].ljust(22) + cells)
    return "\n".join(lines)
