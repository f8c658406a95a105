"""An LLM judge that may only *propose* matches between items code could not match.

The proposal is constrained by a JSON schema whose enums are the unmatched item ids, so the
judge cannot invent an item. Output that does not fit is dropped (no proposals), not repaired.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from pydantic import BaseModel, ValidationError

from concord.domain import BriefItem
from concord.llm.runtime import GenerationRequest, Runtime, StopCheck, generate_all

MAX_PROPOSALS = 6
MAX_TOKENS = 160

_INSTRUCTIONS = """\
You are checking two pre-operative risk briefs about the patient above.
Pair an item from list S (specialist) with an item from list A (anaesthetist) only when
both describe the same clinical risk or the same action. Leave an item unpaired when in
doubt. Answer with JSON only.

List S:
{spec}

List A:
{anaes}
"""


class _Pair(BaseModel):
    s: str
    a: str


class _Answer(BaseModel):
    pairs: list[_Pair]


def _schema(spec_ids: list[str], anaes_ids: list[str]) -> dict[str, object]:
    return {
        "type": "object",
        "properties": {
            "pairs": {
                "type": "array",
                "maxItems": MAX_PROPOSALS,
                "items": {
                    "type": "object",
                    "properties": {"s": {"enum": spec_ids}, "a": {"enum": anaes_ids}},
                    "required": ["s", "a"],
                },
            }
        },
        "required": ["pairs"],
    }


def _listing(items: Sequence[BriefItem]) -> str:
    return "\n".join(f"- {i.item_id}: {' '.join(i.text.split())}" for i in items)


class LlmMatchProposer:
    """Callable proposer for `judge_panel`: one constrained generation per seed.

    `prefetch` decodes the asks of several briefs together (a parallel runtime) and keeps
    the answers; a call then reads its kept answer, or generates it alone. An answer is kept
    for the proposer's life (one case): the same question at the same seed is the same
    greedy or seeded generation, so it is asked once."""

    def __init__(self, runtime: Runtime, record_block: str) -> None:
        self.runtime = runtime
        self.record_block = record_block
        self.failures: list[str] = []
        self._answers: dict[tuple[str, int], str] = {}  # (prompt, seed) -> text

    def _request(
        self, spec: Sequence[BriefItem], anaes: Sequence[BriefItem], seed: int
    ) -> GenerationRequest:
        return GenerationRequest(
            prefix=self.record_block,
            prompt=_INSTRUCTIONS.format(spec=_listing(spec), anaes=_listing(anaes)),
            schema=_schema([i.item_id for i in spec], [i.item_id for i in anaes]),
            max_tokens=MAX_TOKENS,
            temperature=0.0 if seed == 0 else 0.7,
            seed=seed,
            agent="judge",
        )

    def prefetch(
        self,
        asks: Sequence[tuple[Sequence[BriefItem], Sequence[BriefItem], int]],
        should_stop: StopCheck | None = None,
    ) -> None:
        """Generate the answers to `asks` together (the same question once: two briefs can
        leave the same items unmatched); the calls that ask them read them."""
        requests: dict[tuple[str, int], GenerationRequest] = {}
        for ask in asks:
            request = self._request(*ask)
            requests.setdefault((request.prompt, request.seed), request)
        keys = [key for key in requests if key not in self._answers]
        batch = [requests[key] for key in keys]
        for index, generation in generate_all(self.runtime, batch, should_stop):
            self._answers[keys[index]] = generation.text

    def __call__(
        self, spec: Sequence[BriefItem], anaes: Sequence[BriefItem], seed: int
    ) -> list[tuple[str, str]]:
        request = self._request(spec, anaes, seed)
        text = self._answers.get((request.prompt, seed))
        if text is None:
            text = self._answers[request.prompt, seed] = self.runtime.generate(request).text
        try:
            answer = _Answer.model_validate(json.loads(text))
        except (json.JSONDecodeError, ValidationError) as exc:
            self.failures.append(f"seed {seed}: {type(exc).__name__}")
            return []
        return [(p.s, p.a) for p in answer.pairs]
