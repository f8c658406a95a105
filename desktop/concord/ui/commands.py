"""Every keyboard command of the window, its keys and where it sits in the menus, and the one
protocol the window talks to its pages through.

The window makes one QAction per command (so the menus and Help → Keyboard shortcuts list
every key) and hands a triggered command to the page being shown; a page says which
commands act on it right now, and only those are enabled, so elsewhere a key does what the
focused widget does with it. Single-letter keys never fire while the focus is in a text box
(Qt gives the key to the box first).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from PySide6.QtCore import SignalInstance


class Command(StrEnum):
    ACCEPT = "accept"
    OVERRIDE = "override"
    OPTION_1 = "option 1"
    OPTION_2 = "option 2"
    OPTION_3 = "option 3"
    ACCEPT_REST = "accept rest"
    ACCEPT_OPTIONAL = "accept optional"
    SKIP = "skip"
    UNDO = "undo"
    NEXT = "next"
    PREVIOUS = "previous"
    DOWN = "down"
    UP = "up"
    EVIDENCE = "evidence"
    REASON = "reason"
    GOOD = "good"
    BAD = "bad"
    GOLDEN = "golden"
    HARM = "harm"
    TO_DO = "to do"
    RUN = "run"
    JUDGE = "judge"
    GENERATE = "generate"
    CANCEL = "cancel"
    SIGN = "sign"
    TAB_DASHBOARD = "tab dashboard"
    TAB_REVIEW = "tab review"
    TAB_SCORECARD = "tab scorecard"
    TAB_DECISIONS = "tab decisions"


OPTIONS = (Command.OPTION_1, Command.OPTION_2, Command.OPTION_3)


@dataclass(frozen=True)
class CommandSpec:
    menu: str  # "Case", "Review" or "Go"
    text: str
    keys: tuple[str, ...]
    tip: str = ""


COMMANDS: dict[Command, CommandSpec] = {
    Command.RUN: CommandSpec("Case", "Run agent panel", ("Ctrl+R",)),
    Command.CANCEL: CommandSpec(
        "Case", "Cancel run", ("Esc",), "Cancel the run, judge run or answer generation shown"
    ),
    Command.SIGN: CommandSpec("Case", "Sign…", ("Ctrl+Shift+S",)),
    Command.JUDGE: CommandSpec("Case", "Judge this QA set (ASTRID)", ("Ctrl+J",)),
    Command.GENERATE: CommandSpec("Case", "Generate answers (EVAL)", ("Ctrl+G",)),
    Command.ACCEPT: CommandSpec("Review", "Accept the judge's value", ("A",)),
    Command.OVERRIDE: CommandSpec("Review", "Override / give my answer…", ("O",)),
    Command.OPTION_1: CommandSpec("Review", "QA: answer with option 1", ("1",)),
    Command.OPTION_2: CommandSpec("Review", "QA: answer with option 2", ("2",)),
    Command.OPTION_3: CommandSpec("Review", "QA: answer with option 3", ("3",)),
    Command.ACCEPT_REST: CommandSpec(
        "Review",
        "QA: accept the rest of this item",
        ("Return", "Enter"),
        "Accept the judge on every verdict of the item you have not decided, then go on",
    ),
    Command.ACCEPT_OPTIONAL: CommandSpec(
        "Review",
        "Accept the remaining optional judgements…",
        ("Ctrl+Shift+A",),
        "Accept every optional judgement nobody has decided (recorded as a bulk accept)",
    ),
    Command.SKIP: CommandSpec("Review", "Skip (unsure): leave for later", ("S",)),
    Command.UNDO: CommandSpec(
        "Review", "Undo my last decision", ("Ctrl+Z", "Backspace"), "Recorded as a new decision"
    ),
    Command.NEXT: CommandSpec("Review", "Next judgement / item / answer", ("N",)),
    Command.PREVIOUS: CommandSpec("Review", "Previous judgement / item / answer", ("P",)),
    Command.DOWN: CommandSpec("Review", "Next verdict (QA) / next judgement", ("J",)),
    Command.UP: CommandSpec("Review", "Previous verdict (QA) / previous judgement", ("K",)),
    Command.EVIDENCE: CommandSpec(
        "Review",
        "Show the evidence in the record (and back)",
        ("E",),
        "Jump to the current judgement's evidence in the record; E again comes back",
    ),
    Command.REASON: CommandSpec(
        "Review", "Type a reason", ("R",), "Type a reason (Enter returns to the queue)"
    ),
    Command.GOOD: CommandSpec("Review", "Grade answer good", ("G",)),
    Command.BAD: CommandSpec("Review", "Grade answer bad", ("X",)),
    Command.GOLDEN: CommandSpec("Review", "Show / hide golden answers", ("L",)),
    Command.HARM: CommandSpec(
        "Review",
        "Mark unsafe (harm)…",
        ("H",),
        "Mark the answer or the current sentence unsafe, with a severity (1 / 2 / 3)",
    ),
    Command.TO_DO: CommandSpec("Go", "Worklist: to do only", ("T",), "Show only patients to do"),
    Command.TAB_DASHBOARD: CommandSpec("Go", "Case dashboard", ("Ctrl+1",)),
    Command.TAB_REVIEW: CommandSpec("Go", "Side-by-side review", ("Ctrl+2",)),
    Command.TAB_SCORECARD: CommandSpec("Go", "Scorecard", ("Ctrl+3",)),
    Command.TAB_DECISIONS: CommandSpec("Go", "Decisions and queue", ("Ctrl+4",)),
}


class Page(Protocol):
    """What the main window knows of a page (Patients, QA review, Answer grading,
    Agreement)."""

    title: str
    tip: str
    commands_changed: SignalInstance  # emitted when `commands()` may have changed

    def commands(self) -> frozenset[Command]:
        """The commands that act on the page right now."""
        ...

    def run_command(self, command: Command) -> None: ...

    def page_shown(self) -> None:
        """The page became the one shown (load it the first time, focus its queue)."""
        ...

    def set_blind(self, on: bool) -> None: ...

    def show_message(self, text: str, level: str = "error") -> None:
        """A message in the page's own banner (empty text hides it)."""
        ...
