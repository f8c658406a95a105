"""The reward model: logistic regression (scikit-learn) from (question, answer) features to
the clinicians' good/bad grade, validated on a held-out split.

The fitted model is stored as plain JSON (feature names, scaler mean and scale, coefficients,
intercept), never pickled; its version is the hash of that JSON and of the training ids, and
every prediction records the version that made it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from concord.errors import InputError
from concord.eval.bands import BANDS, OVERALL
from concord.store.codec import to_json

TEST_FRACTION = 0.3
DEFAULT_SEED = 13
REGULARISATION_C = 0.5
"""Inverse L2 strength: strong on purpose, the graded sets are small."""
THRESHOLD = 0.5
MIN_GRADED = 6
LABELS = ("good", "bad")
"""Confusion-matrix order: rows are the human grade, columns the model's."""


@dataclass(frozen=True)
class RewardModel:
    version: str
    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    threshold: float = THRESHOLD

    @classmethod
    def from_params(cls, version: str, params: dict[str, Any]) -> RewardModel:
        return cls(
            version=version,
            features=tuple(params["features"]),
            mean=np.asarray(params["mean"], dtype=float),
            scale=np.asarray(params["scale"], dtype=float),
            coef=np.asarray(params["coef"], dtype=float),
            intercept=float(params["intercept"]),
            threshold=float(params.get("threshold", THRESHOLD)),
        )

    def scores(self, x: np.ndarray) -> np.ndarray:
        """P(good) per row."""
        if x.shape[1] != self.coef.shape[0]:
            raise InputError(
                f"reward model {self.version} expects {self.coef.shape[0]} features, "
                f"got {x.shape[1]}"
            )
        z = ((x - self.mean) / self.scale) @ self.coef + self.intercept
        return 1.0 / (1.0 + np.exp(-z))

    def grades(self, x: np.ndarray) -> list[str]:
        return ["good" if s >= self.threshold else "bad" for s in self.scores(x)]


@dataclass(frozen=True)
class RewardFit:
    version: str
    params: dict[str, Any]
    metrics: dict[str, Any]
    train_ids: tuple[str, ...]
    test_ids: tuple[str, ...]


def band_metrics(human: Sequence[str], model: Sequence[str]) -> dict[str, Any]:
    """Accuracy, F1 (good = positive), confusion matrix and true-label rate per human grade:
    one panel of the EVAL paper's Figure 6."""
    from sklearn.metrics import accuracy_score, confusion_matrix, f1_score

    n = len(human)
    if n == 0:
        return {"n": 0, "accuracy": None, "f1": None, "confusion": None, "true_label_rate": None}
    matrix = confusion_matrix(list(human), list(model), labels=list(LABELS))
    rates = {}
    for i, label in enumerate(LABELS):
        row_total = int(matrix[i].sum())
        rates[label] = round(float(matrix[i, i]) / row_total, 4) if row_total else None
    return {
        "n": n,
        "accuracy": round(float(accuracy_score(human, model)), 4),
        "f1": round(float(f1_score(human, model, pos_label="good", zero_division=0)), 4),
        "confusion": {"labels": list(LABELS), "rows_human_cols_model": matrix.tolist()},
        "true_label_rate": rates,
    }


def metrics_by_band(
    human: Sequence[str], model: Sequence[str], bands: Sequence[str]
) -> dict[str, Any]:
    out = {OVERALL: band_metrics(human, model)}
    for band in BANDS:
        picks = [i for i, b in enumerate(bands) if b == band.name]
        out[band.name] = band_metrics([human[i] for i in picks], [model[i] for i in picks])
        out[band.name]["title"] = band.title
    return out


def _split(ids: Sequence[str], y: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.model_selection import train_test_split

    index = np.arange(len(ids))
    counts = np.bincount(y, minlength=2)
    stratify = y if counts.min() >= 2 else None
    train, test = train_test_split(
        index, test_size=TEST_FRACTION, random_state=seed, stratify=stratify
    )
    return np.sort(train), np.sort(test)


def fit_reward_model(
    x: np.ndarray,
    grades: Sequence[str],
    ids: Sequence[str],
    bands: Sequence[str],
    feature_names: Sequence[str],
    *,
    seed: int = DEFAULT_SEED,
    c: float = REGULARISATION_C,
) -> RewardFit:
    """Train on a seeded split, report held-out metrics per temperature band."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    if len(grades) < MIN_GRADED:
        raise InputError(f"{len(grades)} graded answers; the reward model needs {MIN_GRADED}")
    y = np.asarray([1 if g == "good" else 0 for g in grades], dtype=int)
    if y.min() == y.max():
        raise InputError("every graded answer has the same grade; grade some good and some bad")
    train, test = _split(ids, y, seed)
    if y[train].min() == y[train].max():
        raise InputError("the training split holds one grade only; grade more answers")
    scaler = StandardScaler().fit(x[train])
    model = LogisticRegression(C=c, class_weight="balanced", max_iter=2000, random_state=seed)
    model.fit(scaler.transform(x[train]), y[train])
    params = {
        "kind": "sklearn.LogisticRegression over standardised features",
        "features": list(feature_names),
        "mean": scaler.mean_.tolist(),
        "scale": [s if s > 0 else 1.0 for s in scaler.scale_.tolist()],
        "coef": model.coef_[0].tolist(),
        "intercept": float(model.intercept_[0]),
        "threshold": THRESHOLD,
        "C": c,
        "class_weight": "balanced",
    }
    train_ids = tuple(ids[i] for i in train)
    digest = hashlib.sha256((to_json(params) + to_json(list(train_ids))).encode()).hexdigest()
    version = "RM-" + digest[:12]
    fitted = RewardModel.from_params(version, params)
    predicted = fitted.grades(x[test])
    human = [grades[i] for i in test]
    metrics = {
        "seed": seed,
        "test_fraction": TEST_FRACTION,
        "n_train": len(train),
        "n_test": len(test),
        "train_good": int(y[train].sum()),
        "test_good": int(y[test].sum()),
        "held_out": metrics_by_band(human, predicted, [bands[i] for i in test]),
        "training": metrics_by_band(
            [grades[i] for i in train], fitted.grades(x[train]), [bands[i] for i in train]
        ),
    }
    return RewardFit(version, params, metrics, train_ids, tuple(ids[i] for i in test))
