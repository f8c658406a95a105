"""Greedy grammar-aware choice: checking the most likely tokens one by one gives exactly the
argmax of the grammar-filtered logits, and the whole vocabulary is filtered only when it
must be."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from concord.llm.sampling import GREEDY_CANDIDATES, TokenChooser


class SetGrammar:
    """A grammar that allows a fixed set of token ids; counts how often it is asked."""

    def __init__(self, allowed: set[int]) -> None:
        self.allowed = allowed
        self.checks = 0
        self.masks = 0

    def allows(self, token: int) -> bool:
        self.checks += 1
        return token in self.allowed

    def mask(self, logits: npt.NDArray[np.single]) -> npt.NDArray[np.single]:
        self.masks += 1
        masked = np.full_like(logits, -np.inf)
        ids = np.fromiter(self.allowed, dtype=np.intp)
        masked[ids] = logits[ids]
        return masked

    def accept(self, token: int) -> None:
        pass


def reference(logits: npt.NDArray[np.single], allowed: set[int]) -> int:
    return int(np.argmax(SetGrammar(allowed).mask(logits)))


def choose(logits: npt.NDArray[np.single], grammar: SetGrammar) -> int:
    return TokenChooser(0.0, 0, grammar).choose(logits)  # type: ignore[arg-type]


def test_greedy_choice_is_the_argmax_of_the_filtered_logits() -> None:
    rng = np.random.default_rng(7)
    for _ in range(500):
        vocab = int(rng.integers(5, 3000))
        # coarse logits make ties common, also across the candidates' boundary
        logits = rng.integers(-8, 8, vocab).astype(np.single) * rng.choice([1.0, 0.25])
        share = rng.choice([0.001, 0.01, 0.1, 0.5])
        allowed = {int(i) for i in np.flatnonzero(rng.random(vocab) < share)} or {vocab - 1}
        assert choose(logits, SetGrammar(allowed)) == reference(logits, allowed)


def test_an_allowed_token_among_the_most_likely_is_found_without_filtering_all() -> None:
    logits = np.linspace(0.0, 1.0, 262_144, dtype=np.single)  # no ties; best is the last id
    allowed = {262_144 - 5, 17}  # the 5th most likely is the best allowed
    grammar = SetGrammar(allowed)
    assert choose(logits, grammar) == 262_144 - 5
    assert grammar.masks == 0 and grammar.checks <= 6


def test_when_none_of_the_candidates_is_allowed_the_whole_vocabulary_is_filtered() -> None:
    logits = np.linspace(0.0, 1.0, 262_144, dtype=np.single)
    grammar = SetGrammar({17})
    assert choose(logits, grammar) == 17
    assert grammar.masks == 1 and grammar.checks <= GREEDY_CANDIDATES + 1


def test_a_tie_at_the_candidates_boundary_is_left_to_the_whole_vocabulary() -> None:
    # candidates: ids 0..63 with logit 1 are a tie with id 100 (also logit 1, higher id) and
    # id 64 (logit 1): which of the tied tokens argpartition keeps is not defined
    logits = np.zeros(200, dtype=np.single)
    logits[:65] = 1.0
    logits[100] = 1.0
    grammar = SetGrammar({64, 100})
    assert choose(logits, grammar) == 64 == reference(logits, {64, 100})
