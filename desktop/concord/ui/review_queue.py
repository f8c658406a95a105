"""The annotator queue: every decidable judgement of a case, in review order, with the
reviewer's position, blind mode, and the decisions already appended.

Blind mode is the annotator's mode: a judgement counts as answered only when THIS reviewer
has decided it (another reviewer's decision reveals nothing), progress and "next
undecided" follow the reviewer's own answers, and the verdict stays hidden until then.

Pure state (a QObject only for its `changed` signal): it makes `Decision`s through
`concord.review.make_decision` and hands them out by `decision_made`; the case view appends
them through the database thread and then calls `set_decisions` with the stored history.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal

from concord.adjudication.targets import case_targets
from concord.domain import Case, Decision, DecisionAction, Target
from concord.review import make_decision, parse_override, required_targets


@dataclass(frozen=True)
class QueueRow:
    target: Target
    required: bool
    last: Decision | None  # latest decision on this target, by anyone
    mine: Decision | None = None  # latest decision on it by the current reviewer

    @property
    def decided(self) -> bool:
        return self.last is not None


def neutral_label(target: Target) -> str:
    """The target's description without the judge's verdict (for blind mode)."""
    parts = target.id.split("/")
    if target.kind == "gate":
        return f"Record screen: does this red flag apply? ({parts[1].replace('_', ' ')})"
    who = parts[0].capitalize()
    if target.kind == "overall":
        return f"{who}: overall score (0–100)"
    if target.kind == "subscore":
        return f"{who}: sub-score {parts[2].replace('_', ' ')} (0–1)"
    if target.kind == "disagreement":
        label = target.label
        kind = target.value.get("kind", "") if isinstance(target.value, dict) else ""
        severity = target.value.get("severity", "") if isinstance(target.value, dict) else ""
        for word in (f"{kind} ({severity})", kind, f"({severity})"):
            label = label.replace(word, "") if word else label
        return f"{who}: disagreement {parts[2]} — " + " ".join(label.split(": ", 1)[-1].split())
    if target.kind == "match":
        return f"{who}: is {parts[2].replace('=', ' the same as ')}?"
    return target.id


def verdict_text(target: Target) -> str:
    value = target.value
    if target.kind == "overall":
        return f"{float(value):.1f} / 100"
    if target.kind == "subscore":
        return f"{float(value):.2f} (of 1)"
    if target.kind == "disagreement" and isinstance(value, dict):
        return f"{value.get('kind')} — severity {value.get('severity')}"
    if target.kind == "match":
        return f"matched (by {value})"
    return str(value)


def same_value(target: Target, answer: object) -> bool:
    """Does a blind answer agree with the judge? (then it is recorded as an accept)"""
    value = target.value
    if target.kind in ("overall", "subscore"):
        return isinstance(answer, float) and abs(float(value) - answer) < 1e-9
    if target.kind == "disagreement" and isinstance(value, dict):
        return answer in ("confirmed", value.get("severity"))
    if target.kind == "match":
        return answer == "valid"
    return answer == value


class ReviewQueue(QObject):
    changed = Signal()
    current_changed = Signal(object)  # Target | None
    decision_made = Signal(object)  # Decision
    blind_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.case: Case | None = None
        self.rows: list[QueueRow] = []
        self.index = 0
        self.blind = False
        self.user = ""
        self.decisions: list[Decision] = []
        self.revealed: set[str] = set()

    # content -------------------------------------------------------------------------

    def set_case(self, case: Case | None, decisions: list[Decision]) -> None:
        self.case = case
        self.decisions = list(decisions)
        self.revealed = set()
        self._rebuild()
        self.index = self.first_undecided()  # resume where the reviewer stopped
        self.changed.emit()
        self.current_changed.emit(self.current)

    def set_decisions(self, decisions: list[Decision], advance: bool = False) -> None:
        self.decisions = list(decisions)
        self._rebuild()
        if advance:
            nxt = self.next_undecided(self.index)
            if nxt is not None:
                self.index = nxt
        self.changed.emit()
        self.current_changed.emit(self.current)

    def _rebuild(self) -> None:
        if self.case is None:
            self.rows = []
            return
        latest: dict[str, Decision] = {}
        mine: dict[str, Decision] = {}
        for d in self.decisions:
            latest[d.target_id] = d
            if d.user == self.user:
                mine[d.target_id] = d
        required = {t.id for t in required_targets(self.case)}
        targets = case_targets(self.case)
        ordered = [t for t in targets if t.id in required] + [
            t for t in targets if t.id not in required
        ]
        self.rows = [
            QueueRow(t, t.id in required, latest.get(t.id), mine.get(t.id)) for t in ordered
        ]
        self.index = min(self.index, max(0, len(self.rows) - 1))

    # position ------------------------------------------------------------------------

    @property
    def current(self) -> Target | None:
        return self.rows[self.index].target if self.rows else None

    @property
    def current_row(self) -> QueueRow | None:
        return self.rows[self.index] if self.rows else None

    def answered(self, row: QueueRow) -> bool:
        """Done for this queue: decided by anyone, or (blind) by this reviewer."""
        return row.mine is not None if self.blind else row.decided

    def shown_decision(self, row: QueueRow) -> Decision | None:
        """The decision the reviewer may see on a row (blind: only their own)."""
        return row.mine if self.blind else row.last

    def visible_decisions(self) -> list[Decision]:
        """The history the reviewer may see (blind: only their own decisions)."""
        if not self.blind:
            return list(self.decisions)
        return [d for d in self.decisions if d.user == self.user]

    @property
    def done(self) -> int:
        return sum(1 for r in self.rows if self.answered(r))

    @property
    def total(self) -> int:
        return len(self.rows)

    @property
    def required_outstanding(self) -> int:
        return sum(1 for r in self.rows if r.required and not r.decided)

    def first_undecided(self) -> int:
        for i, row in enumerate(self.rows):
            if not self.answered(row):
                return i
        return 0

    def next_undecided(self, after: int) -> int | None:
        n = len(self.rows)
        for step in range(1, n + 1):
            i = (after + step) % n
            if not self.answered(self.rows[i]):
                return i
        return None

    def go(self, index: int) -> None:
        if not self.rows:
            return
        index = max(0, min(index, len(self.rows) - 1))
        if index != self.index:
            self.index = index
            self.changed.emit()
            self.current_changed.emit(self.current)

    def next(self) -> None:
        self.go(self.index + 1)

    def previous(self) -> None:
        self.go(self.index - 1)

    def go_to_target(self, target_id: str) -> bool:
        for i, row in enumerate(self.rows):
            if row.target.id == target_id:
                self.index = i
                self.changed.emit()
                self.current_changed.emit(self.current)
                return True
        return False

    def set_blind(self, on: bool) -> None:
        if on != self.blind:
            self.blind = on
            self.revealed = set()
            self.blind_changed.emit(on)
            self.changed.emit()
            self.current_changed.emit(self.current)

    def verdict_visible(self, row: QueueRow | None = None) -> bool:
        row = row or self.current_row
        if row is None:
            return False
        return not self.blind or row.mine is not None or row.target.id in self.revealed

    # deciding ------------------------------------------------------------------------

    def accept(self, reason: str) -> Decision:
        """Accept the judge's value on the current target (not possible blind)."""
        target = self._target()
        if self.blind and not self.verdict_visible():
            raise ValueError("blind mode: give your own answer (O) before seeing the verdict")
        decision = make_decision(
            self._case(),
            target.id,
            user=self.user,
            reason=reason.strip() or "accepted as shown",
            blind=False,
        )
        self.decision_made.emit(decision)
        return decision

    def override(self, value: str, reason: str) -> Decision:
        """Override (or, blind, answer) the current target. InputError on a bad value."""
        target = self._target()
        blind = self.blind and not self.verdict_visible()
        override: str | None = value
        if blind and same_value(target, parse_override(target, value)):
            override = None  # the blind answer agrees with the judge: an accept
        decision = make_decision(
            self._case(), target.id, user=self.user, reason=reason, override=override, blind=blind
        )
        if blind:
            self.revealed.add(target.id)
        self.decision_made.emit(decision)
        return decision

    def _target(self) -> Target:
        if self.current is None:
            raise ValueError("no judgement selected")
        return self.current

    def _case(self) -> Case:
        assert self.case is not None
        return self.case


def action_text(decision: Decision) -> str:
    if decision.action == DecisionAction.ACCEPT:
        return "accepted" + (" (blind answer agreed)" if decision.blind else "")
    return "overridden" + (" (blind answer)" if decision.blind else "")
