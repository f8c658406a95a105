"""Agreement and rate intervals for validation reports (scikit-learn and numpy do the
arithmetic): Cohen's kappa with a percentile-bootstrap 95% interval, and the Wilson 95%
interval of a proportion."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
from sklearn.metrics import cohen_kappa_score

from concord.site.figures import Agreement, Rate

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
Z_95 = 1.959963984540054


def _kappa(human: Sequence[str], model: Sequence[str], labels: Sequence[str]) -> float | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = float(cohen_kappa_score(human, model, labels=list(labels)))
    return None if math.isnan(value) else value


def _bootstrap_kappas(
    human: Sequence[str], model: Sequence[str], labels: Sequence[str], resamples: int, seed: int
) -> np.ndarray:
    """Cohen's kappa of each bootstrap resample of the pairs, computed from confusion
    matrices all at once (the same formula as scikit-learn's); undefined ones dropped."""
    index = {label: i for i, label in enumerate(labels)}
    k, n = len(labels), len(human)
    codes = np.asarray([index[h] * k + index[m] for h, m in zip(human, model, strict=True)])
    picks = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    sampled = codes[picks] + (np.arange(resamples) * k * k)[:, None]
    confusion = np.bincount(sampled.ravel(), minlength=resamples * k * k).reshape(resamples, k, k)
    observed = np.trace(confusion, axis1=1, axis2=2) / n
    expected = (confusion.sum(axis=2) * confusion.sum(axis=1)).sum(axis=1) / (n * n)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappas = (observed - expected) / (1.0 - expected)
    return kappas[np.isfinite(kappas)]


def kappa_with_interval(
    human: Sequence[str],
    model: Sequence[str],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> Agreement:
    """Cohen's kappa of paired categorical labels, with the 2.5th and 97.5th percentiles of
    `resamples` bootstrap resamples of the pairs (resamples where kappa is undefined, all
    one category, are left out and counted in the note)."""
    if len(human) != len(model):
        raise ValueError("human and model labels must be paired")
    n = len(human)
    labels = tuple(sorted(set(human) | set(model)))
    if n == 0:
        return Agreement(n=0, note="no clinician decisions to compare with")
    observed = float(np.mean([h == m for h, m in zip(human, model, strict=True)]))
    kappa = _kappa(human, model, labels)
    if kappa is None:
        return Agreement(
            n=n,
            observed=observed,
            labels=labels,
            note="kappa undefined: every label, human and model, is one category",
        )
    values = _bootstrap_kappas(human, model, labels, resamples, seed)
    low, high = (
        (float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5)))
        if len(values)
        else (None, None)
    )
    skipped = resamples - len(values)
    note = f"{skipped} resample(s) with one category left out" if skipped else ""
    if n < 10:
        note = (note + "; " if note else "") + f"n = {n}: the interval is very wide"
    return Agreement(
        n=n,
        kappa=kappa,
        ci_low=low,
        ci_high=high,
        observed=observed,
        method=f"percentile bootstrap, {resamples} resamples, seed {seed}",
        labels=labels,
        note=note,
    )


def wilson_interval(rate: Rate) -> tuple[float, float] | None:
    """The Wilson score 95% interval of numerator/denominator (None for 0/0)."""
    n = rate.denominator
    if n == 0:
        return None
    p = rate.numerator / n
    z2 = Z_95 * Z_95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z_95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)
