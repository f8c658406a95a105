"""The jobs the desktop runs off its UI thread (no Qt): the agent panel on one record, an
ASTRID judge run over a stored QA set, EVAL answer generation for a stored question set,
and the quick ones — importing patient records (OCR of scans takes seconds a page) and
signing a case's PDF. They call the same core functions as `concord run`, `concord astrid
SET_ID`, `concord eval generate`, `concord import` and `concord sign`, and run in the
window's one job thread (`ui.workers.JobHost`) on its one Services, through a `JobContext`:
a runtime that stops on Cancel, the cancel flag, a progress report.

A generation already under way is not interrupted (llama.cpp has no hook for it): the
runtime refuses to start the next one once Cancel was asked for."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from concord.accounts.session import Session
from concord.astrid.llm_judge import JudgeSettings, judge_items
from concord.astrid.store import AstridStore
from concord.errors import Cancelled, InputError
from concord.eval.configs import DEFAULT_MAX_TOKENS, GenerationConfig
from concord.eval.eval_store import EvalStore
from concord.eval.generate import generate_answers
from concord.llm.runtime import Generation, GenerationRequest, Runtime
from concord.pipeline import PanelSettings, RunEvent, Stage
from concord.services import Services
from concord.signoff import SignedRecord
from concord.store import Repository
from concord.workbench.imports import ImportResult, import_paths
from concord.workbench.signing import sign

Report = Callable[[int, int, str], None]  # done, total, message
MAX_K = 64

RuntimeFactory = Callable[[Services, str | None], Runtime]


def default_runtime_factory(services: Services, model: str | None) -> Runtime:
    return services.runtime(model)


class _StoppableRuntime:
    """Wraps a runtime: refuses to start a generation once cancel was asked for."""

    def __init__(self, inner: Runtime, should_stop: Callable[[], bool], subject: str) -> None:
        self._inner = inner
        self._should_stop = should_stop
        self._subject = subject
        self.model_name = inner.model_name
        self.model_sha256 = inner.model_sha256

    def generate(self, request: GenerationRequest) -> Generation:
        if self._should_stop():
            raise Cancelled("run cancelled by the user", subject=self._subject)
        return self._inner.generate(request)

    def close(self) -> None:  # the Services cache owns the runtime
        pass


@dataclass(frozen=True)
class JobProgress:
    """Progress of a QA judge run or an answer generation: `done` of `total` steps."""

    done: int
    total: int
    message: str


class JobContext:
    """What a job gets in the worker thread: the worker's Services, a runtime that stops
    on Cancel, the cancel flag, and a way to report progress."""

    def __init__(
        self,
        services: Services,
        runtime_factory: RuntimeFactory,
        should_stop: Callable[[], bool],
        report: Callable[[object], None],
    ) -> None:
        self.services = services
        self._runtime_factory = runtime_factory
        self.should_stop = should_stop
        self.progress = report

    def runtime(self, model: str | None, subject: str) -> Runtime:
        runtime = _StoppableRuntime(
            self._runtime_factory(self.services, model), self.should_stop, subject
        )
        if self.should_stop():
            raise Cancelled("run cancelled by the user", subject=subject)
        return runtime


Job = Callable[[JobContext], object]


def panel_job(record_id: str, model: str | None, settings: PanelSettings, user: str) -> Job:
    """Run the agent panel on one record and save the case; the result is the case id."""

    def job(ctx: JobContext) -> str:
        svc = ctx.services
        record = svc.repo.get_record(record_id)
        ctx.progress(RunEvent(Stage.LOAD, "loading the model", 0, 1))
        runtime = ctx.runtime(model, record.name)
        case = svc.run_and_save(
            record, runtime, settings, user, on_event=ctx.progress, should_stop=ctx.should_stop
        )
        return case.case_id

    return job


@dataclass(frozen=True)
class GenerationResult:
    set_id: str
    label: str  # the configuration's label
    generated: int
    already_stored: int


def judge_qa_set(
    repo: Repository,
    runtime: Runtime,
    set_id: str,
    user: str,
    *,
    settings: JudgeSettings | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    report: Report = lambda done, total, message: None,
) -> str:
    """Judge every item of a stored QA set and store the run; the run id. Nothing is stored
    when the run is cancelled or fails."""
    store = AstridStore(repo)
    items = store.items(set_id)
    run = None
    for event in judge_items(runtime, items, set_id, settings, cancelled=should_stop):
        # the desktop's progress line names the item, never its verdicts: in blind mode the
        # reviewer must not read them there (the command line prints them)
        report(event.done, event.total, f"judged {event.done} of {event.total} item runs")
        run = event.run or run
    if run is None:
        raise Cancelled("the judge run ended without a result", subject=set_id)
    store.save_run(run, user)
    return run.run_id


def generate_set_answers(
    repo: Repository,
    runtime: Runtime,
    set_id: str,
    user: str,
    *,
    temperature: float,
    k: int,
    use_context: bool = False,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    report: Report = lambda done, total, message: None,
) -> GenerationResult:
    """K answers per question from one configuration (the runtime's model). Each answer is
    stored as it is made, so a cancelled or failed run keeps what it made and a new run
    resumes (answers already stored are skipped)."""
    if not 1 <= k <= MAX_K:
        raise InputError(f"K must be between 1 and {MAX_K}, got {k}")
    if temperature < 0:
        raise InputError(f"the temperature must be >= 0, got {temperature}")
    store = EvalStore(repo)
    store.get_set(set_id)
    config = GenerationConfig(
        runtime.model_name, runtime.model_sha256, temperature, use_context, max_tokens
    )
    made = skipped = 0
    for event in generate_answers(store, runtime, set_id, config, k, user):
        made += not event.skipped
        skipped += event.skipped
        state = "kept" if event.skipped else "new"
        report(event.done, event.total, f"{event.question_label}: answer {event.answer_id} {state}")
    return GenerationResult(set_id, config.label, made, skipped)


def qa_judge_job(set_id: str, model: str | None, user: str) -> Job:
    """Judge a stored QA set with `model` (None: the default); the result is the run id."""

    def job(ctx: JobContext) -> str:
        runtime = ctx.runtime(model, set_id)
        return judge_qa_set(
            ctx.services.repo,
            runtime,
            set_id,
            user,
            should_stop=ctx.should_stop,
            report=lambda done, total, message: ctx.progress(JobProgress(done, total, message)),
        )

    return job


def generation_job(
    set_id: str, model: str | None, user: str, *, temperature: float, k: int, use_context: bool
) -> Job:
    """K answers per question of a stored set; the result is a GenerationResult."""

    def job(ctx: JobContext) -> GenerationResult:
        runtime = ctx.runtime(model, set_id)
        return generate_set_answers(
            ctx.services.repo,
            runtime,
            set_id,
            user,
            temperature=temperature,
            k=k,
            use_context=use_context,
            report=lambda done, total, message: ctx.progress(JobProgress(done, total, message)),
        )

    return job


def import_job(paths: list[Path], user: str) -> Job:
    """Import files and folders of patients (`import_paths`); progress is an ImportStep,
    the result an ImportResult."""

    def job(ctx: JobContext) -> ImportResult:
        return import_paths(ctx.services.repo, paths, user, ctx.progress)

    return job


def sign_job(signer: Session, case_id: str, out: Path) -> Job:
    """Sign a case's review record as `signer` (already signed in again with the password
    just typed) into the PDF `out`; the result is the SignedRecord."""

    def job(ctx: JobContext) -> SignedRecord:
        return sign(ctx.services.repo, signer, case_id, out)

    return job
