"""Cohen's kappa with a confidence interval.

The point estimate is scikit-learn's `cohen_kappa_score`. The interval is a percentile
bootstrap over the paired items (`RESAMPLES` resamples, a fixed seed, so the same labels
always give the same interval): with the few dozen items an annotation round has, the
normal approximation of kappa's standard error is poor, and the bootstrap needs no formula
of its own. Kappa is undefined (None) when both raters used one and the same category on
every item (chance agreement is then 1); resamples where it is undefined are left out, and
no interval is given when more than half of them are.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

RESAMPLES = 2000
LEVEL = 0.95
SEED = 20240527


@dataclass(frozen=True)
class Kappa:
    n: int
    kappa: float | None
    low: float | None
    high: float | None

    def json(self) -> dict[str, object]:
        return {
            "n": self.n,
            "kappa": _round(self.kappa),
            "ci95": None if self.low is None else [_round(self.low), _round(self.high)],
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _codes(a: Sequence[str], b: Sequence[str]) -> tuple[np.ndarray, np.ndarray, int]:
    categories = sorted(set(a) | set(b))
    index = {c: n for n, c in enumerate(categories)}
    return (
        np.array([index[x] for x in a], dtype=int),
        np.array([index[x] for x in b], dtype=int),
        len(categories),
    )


def _kappas(a: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    """Kappa of each row of paired code matrices (resamples x items); NaN where undefined."""
    observed = (a == b).mean(axis=1)
    expected = np.zeros(a.shape[0])
    for c in range(k):
        expected += (a == c).mean(axis=1) * (b == c).mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(expected < 1.0, (observed - expected) / (1.0 - expected), np.nan)


def cohen_kappa_interval(
    a: Sequence[str], b: Sequence[str], *, resamples: int = RESAMPLES, seed: int = SEED
) -> Kappa:
    """Kappa of two raters' paired categorical labels, with its 95% bootstrap interval."""
    if len(a) != len(b):
        raise ValueError("kappa needs paired labels")
    n = len(a)
    if n == 0:
        return Kappa(0, None, None, None)
    from sklearn.metrics import cohen_kappa_score

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", UserWarning)  # sklearn: one label only (kappa n/a)
        point = float(cohen_kappa_score(list(a), list(b)))
    if math.isnan(point):
        return Kappa(n, None, None, None)
    x, y, k = _codes(a, b)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, n, size=(resamples, n))
    values = _kappas(x[picks], y[picks], k)
    values = values[~np.isnan(values)]
    if len(values) < resamples / 2:
        return Kappa(n, point, None, None)
    tail = (1.0 - LEVEL) / 2
    low, high = np.quantile(values, [tail, 1.0 - tail])
    return Kappa(n, point, float(low), float(high))
