"""Similarity of a candidate answer to the golden labels, from token embeddings.

Two measures, both in [-1, 1]:
- pooled cosine: the cosine of the mean token vectors of the two texts;
- MaxSim (late interaction, as in ColBERT): every golden-label token is matched to its most
  similar answer token (cosine), and those maxima are averaged over the label's tokens. It
  asks "how much of what the expert wrote does the answer cover, token by token".
Each is computed against every golden label of the question; the max and the mean over the
labels are kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

_EPS = 1e-12


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, _EPS)


def mean_pool(tokens: np.ndarray) -> np.ndarray:
    """The mean of a text's token vectors (n_tokens x dim -> dim)."""
    if tokens.ndim != 2 or tokens.shape[0] == 0:
        raise ValueError("token embeddings must be a non-empty 2-D array")
    return tokens.mean(axis=0)


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity of two vectors (0 when either is all zeros)."""
    denominator = float(np.linalg.norm(a) * np.linalg.norm(b))
    return 0.0 if denominator < _EPS else float(np.dot(a, b) / denominator)


def pooled_cosine(a_tokens: np.ndarray, b_tokens: np.ndarray) -> float:
    return cosine(mean_pool(a_tokens), mean_pool(b_tokens))


def maxsim(query_tokens: np.ndarray, doc_tokens: np.ndarray) -> float:
    """Mean over query tokens of the best cosine with any document token."""
    if query_tokens.shape[0] == 0 or doc_tokens.shape[0] == 0:
        raise ValueError("MaxSim needs at least one token on each side")
    scores = _unit_rows(query_tokens) @ _unit_rows(doc_tokens).T
    return float(scores.max(axis=1).mean())


@dataclass(frozen=True)
class LabelSimilarity:
    """One answer against all golden labels of its question."""

    cosine_max: float
    cosine_mean: float
    maxsim_max: float
    maxsim_mean: float
    labels: int


def score_answer(answer_tokens: np.ndarray, label_tokens: Sequence[np.ndarray]) -> LabelSimilarity:
    if not label_tokens:
        raise ValueError("a question needs at least one golden label")
    cosines = [pooled_cosine(answer_tokens, label) for label in label_tokens]
    maxsims = [maxsim(label, answer_tokens) for label in label_tokens]
    return LabelSimilarity(
        cosine_max=max(cosines),
        cosine_mean=float(np.mean(cosines)),
        maxsim_max=max(maxsims),
        maxsim_mean=float(np.mean(maxsims)),
        labels=len(label_tokens),
    )
