"""Red flags on the worklist from the moment a record is imported, before any run.

The record screen is deterministic, needs no model and reads a record in milliseconds, so
every imported record is screened as soon as the worklist (or `concord cases`) reads it:
a record with a major red flag is triaged before anyone has run the agents. A record with a
case shows the gates its latest case was screened with. Results are kept per record content
(records never change once imported) for the life of the process.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from concord.domain import GateHit, GateStatus, Record, Severity
from concord.errors import ConcordError


class Screen(Protocol):
    def screen(self, record: Record) -> tuple[GateHit, ...]: ...


@dataclass(frozen=True)
class RedFlag:
    """A triggered gate as a list shows it."""

    gate_id: str
    title: str
    severity: Severity

    @property
    def major(self) -> bool:
        return self.severity == Severity.MAJOR

    def to_json(self) -> dict[str, str]:
        return {"gate_id": self.gate_id, "title": self.title, "severity": self.severity.value}


def red_flags(gates: Iterable[GateHit]) -> tuple[RedFlag, ...]:
    """The triggered gates, major before moderate, each group in the screen's order."""
    fired = [g for g in gates if g.status == GateStatus.TRIGGERED]
    fired.sort(key=lambda g: g.severity.rank)
    return tuple(
        RedFlag(g.gate_id, g.title or g.gate_id.replace("_", " ").capitalize(), g.severity)
        for g in fired
    )


class ImportScreen:
    """The record screen over imported records, each screened once per content."""

    def __init__(self, screen: Screen | None = None) -> None:
        self._screen = screen
        self._seen: dict[str, tuple[GateHit, ...]] = {}
        self.problem = ""  # why the screen could not run, if it could not
        self._lock = threading.Lock()  # the desktop screens in a thread of its own

    def known(self, record: Record) -> tuple[GateHit, ...] | None:
        """The record's gates if it was screened already (None: not yet)."""
        return self._seen.get(record.content_hash)

    def _loaded(self) -> Screen | None:
        if self._screen is None and not self.problem:
            try:
                from concord.resources import Resources

                self._screen = Resources.installed().screen
            except ConcordError as exc:
                self.problem = f"Record screen unavailable: {exc.one_line()}"
        return self._screen

    def gates(self, record: Record) -> tuple[GateHit, ...]:
        """Every gate the record triggers or mentions negated; () when the screen cannot run
        (`problem` says why). Never raises: a broken screen must not hide the record."""
        key = record.content_hash
        if key in self._seen:
            return self._seen[key]
        with self._lock:
            return self._screened(record, key)

    def _screened(self, record: Record, key: str) -> tuple[GateHit, ...]:
        if key in self._seen:
            return self._seen[key]
        screen = self._loaded()
        if screen is None:
            return ()
        try:
            found = tuple(screen.screen(record))
        except ConcordError as exc:
            self.problem = f"Record screen unavailable: {exc.one_line()}"
            return ()
        except Exception as exc:  # a screen bug must not hide the record
            self.problem = f"Record screen unavailable: {type(exc).__name__}: {exc}"
            return ()
        self._seen[key] = found
        return found


SHARED = ImportScreen()
"""The process's import screen (the desktop's database thread, one CLI command)."""
