"""The panel sends the chosen specialists to the runtime together and reports each brief as
it finishes; a cancel stops the batch mid-way."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

import pytest

from concord import paths
from concord.errors import Cancelled
from concord.llm.runtime import Generation, GenerationRequest, StopCheck
from concord.llm.scripted import ScriptedRuntime
from concord.pipeline import PanelSettings, Stage, run_panel
from concord.records import load_record
from concord.services import Services
from tests.fake_agents import BriefWriter

CKD = paths.resources_dir() / "demo" / "03_ckd_hyperkalaemia.json"
CONSULT = ("cardiology", "renal", "endocrine", "airway")


class ParallelWriter(ScriptedRuntime):
    """Scripted briefs, decoded 'together': it records each batch and answers it in
    reverse order (the last request finishes first)."""

    parallel = 4

    def __init__(self, writer: BriefWriter) -> None:
        super().__init__(writer)
        self.batches: list[list[str]] = []
        self.answered: list[str] = []

    def generate_many(
        self, requests: Sequence[GenerationRequest], should_stop: StopCheck | None = None
    ) -> Iterator[tuple[int, Generation]]:
        self.batches.append([r.agent for r in requests])
        for index in reversed(range(len(requests))):
            if should_stop is not None and should_stop():
                raise Cancelled("generation cancelled")
            self.answered.append(requests[index].agent)
            yield index, self.generate(requests[index])


@pytest.fixture
def svc():
    services = Services()
    yield services
    services.close()


def panel(
    svc: Services,
    runtime: ScriptedRuntime,
    should_stop: StopCheck = lambda: False,
    judges: int = 0,
):
    return run_panel(
        load_record(CKD),
        runtime,
        profiles=svc.profiles,
        screen=svc.screen,
        lexicon=svc.lexicon,
        config=svc.config,
        settings=PanelSettings(judges=judges, max_specialists=4),
        should_stop=should_stop,
    )


def test_specialists_are_decoded_together_and_reported_as_each_finishes(svc) -> None:
    runtime = ParallelWriter(BriefWriter(consult=CONSULT))
    events = list(panel(svc, runtime))
    case = events[-1].case
    assert case is not None
    chosen = list(case.specialists_chosen)
    assert len(chosen) >= 3
    # the anaesthetist alone (it chooses the specialists), then all chosen ones at once
    assert runtime.batches == [["anaesthetist"], chosen]
    specialist = [e for e in events if e.stage is Stage.SPECIALIST]
    starts, ends = specialist[: len(chosen)], specialist[len(chosen) :]
    assert [e.agent for e in starts] == chosen and all(e.done == 0 for e in starts)
    assert [e.agent for e in ends] == list(reversed(chosen))  # as they finished
    assert [e.done for e in ends] == list(range(1, len(chosen) + 1))
    # the case keeps the anaesthetist's order of consultation, whatever finished first
    assert [b.agent for b in case.briefs] == ["anaesthetist", *chosen]


def test_a_cancel_during_the_specialists_stops_the_batch(svc) -> None:
    runtime = ParallelWriter(BriefWriter(consult=CONSULT))
    finished: list[str] = []
    events = panel(svc, runtime, should_stop=lambda: len(finished) >= 1)
    with pytest.raises(Cancelled):
        for event in events:
            if event.stage is Stage.SPECIALIST and event.done:
                finished.append(str(event.agent))
    assert len(finished) == 1
    chosen = runtime.batches[-1]
    assert len(runtime.answered) < 1 + len(chosen)  # the rest of the batch was never decoded


class PairingWriter(BriefWriter):
    """A judge that pairs the first unmatched specialist item with each anaesthetist item
    in turn, by seed, so that each judge run proposes something of its own."""

    def __call__(self, request: GenerationRequest) -> str:
        props = (request.schema or {}).get("properties", {})
        if "pairs" not in props:
            return super().__call__(request)
        self.requests.append(request)
        pair = props["pairs"]["items"]["properties"]
        spec, anaes = pair["s"]["enum"], pair["a"]["enum"]
        return json.dumps({"pairs": [{"s": spec[0], "a": anaes[request.seed % len(anaes)]}]})


def judged(svc: Services, runtime: ScriptedRuntime, judges: int):
    events = list(panel(svc, runtime, judges=judges))
    case = events[-1].case
    assert case is not None
    return events, case


@pytest.mark.parametrize("judges", [1, 3])
def test_the_judges_of_every_brief_are_decoded_together_and_score_as_one_by_one(
    svc, judges: int
) -> None:
    together = ParallelWriter(PairingWriter(consult=CONSULT, full=True))
    events, case = judged(svc, together, judges)
    chosen = list(case.specialists_chosen)
    judge_requests = [r for r in together.requests if "List S:" in r.prompt]
    assert judge_requests  # code left items unmatched, so the judges were asked
    # the anaesthetist, the specialists, then every judge run of every brief in one batch
    assert together.batches == [["anaesthetist"], chosen, ["judge"] * len(judge_requests)]
    assert len({(r.prompt, r.seed) for r in judge_requests}) == len(judge_requests)
    assert {r.seed for r in judge_requests} == set(range(judges))
    # no judge request was made twice (the batch's answers were used, not asked again)
    assert len(together.requests) == 1 + len(chosen) + len(judge_requests)
    # the same scorecards as a runtime that answers one request after another
    _, alone = judged(svc, ScriptedRuntime(PairingWriter(consult=CONSULT, full=True)), judges)
    assert [c.model_dump(exclude={"case_id"}) for c in case.scorecards] == [
        c.model_dump(exclude={"case_id"}) for c in alone.scorecards
    ]
    assert any(c.judge_runs == judges for c in case.scorecards)
    # the judge runs of every brief are reported before and after, with no agent of their
    # own; then each brief's adjudication
    judging = [e for e in events if e.stage is Stage.ADJUDICATION]
    before, after = judging[:2]
    assert (before.agent, before.done, before.total) == (None, 0, 1)
    assert "judges proposing matches" in before.message
    assert (after.agent, after.done, after.total) == (None, 1, 1)
    assert [e.agent for e in judging[2:]] == chosen


def test_no_judge_event_when_no_judge_is_asked(svc) -> None:
    # without judges (judges=0) or with nothing left unmatched, nothing says judges ran
    events = list(panel(svc, ParallelWriter(BriefWriter(consult=CONSULT)), judges=1))
    judging = [e for e in events if e.stage is Stage.ADJUDICATION]
    assert all(e.agent for e in judging)
