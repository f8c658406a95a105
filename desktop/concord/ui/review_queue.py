"""The clinician's queue as the case page uses it: `workbench.case_queue.CaseQueue` (all the
state and the rules: grouping, required first, blind mode, bulk accept) with Qt signals.

Deciding makes `Decision`s through the core and hands them out by `decisions_made`; the
patients page appends them through the database thread and then calls `set_decisions`
with the stored history.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QObject, Signal

from concord.domain import Case, Decision
from concord.workbench.case_queue import CaseQueue, QueueEntry


class ReviewQueue(QObject):
    changed = Signal()
    current_changed = Signal(object)  # QueueEntry | None
    decisions_made = Signal(object)  # list[Decision], to be appended together
    blind_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = CaseQueue()

    # what the views read ---------------------------------------------------------------

    @property
    def case(self) -> Case | None:
        return self.state.case

    @property
    def entries(self) -> list[QueueEntry]:
        return self.state.entries

    @property
    def index(self) -> int:
        return self.state.index

    @property
    def current(self) -> QueueEntry | None:
        return self.state.current

    @property
    def blind(self) -> bool:
        return self.state.blind

    @property
    def user(self) -> str:
        return self.state.user

    @user.setter
    def user(self, user: str) -> None:
        self.state.user = user

    @property
    def decisions(self) -> list[Decision]:
        return self.state.decisions

    @property
    def total(self) -> int:
        return self.state.total

    @property
    def done(self) -> int:
        return self.state.done

    def answered(self, entry: QueueEntry) -> bool:
        return self.state.answered(entry)

    def visible(self, entry: QueueEntry | None = None) -> bool:
        return self.state.visible(entry)

    def visible_decisions(self) -> list[Decision]:
        """The history the reviewer may see (blind: only their own decisions)."""
        if not self.blind:
            return list(self.decisions)
        return [d for d in self.decisions if d.user == self.user]

    # content and position -------------------------------------------------------------

    def _emit(self) -> None:
        self.changed.emit()
        self.current_changed.emit(self.current)

    def set_case(self, case: Case | None, decisions: Sequence[Decision]) -> None:
        self.state.set_case(case, decisions)
        self._emit()

    def set_decisions(self, decisions: Sequence[Decision], advance: bool = False) -> None:
        self.state.set_decisions(decisions, advance=advance)
        self._emit()

    def go(self, index: int) -> None:
        if self.state.go(index):
            self._emit()

    def next(self) -> None:
        self.go(self.index + 1)

    def previous(self) -> None:
        self.go(self.index - 1)

    def go_to_target(self, target_id: str) -> bool:
        """Make the entry holding this judgement current (a group holds several)."""
        found = self.state.find(target_id)
        if found is None:
            return False
        self.state.index = found
        self._emit()
        return True

    def set_blind(self, on: bool) -> None:
        if on != self.blind:
            self.state.blind = on
            self.state.revealed = set()
            self.blind_changed.emit(on)
            self._emit()

    # deciding ------------------------------------------------------------------------

    def accept(self, reason: str) -> list[Decision]:
        made = self.state.accept(reason)
        self.decisions_made.emit(made)
        return made

    def override(self, value: str, reason: str) -> list[Decision]:
        made = self.state.override(value, reason)
        self.decisions_made.emit(made)
        return made

    def dispose(self, disposition: str, reason: str) -> list[Decision]:
        made = self.state.dispose(disposition, reason)
        self.decisions_made.emit(made)
        return made

    def undo(self) -> list[Decision]:
        """Withdraw the reviewer's last decision on the case (recorded as a withdrawal)."""
        made = self.state.undo()
        if made:
            self.decisions_made.emit(made)
        return made

    def saw_evidence(self) -> None:
        self.state.saw_evidence()
        self.changed.emit()

    def needs_evidence(self, entry: QueueEntry | None = None) -> bool:
        return self.state.needs_evidence(entry)

    def accept_optional(self) -> list[Decision]:
        made = self.state.accept_optional()
        if made:
            self.decisions_made.emit(made)
        return made
