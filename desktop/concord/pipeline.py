"""The panel and adjudication for one record, as a generator of progress events.

Data flows one way: record -> screen -> surgeon -> anaesthetist -> specialists ->
adjudication -> Case. The generator yields `RunEvent`s; the last one carries the Case. The
caller decides how to run it (CLI prints events; the UI runs it in a worker thread) and may
cancel between steps by passing `should_stop`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum

from concord.adjudication.config import ScoringConfig
from concord.adjudication.consults import (
    choose_specialists,
    mutual_omissions,
    required_specialists,
)
from concord.adjudication.gates import triggered
from concord.adjudication.llm_matcher import LlmMatchProposer
from concord.adjudication.panel import judge_panel, proposer_asks
from concord.adjudication.support import ClaimChecker
from concord.agents.output import BriefOut
from concord.agents.profiles import AgentProfile
from concord.agents.prompts import PromptSet, build_record_block
from concord.agents.runner import AgentTask, brief_task, propose_operation, run_tasks, task_brief
from concord.domain import (
    Brief,
    BriefStatus,
    Case,
    DocumentKind,
    GateHit,
    GateStatus,
    Record,
    SourceDocument,
)
from concord.errors import Cancelled, ModelOutputError, RecordTooLong
from concord.llm.runtime import Runtime
from concord.screen.injection import injection_findings
from concord.screen.lexicon import Lexicon
from concord.screen.record_screen import RecordScreen

DEFAULT_MAX_SPECIALISTS = 4
NO_OPERATION = "operation not stated in the record (surgeon agent gave no usable proposal)"


class Stage(StrEnum):
    """Where a run is; the value is what logs and the JSON progress lines show."""

    LOAD = "load"  # the model is loading (model jobs, before the pipeline)
    SCREEN = "screen"
    SURGEON = "surgeon"
    ANAESTHETIST = "anaesthetist"
    SPECIALIST = "specialist"
    ADJUDICATION = "adjudication"
    DONE = "done"


AGENT_STAGES = frozenset({Stage.SURGEON, Stage.ANAESTHETIST, Stage.SPECIALIST})


@dataclass(frozen=True)
class RunEvent:
    stage: Stage
    message: str
    done: int
    total: int
    agent: str | None = None
    case: Case | None = None
    seconds: float = 0.0


def final_case(
    events: Iterable[RunEvent], on_event: Callable[[RunEvent], None] = lambda _: None
) -> Case:
    """The case a run's events end with, each event passed to `on_event` on the way;
    `Cancelled` when the run ended without one (stopped between events)."""
    case = None
    for event in events:
        on_event(event)
        if event.case is not None:
            case = event.case
    if case is None:
        raise Cancelled("the run ended without a case")
    return case


@dataclass
class PanelSettings:
    judges: int = 1
    max_specialists: int = DEFAULT_MAX_SPECIALISTS
    operation: str | None = None
    extra: dict[str, object] = field(default_factory=dict)


def gates_firing_on(screen: RecordScreen) -> Callable[[str], dict[str, tuple[str, ...]]]:
    """The record screen run on a quoted text alone: each gate it triggers there, with the
    texts it fired on."""

    def fires(text: str) -> dict[str, tuple[str, ...]]:
        quoted = Record(
            name="quoted evidence",
            documents=(SourceDocument(source_id="quote", kind=DocumentKind.TXT, text=text),),
        )
        return {
            g.gate_id: tuple(s.text for s in g.evidence)
            for g in screen.screen(quoted)
            if g.status == GateStatus.TRIGGERED
        }

    return fires


def check_claims(
    record: Record, briefs: list[Brief], gates: tuple[GateHit, ...], screen: RecordScreen
) -> list[Brief]:
    """Each brief with every bullet's support and the gates it addresses stored on it."""
    checker = ClaimChecker(
        record,
        gates,
        lexicon=screen.lexicon,
        rules=screen.definitions,
        fires_on=gates_firing_on(screen),
    )
    return [checker.annotate(b) for b in briefs]


def refused_case(
    record: Record,
    runtime: Runtime,
    gates: tuple[GateHit, ...],
    operation: str | None,
    error: RecordTooLong,
    config_version: str,
) -> Case:
    """A run the model refused before decoding anything (the record does not fit its
    context): a failed case, whose reason says in plain words what happened and what to do;
    the record screen's red flags are kept."""
    reason = f"{error.PLAIN}. What to do: {error.ADVICE}."
    return Case(
        case_id="C-" + uuid.uuid4().hex[:12],
        record_id=record.record_id,
        created_at=datetime.now(UTC),
        model_sha256=runtime.model_sha256,
        model_name=runtime.model_name,
        operation=operation or "",
        operation_source="record" if operation else "nobody: the run was refused",
        briefs=(Brief(agent="anaesthetist", status=BriefStatus.FAILED, failure_reason=reason),),
        gates=gates,
        config_version=config_version,
    )


@dataclass(frozen=True)
class _BriefPlan:
    """What the briefs of one run are written for."""

    operation: str
    gates: tuple[GateHit, ...]
    consult_ids: tuple[str, ...]  # the specialists the anaesthetist may consult
    max_specialists: int
    prompts: PromptSet | None


def _write_briefs(
    record: Record,
    runtime: Runtime,
    profiles: Mapping[str, AgentProfile],
    plan: _BriefPlan,
    should_stop: Callable[[], bool],
    timed: Callable[[str, float], float],
) -> Generator[RunEvent, None, tuple[list[str], list[Brief]]]:
    """The anaesthetist's brief and its consults' briefs, decoded together: the specialists
    every record with a major red flag needs (its owners, `required_specialists`, known
    from the screen) start beside the anaesthetist, and those it chooses as soon as its
    brief is in, beside those still writing. Yields an event as each agent starts and as
    each finishes; returns the specialists consulted (in the order chosen) and the briefs,
    the anaesthetist's first, then the specialists' as they finished."""

    def check() -> None:
        if should_stop():
            raise Cancelled("run cancelled by the user", subject=record.name)

    def task(name: str, consults: tuple[str, ...] | None = None) -> AgentTask[BriefOut]:
        return brief_task(
            profiles[name],
            record,
            operation=plan.operation,
            prompts=plan.prompts,
            specialist_ids=consults,
        )

    started = time.perf_counter()
    required = required_specialists(plan.gates, plan.consult_ids)
    lead = task("anaesthetist", plan.consult_ids)
    tasks = [lead, *(task(name) for name in required)]
    began = {name: started for name in required}
    specialists: list[str] | None = None  # chosen once the anaesthetist's brief is in
    briefs: list[Brief] = []
    yield RunEvent(
        Stage.ANAESTHETIST,
        "anaesthetist agent writing the risk brief",
        0,
        1,
        agent="anaesthetist",
    )
    for name in required:  # known before the anaesthetist writes: the record's red flags
        yield RunEvent(
            Stage.SPECIALIST, f"{name} agent writing its brief", 0, len(required), agent=name
        )
    for finished in run_tasks(runtime, tasks, should_stop):
        if finished is lead:
            consults = plan.consult_ids
            profile = profiles["anaesthetist"]
            brief = task_brief(finished, runtime, profile, record, consults, plan.prompts)
            briefs.insert(0, brief)
            yield RunEvent(
                Stage.ANAESTHETIST,
                f"anaesthetist brief {brief.status.value}",
                1,
                1,
                agent="anaesthetist",
                seconds=timed("anaesthetist", started),
            )
            check()
            specialists = choose_specialists(brief, plan.gates, consults, plan.max_specialists)
            for name in specialists:
                if name not in began:
                    began[name] = time.perf_counter()
                    tasks.append(task(name))  # starts beside those still writing
                    yield RunEvent(
                        Stage.SPECIALIST,
                        f"{name} agent writing its brief",
                        0,
                        len(specialists),
                        agent=name,
                    )
            continue
        brief = task_brief(finished, runtime, profiles[finished.name], record, (), plan.prompts)
        briefs.append(brief)
        written = len(briefs) - (1 if specialists is not None else 0)
        yield RunEvent(
            Stage.SPECIALIST,
            f"{brief.agent} brief {brief.status.value}",
            written,
            len(specialists) if specialists is not None else len(began),
            agent=brief.agent,
            seconds=timed(brief.agent, began[brief.agent]),
        )
        check()
    assert specialists is not None  # the anaesthetist's task always finishes
    return specialists, briefs


def run_panel(
    record: Record,
    runtime: Runtime,
    *,
    profiles: Mapping[str, AgentProfile],
    screen: RecordScreen,
    lexicon: Lexicon,
    config: ScoringConfig,
    prompts: PromptSet | None = None,
    settings: PanelSettings | None = None,
    should_stop: Callable[[], bool] = lambda: False,
) -> Iterator[RunEvent]:
    """`prompts`: the prompt set of the resources the run is made with (the installed one
    when not given); the anaesthetist chooses its consults among `profiles`' specialists."""
    settings = settings or PanelSettings()
    consult_ids = tuple(p for p, prof in profiles.items() if prof.role == "specialist")
    started = time.perf_counter()
    timings: dict[str, float] = {}

    def check() -> None:
        if should_stop():
            raise Cancelled("run cancelled by the user", subject=record.name)

    def timed(key: str, t0: float) -> float:
        timings[key] = round(time.perf_counter() - t0, 3)
        return timings[key]

    t0 = time.perf_counter()
    gates = screen.screen(record)
    fired = triggered(gates)
    yield RunEvent(
        Stage.SCREEN,
        f"record screen: {len(fired)} gate(s) triggered",
        0,
        1,
        seconds=timed("screen", t0),
    )
    check()

    operation = settings.operation or record.operation
    try:
        operation_source = "record" if operation else "surgeon agent"
        if not operation:
            t0 = time.perf_counter()
            yield RunEvent(
                Stage.SURGEON, "surgeon agent proposing an operation", 0, 1, agent="surgeon"
            )
            try:
                operation = propose_operation(
                    runtime, profiles["surgeon"], record, should_stop=should_stop, prompts=prompts
                )
                note = f"proposed operation: {operation}"
            except ModelOutputError as exc:
                # The briefs can still be written for an unnamed operation; the case says so.
                operation, operation_source = NO_OPERATION, "nobody: the surgeon agent failed"
                note = f"no usable operation from the surgeon agent ({exc.one_line()})"
            yield RunEvent(Stage.SURGEON, note, 1, 1, agent="surgeon", seconds=timed("surgeon", t0))
            check()

        specialists, briefs = yield from _write_briefs(
            record,
            runtime,
            profiles,
            _BriefPlan(operation, gates, consult_ids, settings.max_specialists, prompts),
            should_stop,
            timed,
        )
        order = {name: i for i, name in enumerate(specialists)}
        briefs[1:] = sorted(briefs[1:], key=lambda b: order[b.agent])
        briefs = check_claims(record, briefs, gates, screen)
        anaesthetist = briefs[0]

        rules = screen.definitions
        block = build_record_block(record, prompts)
        proposer = LlmMatchProposer(runtime, block) if settings.judges else None
        if proposer is not None:  # every judge run of every brief, decoded together
            asks = [
                ask
                for brief in briefs[1:]
                for ask in proposer_asks(
                    anaesthetist, brief, lexicon=lexicon, config=config, runs=settings.judges
                )
            ]
            if asks:  # one event before and one after, with no agent: the runs of all briefs
                t0 = time.perf_counter()
                yield RunEvent(
                    Stage.ADJUDICATION, f"judges proposing matches ({len(asks)} run(s))", 0, 1
                )
                proposer.prefetch(asks, should_stop)
                yield RunEvent(
                    Stage.ADJUDICATION,
                    f"judges proposed matches ({len(asks)} run(s))",
                    1,
                    1,
                    seconds=timed("judges", t0),
                )
                check()
        cards = []
        for n, brief in enumerate(briefs[1:]):
            t0 = time.perf_counter()
            cards.append(
                judge_panel(
                    record,
                    anaesthetist,
                    brief,
                    gates,
                    rules=rules,
                    lexicon=lexicon,
                    config=config,
                    runs=settings.judges,
                    proposer=proposer,
                )
            )
            yield RunEvent(
                Stage.ADJUDICATION,
                f"adjudicated {brief.agent}",
                n + 1,
                len(briefs) - 1,
                agent=brief.agent,
                seconds=timed(f"judge:{brief.agent}", t0),
            )
            check()

        omissions = mutual_omissions(gates, briefs, rules)
        timings["total"] = round(time.perf_counter() - started, 3)
        case = Case(
            case_id="C-" + uuid.uuid4().hex[:12],
            record_id=record.record_id,
            created_at=datetime.now(UTC),
            model_sha256=runtime.model_sha256,
            model_name=runtime.model_name,
            operation=operation,
            operation_source=operation_source,
            briefs=tuple(briefs),
            gates=gates,
            scorecards=tuple(cards),
            mutual_omissions=tuple(omissions),
            config_version=config.version,
            timings=timings,
            judges=settings.judges,
            specialists_chosen=tuple(specialists),
            judge_failures=tuple(proposer.failures) if proposer else (),
            injection=tuple(injection_findings(record, briefs)),
        )
        yield RunEvent(Stage.DONE, "case complete", 1, 1, case=case, seconds=timings["total"])
    except RecordTooLong as exc:
        # refused before decoding: a failed run, stored and shown with what to do
        case = refused_case(record, runtime, gates, operation, exc, config.version)
        yield RunEvent(Stage.DONE, f"run refused: {exc.PLAIN}", 1, 1, case=case)
