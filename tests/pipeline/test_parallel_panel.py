"""The panel sends the chosen specialists to the runtime together and reports each brief as
it finishes; a cancel stops the batch mid-way."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

import pytest

from concord import paths
from concord.adjudication.consults import required_specialists
from concord.domain import BriefStatus
from concord.errors import Cancelled
from concord.llm.runtime import Generation, GenerationRequest, StopCheck
from concord.llm.scripted import ScriptedRuntime
from concord.pipeline import AGENT_STAGES, PanelSettings, Stage, run_panel
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
    required = required_specialists(case.gates, svc.profiles.keys())
    assert required and len(chosen) > len(required)
    # the owners of the record's major red flags beside the anaesthetist; the rest it chose
    # together after it (a runtime that cannot take added requests answers them next)
    later = [name for name in chosen if name not in required]
    assert runtime.batches == [["anaesthetist", *required], later]
    specialist = [e for e in events if e.stage is Stage.SPECIALIST]
    starts = [e for e in specialist if e.done == 0]
    ends = [e for e in specialist if e.done > 0]
    assert [e.agent for e in starts] == required + later
    # answered in reverse order within each batch
    assert [e.agent for e in ends] == list(reversed(required)) + list(reversed(later))
    assert [e.done for e in ends] == list(range(1, len(chosen) + 1))
    assert ends[-1].total == len(chosen)
    # the case keeps the anaesthetist's order of consultation, whatever finished first
    assert [b.agent for b in case.briefs] == ["anaesthetist", *chosen]


class StreamingWriter(ScriptedRuntime):
    """Scripted briefs on a runtime that takes requests added while it decodes: it answers
    the anaesthetist first, then the last started request first, and records which
    requests were still being written when each was added."""

    parallel = 4
    takes_added_requests = True

    def __init__(self, writer: BriefWriter) -> None:
        super().__init__(writer)
        self.calls = 0
        self.added_beside: dict[str, list[str]] = {}  # agent -> agents in flight then

    def generate_many(
        self, requests: Sequence[GenerationRequest], should_stop: StopCheck | None = None
    ) -> Iterator[tuple[int, Generation]]:
        self.calls += 1
        answered: set[int] = set()
        known = 0
        while len(answered) < len(requests):
            in_flight = [requests[i].agent for i in range(known) if i not in answered]
            for index in range(known, len(requests)):
                self.added_beside[requests[index].agent] = in_flight
            known = len(requests)
            waiting = [i for i in range(known) if i not in answered]
            lead = [i for i in waiting if requests[i].agent == "anaesthetist"]
            index = lead[0] if lead else waiting[-1]
            answered.add(index)
            yield index, self.generate(requests[index])


def test_the_chosen_specialists_start_beside_the_red_flags_owners_still_writing(svc) -> None:
    runtime = StreamingWriter(BriefWriter(consult=CONSULT))
    events = list(panel(svc, runtime))
    case = events[-1].case
    assert case is not None
    required = required_specialists(case.gates, svc.profiles.keys())
    later = [name for name in case.specialists_chosen if name not in required]
    assert runtime.calls == 1  # one batch: the anaesthetist, the owners, then the rest
    for name in later:  # added as soon as the anaesthetist's brief was read
        assert runtime.added_beside[name][: len(required)] == required
    assert [b.agent for b in case.briefs] == ["anaesthetist", *case.specialists_chosen]
    assert all(b.status is BriefStatus.OK for b in case.briefs)


def test_a_red_flags_owner_that_finishes_before_the_anaesthetist_is_reported_then(svc) -> None:
    class OwnersFirst(StreamingWriter):
        def generate_many(self, requests, should_stop=None):  # type: ignore[no-untyped-def]
            self.calls += 1
            order = sorted(range(len(requests)), key=lambda i: requests[i].agent == "anaesthetist")
            answered = []
            for index in order:
                answered.append(index)
                yield index, self.generate(requests[index])
            while len(requests) > len(answered):  # those added after the anaesthetist's brief
                index = len(answered)
                answered.append(index)
                yield index, self.generate(requests[index])

    runtime = OwnersFirst(BriefWriter(consult=CONSULT))
    events = list(panel(svc, runtime))
    case = events[-1].case
    assert case is not None
    required = required_specialists(case.gates, svc.profiles.keys())
    agents = [(e.stage, e.agent, e.done) for e in events if e.stage in AGENT_STAGES]
    lead_done = agents.index((Stage.ANAESTHETIST, "anaesthetist", 1))
    first_owner = agents.index((Stage.SPECIALIST, required[0], 1))
    assert first_owner < lead_done  # shown when it happened, before the anaesthetist's
    assert [b.agent for b in case.briefs] == ["anaesthetist", *case.specialists_chosen]


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
    # the anaesthetist with the red flags' owners, the other specialists, then every judge
    # run of every brief in one batch
    required = required_specialists(case.gates, svc.profiles.keys())
    assert together.batches == [
        ["anaesthetist", *required],
        [name for name in chosen if name not in required],
        ["judge"] * len(judge_requests),
    ]
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
