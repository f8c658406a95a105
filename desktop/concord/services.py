"""The application's services, built lazily once and shared by the CLI and the UI."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cached_property
from pathlib import Path

from concord import paths
from concord.adjudication.config import ScoringConfig, load_scoring_config
from concord.agents.profiles import AgentProfile, assign_gates, load_profiles
from concord.domain import Record
from concord.llm.isolated import IsolatedRuntime
from concord.llm.llama_cpp_runtime import default_threads
from concord.llm.registry import ModelEntry, ModelStore
from concord.llm.runtime import Runtime
from concord.llm.watchdog import TimeoutRuntime, timeout_from_env
from concord.pipeline import PanelSettings, RunEvent, run_panel
from concord.screen.lexicon import Lexicon
from concord.screen.record_screen import RecordScreen
from concord.store import Repository

BACKSTOP_SECONDS = 30.0
"""How long after the child's own watchdog should have stopped it the outer one gives up."""


class Services:
    def __init__(self, database: Path | None = None, *, ui: bool = False) -> None:
        """`ui`: a window shares this machine's cores, so inference leaves one core free
        (`default_threads`); the command line decodes on all of them."""
        self._database = database
        self._ui = ui
        self._runtimes: dict[str, Runtime] = {}

    @cached_property
    def repo(self) -> Repository:
        return Repository.open(self._database or paths.database_path())

    @cached_property
    def models(self) -> ModelStore:
        return ModelStore.open()

    @cached_property
    def profiles(self) -> dict[str, AgentProfile]:
        """The agent profiles, each with the gates it owns (stated in the gate files)."""
        return assign_gates(load_profiles(), self.screen.owners())

    @cached_property
    def screen(self) -> RecordScreen:
        return RecordScreen.load()

    @cached_property
    def lexicon(self) -> Lexicon:
        return Lexicon.load()

    @cached_property
    def config(self) -> ScoringConfig:
        return load_scoring_config()

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
    ) -> Iterator[RunEvent]:
        """The panel on `record` with this installation's agents, screen, lexicon and
        scoring: the one way the app, the CLI and the batch runner run it."""
        return run_panel(
            record,
            runtime,
            profiles=self.profiles,
            screen=self.screen,
            lexicon=self.lexicon,
            config=self.config,
            settings=settings,
            should_stop=should_stop,
        )

    def close(self) -> None:
        for runtime in self._runtimes.values():
            runtime.close()
        self._runtimes.clear()
        if "repo" in self.__dict__:
            self.repo.close()
