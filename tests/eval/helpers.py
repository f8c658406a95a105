"""Fixtures for EVAL tests: a fake embedder (hashed bag of words), an imported tiny set, and
answers produced by the scripted runtime."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from concord.eval.configs import GenerationConfig
from concord.eval.eval_store import EvalStore
from concord.eval.generate import generate_answers
from concord.eval.questions import load_question_set
from concord.llm.scripted import SCRIPTED_SHA256, ScriptedRuntime
from concord.store import Repository

DIM = 16
FAKE_EMBED_SHA = "e" * 64

QUESTIONS = """\
{"id": "q1", "question": "When to stop apixaban before high bleeding-risk surgery?", "context": "Omit apixaban for 48 hours.", "answers": ["Stop apixaban 48 hours before surgery.", {"expert": "E2", "text": "Two days before, no bridging."}]}
{"id": "q2", "question": "Potassium 6.3 before elective surgery?", "answers": ["Postpone surgery, repeat potassium, ECG.", "Cancel elective surgery and treat hyperkalaemia."]}
"""  # noqa: E501


class FakeEmbedder:
    """Each word maps to a fixed pseudo-random vector: shared words give similar texts."""

    model_name = "fake-embedder"
    model_sha256 = FAKE_EMBED_SHA

    def __init__(self) -> None:
        self.calls = 0

    def embed_tokens(self, text: str) -> np.ndarray:
        self.calls += 1
        rows = []
        for word in text.lower().replace(",", " ").replace(".", " ").split():
            seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:4], "big")
            rows.append(np.random.default_rng(seed).normal(size=DIM))
        return np.asarray(rows or [np.ones(DIM)], dtype=np.float32)

    def close(self) -> None:
        pass


@pytest.fixture
def question_file(tmp_path: Path) -> Path:
    path = tmp_path / "questions.jsonl"
    path.write_text(QUESTIONS, encoding="utf-8")
    return path


@pytest.fixture
def store(repo: Repository) -> EvalStore:
    return EvalStore(repo)


@pytest.fixture
def set_id(store: EvalStore, question_file: Path) -> str:
    set_id, created = store.import_set(load_question_set(question_file), "questions.jsonl", "ann")
    assert created
    return set_id


GOOD = {
    "q1": "Stop apixaban 48 hours before surgery, no bridging.",
    "q2": "Postpone surgery, repeat potassium and do an ECG.",
}
BAD = {"q1": "Bananas are yellow and taste sweet.", "q2": "The weather is nice today."}


def scripted_answers(request) -> str:
    """Low temperature: a good answer; high temperature: a bad one."""
    key = "q1" if "apixaban" in request.prompt else "q2"
    return (GOOD if request.temperature < 1.0 else BAD)[key] + f" s{request.seed % 7}"


def make_answers(store: EvalStore, set_id: str, temperatures=(0.2, 1.8), k: int = 3) -> None:
    runtime = ScriptedRuntime(scripted_answers)
    for t in temperatures:
        config = GenerationConfig("scripted", SCRIPTED_SHA256, t, False)
        list(generate_answers(store, runtime, set_id, config, k, "ann"))
