"""An LLM judge that may only *propose* matches between items code could not match.

The proposal is constrained by a JSON schema whose enums are the unmatched item ids, so the
judge cannot invent an item. Output that does not fit is dropped (no proposals), not repaired.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from pydantic import BaseModel, ValidationError

from concord.domain import BriefItem
from concord.llm.runtime import GenerationRequest, Runtime

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
    """Callable proposer for `judge_panel`: one constrained generation per seed."""

    def __init__(self, runtime: Runtime, record_block: str) -> None:
        self.runtime = runtime
        self.record_block = record_block
        self.failures: list[str] = []

    def __call__(
        self, spec: Sequence[BriefItem], anaes: Sequence[BriefItem], seed: int
    ) -> list[tuple[str, str]]:
        prompt = _INSTRUCTIONS.format(spec=_listing(spec), anaes=_listing(anaes))
        request = GenerationRequest(
            prefix=self.record_block,
            prompt=prompt,
            schema=_schema([i.item_id for i in spec], [i.item_id for i in anaes]),
            max_tokens=MAX_TOKENS,
            temperature=0.0 if seed == 0 else 0.7,
            seed=seed,
        )
        text = self.runtime.generate(request).text
        try:
            answer = _Answer.model_validate(json.loads(text))
        except (json.JSONDecodeError, ValidationError) as exc:
            self.failures.append(f"seed {seed}: {type(exc).__name__}")
            return []
        return [(p.s, p.a) for p in answer.pairs]
