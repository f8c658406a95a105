"""Retries that can succeed: each retry changes what the model is asked, and agents on the
same record are sent to the runtime together, round by round."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

from concord.agents.runner import (
    RETRY_TEMPERATURE,
    brief_token_cap,
    run_agents,
    scaled_limits,
)
from concord.agents.schema import MIN_EVIDENCE, MIN_TOP_RISKS
from concord.domain.brief import BriefStatus
from concord.llm.runtime import FinishReason, Generation, GenerationRequest, StopCheck
from concord.llm.scripted import ScriptedRuntime
from tests.agents.test_runner import OPERATION, cardiology_answer


class CutOffFirst(ScriptedRuntime):
    """Answers as scripted, but reports the first answer as stopped by its token cap."""

    def generate(self, request: GenerationRequest) -> Generation:
        generation = super().generate(request)
        if len(self.requests) == 1:
            return Generation(
                generation.text, 1, request.max_tokens, 0.0, True, FinishReason.LENGTH
            )
        return generation


def test_a_cut_off_brief_is_asked_again_greedily_with_half_the_budget(record, profiles) -> None:
    good = json.dumps(cardiology_answer(record))
    runtime = CutOffFirst(['{"evidence": [', good])
    (brief,) = run_agents(runtime, [profiles["cardiology"]], record, operation=OPERATION)
    assert brief.status == BriefStatus.OK and brief.attempts == 2
    first, second = runtime.requests
    assert second.temperature == 0.0  # the smaller budget is the change, not chance
    assert second.schema is not None and first.schema is not None
    limits = profiles["cardiology"].max_items
    for section in ("evidence", "top_risks", "actions", "triggers", "monitoring"):
        assert first.schema["properties"][section]["maxItems"] == getattr(limits, section)
        assert second.schema["properties"][section]["maxItems"] == max(
            1, getattr(limits, section) // 2
        )
    # the token cap follows the budget: room for every item, less for the smaller budget
    assert first.max_tokens == brief_token_cap(limits)
    assert second.max_tokens == brief_token_cap(scaled_limits(limits, 0.5)) < first.max_tokens
    # the prompt states the smaller limits; it does not quote the refusal (see the runner)
    assert f"at most {max(1, limits.evidence // 2)} evidence lines" in second.prompt
    assert f"at most {limits.evidence} evidence lines" in first.prompt
    assert "cut off" not in second.prompt


def test_an_invalid_answer_is_asked_again_sampled_with_another_seed(record, profiles):
    runtime = ScriptedRuntime(['{"evidence": []}', json.dumps(cardiology_answer(record))])
    (brief,) = run_agents(runtime, [profiles["cardiology"]], record, operation=OPERATION)
    assert brief.status == BriefStatus.OK and brief.attempts == 2
    first, second = runtime.requests
    assert (first.temperature, second.temperature) == (0.0, RETRY_TEMPERATURE)
    assert first.seed != second.seed
    assert second.prompt == first.prompt and second.schema == first.schema


def test_a_brief_has_room_for_every_item_its_budget_allows(profiles) -> None:
    # measured on the demo patients: a whole brief took at most 44 tokens per item (and
    # 6 of 33 greedy briefs went past the old fixed cap of 640 tokens, all valid when
    # decoded to their end); the cap leaves room above that for every agent
    for profile in profiles.values():
        items = sum(profile.max_items.model_dump().values())
        assert brief_token_cap(profile.max_items) >= 44 * items + 64
    assert brief_token_cap(profiles["cardiology"].max_items) > 1018  # the longest measured


def test_a_caller_s_cap_is_kept(record, profiles) -> None:
    runtime = ScriptedRuntime([json.dumps(cardiology_answer(record))])
    (brief,) = run_agents(
        runtime, [profiles["cardiology"]], record, operation=OPERATION, max_tokens=200
    )
    assert brief.status == BriefStatus.OK
    assert runtime.requests[0].max_tokens == 200


def test_the_budget_keeps_the_required_minimums() -> None:
    from concord.agents.profiles import MaxItems

    tiny = scaled_limits(MaxItems(evidence=2, top_risks=1, actions=1), 0.25)
    assert tiny.evidence >= MIN_EVIDENCE and tiny.top_risks >= MIN_TOP_RISKS
    assert tiny.actions == 1
    assert scaled_limits(MaxItems(), 1.0) == MaxItems()


class Rounds(ScriptedRuntime):
    """A parallel runtime over scripted answers that records each batch it is sent."""

    parallel = 4

    def __init__(self, answer) -> None:
        super().__init__(answer)
        self.batches: list[list[str]] = []

    def generate_many(
        self, requests: Sequence[GenerationRequest], should_stop: StopCheck | None = None
    ) -> Iterator[tuple[int, Generation]]:
        self.batches.append([r.agent for r in requests])
        for index, request in enumerate(requests):
            yield index, self.generate(request)


def test_agents_are_sent_together_and_only_the_refused_go_again(record, profiles) -> None:
    good = json.dumps(cardiology_answer(record))
    tries: dict[str, int] = {}

    def answer(request: GenerationRequest) -> str:
        tries[request.agent] = tries.get(request.agent, 0) + 1
        return "not json" if request.agent == "renal" and tries["renal"] == 1 else good

    runtime = Rounds(answer)
    cardio = profiles["cardiology"]
    same = {"tags": cardio.tags, "gate_ids": cardio.gate_ids}  # what the answer uses
    renal = profiles["renal"].model_copy(update=same)
    briefs = list(run_agents(runtime, [cardio, renal], record, operation=OPERATION))
    assert runtime.batches == [["cardiology", "renal"], ["renal"]]
    assert [b.agent for b in briefs] == ["cardiology", "renal"]  # in finishing order
    assert [b.attempts for b in briefs] == [1, 2]
    assert all(b.status == BriefStatus.OK for b in briefs)
