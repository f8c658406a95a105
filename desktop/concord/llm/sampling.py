"""Token choice for the llama.cpp runtime: greedy or seeded temperature sampling, with an
optional grammar checked the way llama.cpp's own `common_sampler` does it.

Checking the grammar against all 262k tokens of Gemma's vocabulary costs ~20-50 ms a token.
Instead the unconstrained choice is checked alone first. When the grammar rejects it, a
greedy choice checks the GREEDY_CANDIDATES most likely tokens one by one, best first, and
takes the first allowed (measured on a renal brief: the argmax was rejected at 40 of 256
steps, and filtering the whole vocabulary there took 11% of the brief's time); only when
none of them is allowed, or a tie with a token outside them could decide, is the whole
vocabulary filtered. Either way greedy decoding gives exactly the argmax of the
grammar-filtered logits (the lowest token id among equal logits, as `np.argmax`). A
rejected sampled draw is redrawn from the whole filtered vocabulary, which gives exactly
the grammar-restricted distribution.
"""

from __future__ import annotations

import ctypes
import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

SAMPLING_TOP_K = 40  # with temperature > 0, sample among the k most likely tokens
GREEDY_CANDIDATES = 64  # tokens checked one by one before the whole vocabulary is filtered


# Single-character probes: every printable ASCII character, checked against the grammar in
# one call (`GrammarConstraint._only_char`); a character is forced when it is the only one
# allowed.
PROBE_ORDER = (
    "etaoinsrhldcumfpgwybvkxjqzETAOINSRHLDCUMFPGWYBVKXJQZ0123456789"
    " .,:;-_()/%+'\"{}[]!?#$&*<=>@\\^`|~"
)
MAX_FORCED_CHARS = 64


_ESCAPE = re.compile(r"\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8}))")


def names_non_ascii(grammar_text: str) -> bool:
    """Whether a GBNF grammar names a character beyond ASCII, as is or by an escape."""
    if not grammar_text.isascii():
        return True
    return any(
        int(next(g for g in m.groups() if g), 16) > 0x7F for m in _ESCAPE.finditer(grammar_text)
    )


@dataclass(frozen=True)
class Probes:
    """A token for each printable ASCII character (the characters of the probe order), and
    tokens that may end or leave the JSON text: if the grammar allows any of those, no
    character is forced."""

    chars: tuple[tuple[str, int], ...]
    blockers: tuple[int, ...]


class GrammarConstraint:
    """A llama.cpp grammar sampler used as an accept/reject filter, and to find the text it
    forces next (jump-forward decoding)."""

    def __init__(
        self,
        llama_cpp: Any,
        vocab: Any,
        grammar_text: str,
        n_vocab: int,
        probes: Probes | None = None,
    ) -> None:
        self._lib = llama_cpp
        # The probes are ASCII: a grammar with other literal characters (an enum value such
        # as "µmol", written as is or as a \\u escape) could allow one of them beside a
        # single ASCII character, which would then look forced. Such a grammar is decoded
        # token by token.
        self._probes = None if names_non_ascii(grammar_text) else probes
        self._sampler = llama_cpp.llama_sampler_init_grammar(
            vocab, grammar_text.encode("utf-8"), b"root"
        )
        if not self._sampler:
            raise ValueError("llama.cpp could not parse the grammar")
        self._one = (llama_cpp.llama_token_data * 1)()
        self._one_array = llama_cpp.llama_token_data_array(
            data=ctypes.cast(self._one, llama_cpp.llama_token_data_p),
            size=1,
            selected=-1,
            sorted=False,
        )
        # the probe characters' tokens, then the blockers, checked in one call (`_only_char`)
        self._probe_tokens = (
            [token for _, token in probes.chars] + list(probes.blockers) if probes else []
        )
        self._probe_array = (llama_cpp.llama_token_data * max(1, len(self._probe_tokens)))()
        self._probe_data = llama_cpp.llama_token_data_array(
            data=ctypes.cast(self._probe_array, llama_cpp.llama_token_data_p),
            size=len(self._probe_tokens),
            selected=-1,
            sorted=False,
        )
        self._all = np.recarray(
            (n_vocab,),
            dtype=np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)], align=True),
        )
        self._ids = np.arange(n_vocab, dtype=np.intc)
        self._all_array = llama_cpp.llama_token_data_array(
            data=self._all.ctypes.data_as(llama_cpp.llama_token_data_p),
            size=n_vocab,
            selected=-1,
            sorted=False,
        )

    def allows(self, token: int) -> bool:
        return self._allows_on(self._sampler, token)

    def _allows_on(self, sampler: Any, token: int) -> bool:
        self._one[0].id = token
        self._one[0].logit = 0.0
        self._one[0].p = 0.0
        self._one_array.size = 1
        self._one_array.selected = -1
        self._lib.llama_sampler_apply(sampler, ctypes.byref(self._one_array))
        return not math.isinf(self._one[0].logit)

    def _only_char(self, sampler: Any) -> tuple[str, int] | None:
        """The one character the grammar allows next, or None (several, or none, or it may
        end or leave ASCII). Every probe is checked in one call of the grammar over all of
        them (each token is judged alone, as one by one)."""
        assert self._probes is not None
        probes = self._probe_array
        for i, token in enumerate(self._probe_tokens):
            probes[i].id = token
            probes[i].logit = 0.0
            probes[i].p = 0.0
        self._probe_data.size = len(self._probe_tokens)
        self._probe_data.selected = -1
        self._probe_data.sorted = False
        self._lib.llama_sampler_apply(sampler, ctypes.byref(self._probe_data))
        allowed = [i for i in range(len(self._probe_tokens)) if not math.isinf(probes[i].logit)]
        chars = len(self._probes.chars)
        if len(allowed) != 1 or allowed[0] >= chars:  # several, none, or a blocker
            return None
        return self._probes.chars[allowed[0]]

    def follow_forced(self, limit: int = MAX_FORCED_CHARS) -> list[tuple[str, int]]:
        """Accept the text the grammar allows next and nothing else, character by character
        (at most `limit`), and return its characters, each with its own token; [] when the
        next character is a choice.

        The grammar is advanced in place, not on a copy: llama.cpp's grammar state after a
        text is the same whichever tokens spelled it (a token is accepted character by
        character), and copying a brief's grammar (`llama_sampler_clone`, which rebuilds
        every rule of its line ids and word ranges) took about 12 ms, 70% of the time spent
        choosing tokens. The caller feeds the model tokens that spell exactly this text."""
        if self._probes is None or self._sampler is None:
            return []
        followed: list[tuple[str, int]] = []
        step = self._only_char(self._sampler)
        while step is not None and len(followed) < limit:
            followed.append(step)
            self._lib.llama_sampler_accept(self._sampler, step[1])
            step = self._only_char(self._sampler)
        return followed

    def mask(self, logits: npt.NDArray[np.single]) -> npt.NDArray[np.single]:
        """A copy of `logits` with every token the grammar forbids set to -inf."""
        self._all.id[:] = self._ids
        self._all.logit[:] = logits
        self._all.p[:] = 0.0
        self._all_array.size = len(self._ids)
        self._all_array.selected = -1
        self._all_array.sorted = False
        self._lib.llama_sampler_apply(self._sampler, ctypes.byref(self._all_array))
        masked = np.full_like(logits, -np.inf)
        masked[self._all.id] = self._all.logit
        return masked

    def accept(self, token: int) -> None:
        self._lib.llama_sampler_accept(self._sampler, token)

    def close(self) -> None:
        if self._sampler:
            self._lib.llama_sampler_free(self._sampler)
            self._sampler = None


class TokenChooser:
    """Greedy at temperature 0, else seeded top-k sampling; both grammar-aware."""

    def __init__(
        self, temperature: float, seed: int, grammar: GrammarConstraint | None = None
    ) -> None:
        self._temperature = temperature
        self._rng = np.random.default_rng(seed)
        self._grammar = grammar

    def _pick(self, logits: npt.NDArray[np.single]) -> int:
        if self._temperature <= 0.0:
            return int(np.argmax(logits))
        k = min(SAMPLING_TOP_K, int(np.isfinite(logits).sum()) or 1)
        top = np.argpartition(logits, -k)[-k:]
        scaled = logits[top].astype(np.float64) / self._temperature
        scaled -= scaled.max()
        probs = np.exp(scaled)
        probs /= probs.sum()
        return int(top[self._rng.choice(k, p=probs)])

    def _best_allowed(self, logits: npt.NDArray[np.single]) -> int | None:
        """The argmax of the grammar-filtered logits if it is among the GREEDY_CANDIDATES
        most likely tokens and no token outside them ties with it; else None."""
        assert self._grammar is not None
        n = min(GREEDY_CANDIDATES, len(logits))
        top = np.argpartition(logits, -n)[-n:]
        order = top[np.lexsort((top, -logits[top]))]  # best first, lower id first on a tie
        floor = logits[order[-1]]  # every token outside the candidates is at most this
        for token in order:
            if not logits[token] > floor:
                return None
            if self._grammar.allows(int(token)):
                return int(token)
        return None

    def choose(self, logits: npt.NDArray[np.single]) -> int:
        token = self._pick(logits)
        if self._grammar is None or self._grammar.allows(token):
            return token
        if self._temperature <= 0.0:
            best = self._best_allowed(logits)
            if best is not None:
                return best
        masked = self._grammar.mask(logits)
        if not np.isfinite(masked).any():
            raise ValueError("the grammar allows no token here")
        return self._pick(masked)

    def accept(self, token: int) -> None:
        if self._grammar is not None:
            self._grammar.accept(token)
