"""Features of a (question, answer) pair for the reward model: the similarity measures
against the golden labels, the question-answer cosine, the answer's length, and the answer's
pooled embedding (unit length)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from concord.errors import InputError
from concord.eval.embedder import Embedder
from concord.eval.eval_store import EvalStore
from concord.eval.rows import Answer, Question
from concord.eval.similarity import cosine, mean_pool

SCALAR_FEATURES = (
    "cosine_max",
    "cosine_mean",
    "maxsim_max",
    "maxsim_mean",
    "question_cosine",
    "log_tokens",
)


class FeatureBuilder:
    """Builds feature rows from cached embeddings, loading the embedder only on a miss."""

    def __init__(
        self,
        store: EvalStore,
        embed_sha256: str,
        load_embedder: Callable[[], Embedder],
        *,
        with_embedding: bool = True,
    ) -> None:
        self.store = store
        self.embed_sha256 = embed_sha256
        self._load = load_embedder
        self._embedder: Embedder | None = None
        self.with_embedding = with_embedding

    def _tokens(self, text: str) -> np.ndarray:
        text = text if text.strip() else "(no answer)"
        cached = self.store.cached_embedding(text, self.embed_sha256)
        if cached is not None:
            return cached
        if self._embedder is None:
            self._embedder = self._load()
            if self._embedder.model_sha256 != self.embed_sha256:
                raise InputError("the embedder is not the one the features were built with")
        vectors = self._embedder.embed_tokens(text)
        self.store.cache_embedding(text, self.embed_sha256, vectors)
        return vectors

    def names(self, dim: int) -> list[str]:
        extra = [f"emb_{i}" for i in range(dim)] if self.with_embedding else []
        return [*SCALAR_FEATURES, *extra]

    def rows(self, answers: Sequence[Answer], questions: dict[str, Question]) -> np.ndarray:
        sims = self.store.similarities(self.embed_sha256)
        missing = [a.answer_id for a in answers if a.answer_id not in sims]
        if missing:
            raise InputError(
                f"{len(missing)} answer(s) have no similarity scores yet; run "
                "`concord eval similarity` first",
                subject=missing[0],
            )
        out = []
        for answer in answers:
            s = sims[answer.answer_id]
            answer_tokens = self._tokens(answer.text)
            pooled = mean_pool(answer_tokens)
            question_pooled = mean_pool(self._tokens(questions[answer.question_id].text))
            scalars = [
                s.cosine_max,
                s.cosine_mean,
                s.maxsim_max,
                s.maxsim_mean,
                cosine(pooled, question_pooled),
                float(np.log1p(answer.completion_tokens)),
            ]
            if self.with_embedding:
                unit = pooled / max(float(np.linalg.norm(pooled)), 1e-12)
                out.append(np.concatenate([np.asarray(scalars), unit]))
            else:
                out.append(np.asarray(scalars))
        return np.vstack(out) if out else np.zeros((0, len(SCALAR_FEATURES)))

    def close(self) -> None:
        if self._embedder is not None:
            self._embedder.close()
            self._embedder = None
