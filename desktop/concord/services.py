"""The application's services, built lazily once and shared by the CLI and the UI."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import cached_property
from pathlib import Path

from concord import paths
from concord.adjudication.config import ScoringConfig
from concord.agents.profiles import AgentProfile
from concord.domain import RESOURCE_PARTS, Case, CaseMode, Record, ResourceVersions
from concord.llm.isolated import IsolatedRuntime
from concord.llm.llama_cpp_runtime import default_threads
from concord.llm.registry import ModelEntry, ModelStore
from concord.llm.runtime import Runtime
from concord.llm.watchdog import TimeoutRuntime, timeout_from_env
from concord.pipeline import PanelSettings, RunEvent, final_case, run_panel
from concord.resources import Resources
from concord.screen.lexicon import Lexicon
from concord.screen.record_screen import RecordScreen
from concord.site import SiteStore, case_mode
from concord.store import Repository
from concord.store.codec import system_user

BACKSTOP_SECONDS = 30.0
"""How long after the child's own watchdog should have stopped it the outer one gives up."""


def _stamped(case: Case, resources: Resources, mode: CaseMode, acceptance_id: str) -> Case:
    return case.model_copy(
        update={"resources": resources.versions, "mode": mode, "acceptance_id": acceptance_id}
    )


class Services:
    def __init__(self, database: Path | None = None, *, ui: bool = False) -> None:
        """`ui`: a window shares this machine's cores, so inference leaves one core free
        (`default_threads`); the command line decodes on all of them."""
        self._database = database
        self._ui = ui
        self._runtimes: dict[str, Runtime] = {}
        self._kept: set[ResourceVersions] = set()

    @cached_property
    def repo(self) -> Repository:
        return Repository.open(self._database or paths.database_path())

    @cached_property
    def models(self) -> ModelStore:
        return ModelStore.open()

    @cached_property
    def resources(self) -> Resources:
        """The installed gates, lexicon, prompts, agents and scoring, with their versions:
        the one copy every run, screen and PDF of these services reads."""
        return Resources.installed()

    @property
    def profiles(self) -> dict[str, AgentProfile]:
        """The agent profiles, each with the gates it owns (stated in the gate files)."""
        return dict(self.resources.profiles)

    @property
    def screen(self) -> RecordScreen:
        return self.resources.screen

    @property
    def lexicon(self) -> Lexicon:
        return self.resources.lexicon

    @property
    def config(self) -> ScoringConfig:
        return self.resources.scoring

    def model_entry(self, name_or_path: str | None) -> ModelEntry:
        return self.models.resolve(name_or_path) if name_or_path else self.models.default()

    def runtime(self, name_or_path: str | None = None) -> Runtime:
        """The runtime for a registered model, loaded once and shared by every agent and
        judge of every run on these services.

        The file's SHA-256 is checked here, then llama.cpp loads it in a child process
        (`IsolatedRuntime`): a native crash on a bad file ends that process, not the
        application or the database writer, and the next request starts a fresh one. The
        child keeps the record-prefix KV state, so prefix reuse works as in-process. A
        child that makes no progress (no prompt token, no output token) for
        CONCORD_MODEL_TIMEOUT seconds (`timeout_from_env`, default 120) is stopped, however
        long a slow but progressing answer takes; the outer `TimeoutRuntime`, judging the
        same progress a little later, answers the caller even if a restart or the pipe to
        the child hangs."""
        entry = self.model_entry(name_or_path)
        if entry.sha256 not in self._runtimes:
            seconds = timeout_from_env()
            threads = default_threads(keep_a_core=self._ui)
            isolated = IsolatedRuntime(entry, timeout=seconds, n_threads=threads)
            self._runtimes[entry.sha256] = TimeoutRuntime(isolated, BACKSTOP_SECONDS)
        return self._runtimes[entry.sha256]

    def run_panel(
        self,
        record: Record,
        runtime: Runtime,
        settings: PanelSettings | None = None,
        should_stop: Callable[[], bool] = lambda: False,
        *,
        resources: Resources | None = None,
        silent: bool = False,
    ) -> Iterator[RunEvent]:
        """The panel on `record` with this installation's resources (or `resources`): the
        one way the app, the CLI, the batch runner and site validation run it.

        The case carries the versions of the resources it was run with and its mode, fixed
        now: clinical where the site accepted (model, versions), demonstration for the
        embedded model before any acceptance, silent otherwise or when `silent` is asked
        (validation runs)."""
        used = resources or self.resources
        self.keep_versions(used)
        mode, acceptance_id = (
            (CaseMode.SILENT, "")
            if silent
            else case_mode(self.repo, runtime.model_sha256, used.versions)
        )
        for event in run_panel(
            record,
            runtime,
            profiles=used.profiles,
            screen=used.screen,
            lexicon=used.lexicon,
            config=used.scoring,
            prompts=used.prompts,
            settings=settings,
            should_stop=should_stop,
        ):
            if event.case is not None:
                event = replace(event, case=_stamped(event.case, used, mode, acceptance_id))
            yield event

    def run_and_save(
        self,
        record: Record,
        runtime: Runtime,
        settings: PanelSettings | None,
        user: str,
        *,
        on_event: Callable[[RunEvent], None] = lambda _: None,
        should_stop: Callable[[], bool] = lambda: False,
        resources: Resources | None = None,
        silent: bool = False,
    ) -> Case:
        """`run_panel` to its end, then the case saved: what the CLI, the desktop's jobs and
        site validation do with a run (a batch saves on its own writer thread)."""
        events = self.run_panel(
            record, runtime, settings, should_stop, resources=resources, silent=silent
        )
        case = final_case(events, on_event)
        self.repo.save_case(case, user)
        return case

    def keep_versions(self, resources: Resources) -> None:
        """Store the text of each resource version not stored yet, so every case can be
        read (its scoring, its gates) with the versions it was made with."""
        versions = resources.versions
        if versions in self._kept:
            return  # (batch workers share these services: no database access from them)
        store = SiteStore(self.repo)
        missing = [p for p in RESOURCE_PARTS if not store.has_snapshot(p, getattr(versions, p))]
        if missing:
            store.save_snapshots(
                versions, {p: resources.snapshot(p) for p in RESOURCE_PARTS}, system_user()
            )
        self._kept.add(versions)

    def close(self) -> None:
        for runtime in self._runtimes.values():
            runtime.close()
        self._runtimes.clear()
        if "repo" in self.__dict__:
            self.repo.close()
