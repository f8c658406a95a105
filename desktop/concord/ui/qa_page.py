"""ASTRID QA review: one item at a time, as fast as an annotator can agree.

Agreeing with the judge costs one key per item: Enter accepts every verdict of the item
not yet decided and moves to the next item (recorded as a bulk accept: the verdicts were not
decided one by one). Each verdict's options are buttons with their
key printed on them (1 / 2 / 3); A accepts the judge's verdict on the current one; every
decision moves on to the next verdict to decide, and past the item's last one to the next
item. S skips an item (unsure: it stays to do, after the others); Ctrl+Z (or Backspace)
undoes the last decision — recorded as a new decision that withdraws it, never an edit.
CF is not asked: it follows the sentence verdicts (`workbench.qa_session`).

No key falls through: a key that overrides a verdict the reviewer can see opens the reason
box at once (`label_dialogs.ReasonDialog`: one letter takes a preset reason, Esc cancels);
the item waits for it, so the next keys can never accept the judge instead. H marks the
answer or the current sentence unsafe with a severity. Every label is stored with how it was
given: blind or not, bulk or one by one, the seconds the item had been on screen, the judge
run shown.

Blind mode hides the judge's verdicts, reasons and the file's labels until answered (A and
Enter are off then); a set with no judge run is labelled blind. Data comes from the
database thread; the page never touches SQLite. "Judge this QA set" (Ctrl+J) runs the
ASTRID judge over the set shown in the window's job runner and opens the new run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from concord.accounts.session import Session as SignedIn
from concord.domain import Decision, Severity
from concord.errors import ConcordError
from concord.ui import theme
from concord.ui.commands import OPTIONS, Command
from concord.ui.db import DbThread
from concord.ui.job_panel import JobFollower, JobPanel
from concord.ui.label_dialogs import HarmDialog, ReasonDialog
from concord.ui.messages import error_text, show_banner
from concord.ui.qa_item_view import QaItemView
from concord.ui.theme import plain_label
from concord.ui.workers import JobRunner
from concord.workbench.imports import QaImport
from concord.workbench.model_jobs import qa_judge_job
from concord.workbench.qa_session import (
    SENTENCE,
    QaChoice,
    QaRow,
    QaSession,
    QaUpdate,
    accept_rest,
    apply_update,
    load_session,
    make_harm_decision,
    make_row_decision,
    needs_reason,
    qa_choices,
    store_decisions,
    undo_last,
)
from concord.workbench.reason_presets import presets

DECIDING = frozenset(
    {
        *OPTIONS,
        Command.ACCEPT,
        Command.ACCEPT_REST,
        Command.SKIP,
        Command.UNDO,
        Command.NEXT,
        Command.PREVIOUS,
        Command.DOWN,
        Command.UP,
        Command.REASON,
        Command.HARM,
    }
)


class QaReviewView(QWidget):
    """The QA review page (ASTRID)."""

    title = "QA review (ASTRID)"
    tip = "Review ASTRID judge verdicts on QA answers: grounding, relevance, refusal (Alt+2)"
    commands_changed = Signal()
    decided = Signal(str)  # target id, after the decision was stored
    loaded = Signal()  # a session is shown
    blind_requested = Signal(bool)  # the page's blind box was clicked
    import_requested = Signal()

    def __init__(
        self,
        db: DbThread,
        user: str,
        jobs: JobRunner | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("qaReviewPage")
        self.db = db
        self.user = user
        self.signed_in: SignedIn | None = None  # set by the main window; decides as this user
        self.jobs = jobs  # runs the judge; None: the page only reviews
        self.blind = False
        self.choices: list[QaChoice] = []
        self.session: QaSession | None = None
        self.item_index = 0
        self.skipped: set[str] = set()
        self.busy = False  # a write is on its way: later keys wait for it
        self._waiting: list[Command] = []
        self._loaded_once = False
        self._requests = 0  # only the latest read of the chooser is shown
        self._want: tuple[str | None, str | None] | None = None  # to open after a refresh
        self._select_after: str | None = None  # target to select once the session is shown
        self.dialog: ReasonDialog | HarmDialog | None = None  # open: the item waits for it
        self._timed: str | None = None  # the item on screen, and since when (monotonic)
        self._shown_at = time.monotonic()
        self._build()

    # -- layout --------------------------------------------------------------------------

    def _build(self) -> None:
        self.run_box = QComboBox()
        self.run_box.setObjectName("qaRunBox")
        self.run_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.run_box.activated.connect(self._choice_activated)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.setToolTip("Read the QA sets and judge runs again")
        self.refresh_button.clicked.connect(self.refresh)
        self.import_button = QPushButton("Import QA items…")
        self.import_button.setToolTip("Import a .jsonl or .csv QA set (File menu)")
        self.import_button.clicked.connect(self.import_requested.emit)
        self.blind_box = QCheckBox("Blind mode (B)")
        self.blind_box.setObjectName("qaBlind")
        self.blind_box.setToolTip("Hide the judge's verdicts until you have answered")
        self.blind_box.clicked.connect(self.blind_requested.emit)
        top = QHBoxLayout()
        top.addWidget(plain_label("QA set and judge run:", bold=True, wrap=False))
        top.addWidget(self.run_box, 1)
        top.addWidget(self.refresh_button)
        top.addWidget(self.import_button)
        top.addWidget(self.blind_box)
        self.judge = JobPanel("Judge this QA set (Ctrl+J)", "qaJudge")
        self.judge.start_button.setToolTip(
            "Run the ASTRID judge (CF / RA / CR) over the set shown, with the chosen model"
        )
        self.judge.start_requested.connect(self.judge_set)
        self.judge.cancel_requested.connect(self.cancel_judging)
        self._judge_job = JobFollower(  # follows the judge run of the set shown
            self.jobs,
            self.judge,
            lambda: self.session is not None,
            failed_text="The judge run failed; nothing was stored",
            cancelled_text="Judge run cancelled; nothing was stored.",
            parent=self,
        )
        self._judge_job.done.connect(self._judge_finished)
        self._judge_job.stopped.connect(lambda _set_id, text, level: self.show_message(text, level))
        self._judge_job.following_changed.connect(lambda _on: self.commands_changed.emit())

        self.progress_label = plain_label("", bold=True, wrap=False)
        self.progress_label.setObjectName("qaProgressLabel")
        self.progress = QProgressBar()
        self.progress.setObjectName("qaProgress")
        self.progress.setFixedWidth(220)
        self.banner = plain_label()
        self.banner.setObjectName("qaBanner")
        self.banner.hide()
        prog = QHBoxLayout()
        prog.addWidget(self.progress_label, 1)
        prog.addWidget(self.progress)

        self.queue = QListWidget()
        self.queue.setObjectName("qaQueue")
        self.queue.setToolTip(
            "Items of the set: ✓ = you decided every verdict, • = to do, ↷ = skipped; "
            "in / out = scope"
        )
        self.queue.currentRowChanged.connect(self._item_chosen)
        queue_box = QWidget()
        ql = QVBoxLayout(queue_box)
        ql.setContentsMargins(0, 0, 0, 0)
        ql.addWidget(plain_label("Items (✓ done · • to do · ↷ skipped)", bold=True))
        ql.addWidget(self.queue, 1)

        self.item = QaItemView()
        self.item.row_chosen.connect(lambda _row: self._row_chosen())
        self.item.option_clicked.connect(self.choose_option)
        self.reason = QLineEdit()
        self.reason.setObjectName("qaReason")
        self.reason.setPlaceholderText(
            "Reason (R; Enter returns) — needed to override a verdict you can see"
        )
        self.reason.returnPressed.connect(self.focus_queue)
        self.status = plain_label()
        self.status.setObjectName("qaStatus")
        centre = QWidget()
        column = QVBoxLayout(centre)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.item, 1)
        column.addWidget(self.reason)
        column.addWidget(self.status)
        split = QSplitter()
        split.addWidget(queue_box)
        split.addWidget(centre)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 5)
        split.setSizes([200, 1000])
        split.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.judge)
        layout.addLayout(prog)
        layout.addWidget(self.banner)
        layout.addWidget(split, 1)
        self._show_nothing("Loading…")

    # -- the page protocol ---------------------------------------------------------------

    def commands(self) -> frozenset[Command]:
        found: set[Command] = {Command.JUDGE}
        if self.judging:
            found.add(Command.CANCEL)
        if self.session is not None and self.session.items:
            found |= DECIDING
        return frozenset(found)

    def run_command(self, command: Command) -> None:
        if command == Command.ACCEPT_REST and self._typing():
            self.focus_queue()  # Enter in the reason box: back to the verdicts
            return
        if self.dialog is not None and command in DECIDING:
            self.status.setText("Give a reason (a letter or typed, Enter) or Esc to cancel first.")
            return
        if self.busy and command in DECIDING:
            self._waiting.append(command)  # after the write on its way
            return
        actions: dict[Command, Callable[[], None]] = {
            Command.ACCEPT: self.accept_current,
            Command.ACCEPT_REST: self.accept_rest,
            Command.SKIP: self.skip_item,
            Command.UNDO: self.undo,
            Command.NEXT: self.next_item,
            Command.PREVIOUS: self.previous_item,
            Command.DOWN: self.next_verdict,
            Command.UP: self.previous_verdict,
            Command.REASON: self.focus_reason,
            Command.HARM: self.mark_harm,
            Command.JUDGE: lambda: self.judge_set(),
            Command.CANCEL: self.cancel_judging,
        }
        if command in OPTIONS:
            self.choose_option(OPTIONS.index(command) + 1)
        elif command in actions:
            actions[command]()

    def _typing(self) -> bool:
        return isinstance(QApplication.focusWidget(), QLineEdit)

    def page_shown(self) -> None:
        if not self._loaded_once:
            self._loaded_once = True
            self.refresh()
        self.focus_queue()

    # -- loading (database thread) -------------------------------------------------------

    def refresh(self) -> None:
        """Read the sets and runs again; keep the open run when it is still there."""
        self._loaded_once = True
        if self._want is None and self.session is not None:
            run = self.session.run
            self._want = (self.session.set_id, run.run_id if run else None)
        self._read_choices()

    def _read_choices(self) -> None:
        self._requests += 1
        request = self._requests
        self.db.call(
            qa_choices,
            lambda choices: self._choices_loaded(choices) if request == self._requests else None,
            self._load_failed,
        )

    def open_run(
        self, set_id: str | None, run_id: str | None, target_id: str | None = None
    ) -> None:
        """Show a set (its newest run) or one run, optionally at one verdict."""
        self._loaded_once = True
        self._want = (set_id, run_id)
        self._select_after = target_id
        self._read_choices()

    def _choices_loaded(self, choices: list[QaChoice]) -> None:
        self.choices = choices
        self.run_box.clear()
        for n, choice in enumerate(choices):
            self.run_box.addItem(choice.title)
            self.run_box.setItemData(
                n,
                f"QA set {choice.set_id}"
                + (f", judge run {choice.run_id}" if choice.run_id else ""),
                Qt.ItemDataRole.ToolTipRole,
            )
        if not choices:
            self.session = None
            self._show_nothing(
                "No QA set yet. Import one with File → Import QA items… "
                "(resources/demo/qa_cataract_followup.jsonl is a demo set); label it blind, "
                "or judge it first with “Judge this QA set” (Ctrl+J)."
            )
            self._judge_job.update_button()
            self.commands_changed.emit()
            return
        index = 0
        if self._want is not None:
            set_id, run_id = self._want
            same_run = [n for n, c in enumerate(choices) if run_id and c.run_id == run_id]
            # a label made with no judge run is kept on its set: its "run" is the set
            same_set = [n for n, c in enumerate(choices) if c.set_id in (set_id, run_id)]
            index = (same_run or same_set or [0])[0]
        self._want = None
        self.run_box.setCurrentIndex(index)
        self._open(index)

    def _choice_activated(self, index: int) -> None:
        self._select_after = None
        self._open(index)

    def _open(self, index: int) -> None:
        if not 0 <= index < len(self.choices):
            return
        choice, user = self.choices[index], self.user
        self._requests += 1
        request = self._requests
        self.db.call(
            lambda repo: load_session(repo, choice.set_id, choice.run_id, user),
            lambda session: self._session_loaded(session) if request == self._requests else None,
            self._load_failed,
        )

    def _load_failed(self, exc: BaseException) -> None:
        self.show_message(f"Could not read the QA data: {error_text(exc)}", "error")

    def _session_loaded(self, session: QaSession) -> None:
        self.session = session
        self.skipped = set()
        if session.run is None:
            self.show_message(
                "No judge run on this set yet: label it blind (1 / 2 / 3 on each verdict), or "
                "choose a judge model above and press “Judge this QA set” (Ctrl+J), or run "
                f"`concord astrid {session.set_id}`.",
                "warning",
            )
        elif not self.judging:
            self.show_message("")
        self._judge_job.update_button()
        self.item_index = session.start_item
        self._fill_queue()
        self._update_progress()
        target = self._select_after
        self._select_after = None
        if target is None or not self.select_target(target):
            self._show_item(self._first_open_row())
        self.commands_changed.emit()
        self.loaded.emit()

    # -- judging (job runner) ------------------------------------------------------------

    def judge_set(self, model: str | None = None) -> None:
        """Run the ASTRID judge over the set shown (Ctrl+J); the new run opens when done."""
        if self.session is None or not self._judge_job.can_start():
            return
        set_id, user = self.session.set_id, self.user
        chosen = self.judge.model_name() if model is None else model
        self.show_message("")
        self._judge_job.start(
            set_id,
            qa_judge_job(set_id, chosen or None, user),
            f"Judging {self.session.set_name}: loading the model…",
        )

    def cancel_judging(self) -> None:
        self._judge_job.cancel()

    @property
    def judging(self) -> bool:
        return self._judge_job.following

    def _judge_finished(self, set_id: str, run_id: object) -> None:
        self.judge.stopped(f"Judge run {run_id} stored: its verdicts are shown below.", ok=True)
        self.open_run(set_id, str(run_id))

    # -- showing -------------------------------------------------------------------------

    def show_message(self, text: str, level: str = "info") -> None:
        show_banner(self.banner, text, level)

    def _show_nothing(self, note: str) -> None:
        self.queue.clear()
        self.item.clear()
        self.progress_label.setText("")
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setFormat("no items")
        self.show_message(note, "info")

    def set_blind(self, on: bool) -> None:
        if on == self.blind and self.blind_box.isChecked() == on:
            return
        self.blind = on
        self.blind_box.setChecked(on)
        if self.session is not None:
            self._fill_queue()
            self._show_item(self.item.targets.currentRow())

    def _fill_queue(self) -> None:
        session = self.session
        assert session is not None
        self.queue.blockSignals(True)
        self.queue.clear()
        for item in session.items:
            done = session.item_done(item.item_id)
            mark = "✓ " if done else ("↷ " if item.item_id in self.skipped else "• ")
            scope = f"  · {item.scope}" if item.scope else ""
            entry = QListWidgetItem(mark + item.item_id + scope)
            entry.setToolTip(
                f"{item.item_id}: {'all verdicts decided' if done else 'to do'}"
                + (f", {item.scope} of scope" if item.scope else "")
            )
            if done:
                entry.setForeground(QColor(theme.GREEN))
            self.queue.addItem(entry)
        self.queue.setCurrentRow(self.item_index)
        self.queue.blockSignals(False)
        width = self.queue.sizeHintForColumn(0) + 2 * self.queue.frameWidth() + 24
        self.queue.setMinimumWidth(min(260, max(140, width)))

    def _update_progress(self) -> None:
        session = self.session
        assert session is not None
        total = len(session.items)
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(session.items_done)
        self.progress.setFormat("%v / %m items" if total else "no items")
        others = (
            f" · {session.others} decision(s) by other reviewers not counted"
            if session.others
            else ""
        )
        mode = "judged" if session.run else "no judge run: labelling blind"
        self.progress_label.setText(
            f"Your progress ({self.user}): {session.items_done} / {total} items done · "
            f"{session.verdicts_done} / {session.verdicts_total} verdicts · {mode}{others}"
        )

    def current_item_id(self) -> str | None:
        if self.session is None or not self.session.items:
            return None
        return self.session.items[self.item_index].item_id

    def item_rows(self) -> list[QaRow]:
        item_id = self.current_item_id()
        return [] if item_id is None or self.session is None else self.session.item_rows(item_id)

    def current_row(self) -> QaRow | None:
        rows = self.item_rows()
        n = self.item.targets.currentRow()
        return rows[n] if 0 <= n < len(rows) else None

    def hidden(self, row: QaRow) -> bool:
        return self.session is not None and self.item.hidden(self.session, row, self.blind)

    def _first_open_row(self) -> int:
        item_id = self.current_item_id()
        if self.session is None or item_id is None:
            return 0
        found = self.session.open_row(item_id)
        return 0 if found is None else found

    def _show_item(self, row: int) -> None:
        session = self.session
        if session is None or not session.items:
            return
        self.queue.blockSignals(True)
        self.queue.setCurrentRow(self.item_index)
        self.queue.blockSignals(False)
        item_id = session.items[self.item_index].item_id
        if item_id != self._timed:  # another item on screen: its time starts now
            self._timed, self._shown_at = item_id, time.monotonic()
        self.item.show_item(session, self.item_index, row, self.blind)

    def _row_chosen(self) -> None:
        session, item_id = self.session, self.current_item_id()
        if session is not None and item_id is not None:
            self.item.show_row(session, session.items[self.item_index], self.blind)

    # -- navigation ----------------------------------------------------------------------

    def _item_chosen(self, index: int) -> None:
        if self.session is not None and 0 <= index < len(self.session.items):
            self.item_index = index
            self._show_item(self._first_open_row())

    def go_to_item(self, index: int, row: int | None = None) -> None:
        if self.session is not None and 0 <= index < len(self.session.items):
            self.item_index = index
            self._show_item(self._first_open_row() if row is None else row)

    def next_item(self) -> None:
        self.go_to_item(self.item_index + 1)

    def previous_item(self) -> None:
        self.go_to_item(self.item_index - 1)

    def next_verdict(self) -> None:
        n = self.item.targets.currentRow()
        if n + 1 < self.item.targets.count():
            self.item.targets.setCurrentRow(n + 1)

    def previous_verdict(self) -> None:
        n = self.item.targets.currentRow()
        if n > 0:
            self.item.targets.setCurrentRow(n - 1)

    def focus_reason(self) -> None:
        self.reason.setFocus()
        self.reason.selectAll()

    def focus_queue(self) -> None:
        self.item.targets.setFocus()

    def select_target(self, target_id: str) -> bool:
        session = self.session
        if session is None:
            return False
        row = session.rows_by_target().get(target_id)
        if row is None:
            return False
        self.item_index = session.item_index(row.item_id)
        rows = session.item_rows(row.item_id)
        self._show_item(rows.index(row))
        return True

    def skip_item(self) -> None:
        """S: leave this item for later (unsure); it stays to do, after the others."""
        item_id, session = self.current_item_id(), self.session
        if item_id is None or session is None:
            return
        self.skipped.add(item_id)
        self._fill_queue()
        following = session.open_item(self.item_index, frozenset(self.skipped))
        if following is None or following == self.item_index:
            self.status.setText(f"Skipped {item_id}; nothing else is left to do.")
            return
        self.status.setText(f"Skipped {item_id} (unsure): it stays to do, after the others.")
        self.go_to_item(following)

    def _advance(self, from_row: int) -> None:
        """After a decision: the item's next undecided verdict, else the next item to do."""
        session, item_id = self.session, self.current_item_id()
        if session is None or item_id is None:
            return
        in_item = session.open_row(item_id, from_row)
        if in_item is not None:
            self._show_item(in_item)
            return
        following = session.open_item(self.item_index, frozenset(self.skipped))
        if following is None:
            self._show_item(from_row)
            self.status.setText(self.status.text() + " — every item of this set is decided")
            return
        self.go_to_item(following)

    # -- deciding ------------------------------------------------------------------------

    def seconds_on_item(self) -> float:
        """How long the item shown has been on screen."""
        return time.monotonic() - self._shown_at

    def choose_option(self, number: int) -> None:
        """Keys 1 / 2 / 3 (or a button): answer the current verdict with that option. An
        override of a verdict you can see needs a reason: without one typed, the reason box
        opens and the item waits for it."""
        row = self.current_row()
        if row is None or not 1 <= number <= len(row.options):
            return
        value, reason = row.options[number - 1], self.reason.text().strip()
        if not reason and needs_reason(row, value, blind=self.hidden(row)):
            self.ask_reason(row, value)
            return
        self._decide([(row, value)], reason)

    def ask_reason(self, row: QaRow, value: str) -> None:
        """Open the reason box for overriding `row` with `value` (focus in it)."""
        session = self.session
        if session is None:
            return
        if row.kind == SENTENCE and row.sentence is not None:
            what = f"S{row.sentence + 1} “{session.sentences[row.item_id][row.sentence].text}”"
        else:
            what = "Context relevance" if row.kind == "astrid_cr" else "Refusal"
        dialog = ReasonDialog(
            f"{row.item_id} · {what}\nThe judge says {row.judge_value}; you answer {value}.",
            presets(row.kind, value),
            self,
        )
        dialog.chosen.connect(lambda reason: self._decide([(row, value)], reason))
        dialog.finished.connect(self._dialog_closed)
        self.dialog = dialog
        self.status.setText(f"Why {value}? Press a letter for a reason, or type one; Esc cancels.")
        self.commands_changed.emit()
        dialog.open()
        dialog.activateWindow()  # the keys go to the reason box from now on
        dialog.box.setFocus()

    def _dialog_closed(self, result: int) -> None:
        dialog, self.dialog = self.dialog, None
        if isinstance(dialog, ReasonDialog) and dialog.reason is None:
            self.status.setText("Override cancelled: nothing was recorded.")
        elif isinstance(dialog, HarmDialog) and dialog.result_severity is None:
            self.status.setText("Not marked unsafe.")
        self.window().activateWindow()
        self.focus_queue()
        self.commands_changed.emit()
        del result

    def mark_harm(self) -> None:
        """H: mark the current sentence (or the whole answer) unsafe, with a severity."""
        session, row = self.session, self.current_row()
        if session is None or row is None:
            return
        sentence = row.sentence if row.kind == SENTENCE else None
        item = session.items[self.item_index]
        what = (
            f"S{sentence + 1}: “{session.sentences[row.item_id][sentence].text}”"
            if sentence is not None
            else f"The answer to “{item.question}”"
        )
        dialog = HarmDialog(what, sentence=sentence is not None, parent=self)
        dialog.chosen.connect(
            lambda severity, whole: self._mark(row.item_id, None if whole else sentence, severity)
        )
        dialog.finished.connect(self._dialog_closed)
        self.dialog = dialog
        dialog.open()
        dialog.activateWindow()
        dialog.setFocus()

    def _mark(self, item_id: str, sentence: int | None, severity: Severity) -> None:
        session, signed_in = self.session, self.signed_in
        if session is None:
            return
        if signed_in is None:
            self.status.setText("Sign in to record decisions.")
            return
        decision = make_harm_decision(
            session, item_id, sentence, severity, self.reason.text().strip(), blind=self.blind
        )
        how = session.provenance(bulk=False, seconds=self.seconds_on_item())
        self._write(
            lambda repo: store_decisions(repo, session, [decision], signed_in, how),
            self.item.targets.currentRow(),
        )

    def accept_current(self) -> None:
        row = self.current_row()
        if row is None:
            return
        if row.judge is None:
            self.status.setText("No judge's verdict here: answer with 1 / 2 / 3.")
            return
        if self.hidden(row):
            self.status.setText("Blind mode: give your own answer first (1 / 2 / 3).")
            return
        if not row.acceptable:
            self.status.setText("The judge gave no verdict here: answer with 1 / 2 / 3.")
            return
        self._decide([(row, None)], self.reason.text().strip())

    def accept_rest(self) -> None:
        """Enter: accept the judge on every verdict of the item not decided yet, then go
        on; a verdict the judge failed to give is left for you (the page stops on it)."""
        session = self.session
        if session is None:
            return
        item_id = self.current_item_id()
        if item_id is None:
            return
        try:
            made = accept_rest(session, item_id, self.reason.text(), blind=self.blind)
        except (ConcordError, ValueError) as exc:
            self.status.setText(error_text(exc) if isinstance(exc, ConcordError) else str(exc))
            return
        if not made:
            self._advance(self.item.targets.currentRow())
            return
        self._store(made, bulk=True)

    def _decide(
        self, choices: Sequence[tuple[QaRow, str | None]], reason: str, *, bulk: bool = False
    ) -> None:
        session = self.session
        if session is None:
            return
        made: list[Decision] = []
        try:
            for row, value in choices:
                made.append(make_row_decision(session, row, value, reason, blind=self.hidden(row)))
        except (ConcordError, ValueError) as exc:
            text = error_text(exc) if isinstance(exc, ConcordError) else str(exc)
            if "reason" in text:
                text += " — press R and type why you override the judge"
            self.status.setText(text)
            return
        self._store(made, bulk=bulk)

    def _store(self, made: Sequence[Decision], *, bulk: bool) -> None:
        session = self.session
        if session is None:
            return
        signed_in = self.signed_in
        if signed_in is None:
            self.status.setText("Sign in to record decisions.")
            return
        position = self.item.targets.currentRow()
        how = session.provenance(bulk=bulk, seconds=self.seconds_on_item())
        self._write(lambda repo: store_decisions(repo, session, made, signed_in, how), position)

    def undo(self) -> None:
        session, signed_in = self.session, self.signed_in
        if session is None or signed_in is None:
            return
        self._write(
            lambda repo: undo_last(repo, session, signed_in), self.item.targets.currentRow()
        )

    def _write(self, write: Callable[..., QaUpdate], position: int) -> None:
        self.busy = True
        self.db.call(write, lambda update: self._stored(update, position), self._write_failed)

    def _write_failed(self, exc: BaseException) -> None:
        self.busy = False
        self._waiting.clear()
        self.status.setText(f"The decision was not stored: {error_text(exc)}")

    def _stored(self, update: QaUpdate, position: int) -> None:
        self.busy = False
        session = self.session
        if session is None:
            return
        self.session = apply_update(session, update)
        self.reason.clear()
        self._fill_queue()
        self._update_progress()
        if update.withdrawn is not None:
            last = update.withdrawn
            self.status.setText(
                f"Undone: {row_words(self.session, last.target_id)} (recorded as a new decision)"
            )
            self.select_target(last.target_id)
        elif update.appended and all(d.target_kind.is_harm for d in update.appended):
            first = update.appended[0]
            self.status.setText(f"Marked unsafe ({first.new_value}): {first.target_id}")
            self._show_item(position)
        elif update.appended:
            first = update.appended[0]
            shown = "accepted" if first.action.value == "accept" else "answered"
            more = f" and {len(update.appended) - 1} more" if len(update.appended) > 1 else ""
            self.status.setText(f"Stored: {row_words(self.session, first.target_id)} {shown}{more}")
            self._advance(position)
            for decision in update.appended:
                self.decided.emit(decision.target_id)
        else:
            self.status.setText("Nothing to undo.")
        self.commands_changed.emit()
        waiting, self._waiting = self._waiting, []
        for command in waiting:
            self.run_command(command)

    def imported(self, result: QaImport) -> None:
        """After File → Import QA items: show the set."""
        note = "" if result.created else " (already imported)"
        self.status.setText(f"Imported {result.items} QA items as {result.set_id}{note}")
        self.open_run(result.set_id, None)


WORDS_LIMIT = 60


def row_words(session: QaSession, target_id: str) -> str:
    """A verdict as the reviewer reads it (the sentence, or the metric and the question),
    never its id (astrid/<item>/cf/sentence/3)."""
    row = session.rows_by_target().get(target_id)
    if row is None:
        return "the verdict"
    if row.sentence is not None:
        sentences = session.sentences.get(row.item_id, ())
        text = sentences[row.sentence].text if row.sentence < len(sentences) else ""
        if len(text) > WORDS_LIMIT:
            text = text[: WORDS_LIMIT - 1].rstrip() + "…"
        return f"sentence {row.sentence + 1} “{text}”" if text else f"sentence {row.sentence + 1}"
    item = next((i for i in session.items if i.item_id == row.item_id), None)
    question = item.question if item is not None else ""
    if len(question) > WORDS_LIMIT:
        question = question[: WORDS_LIMIT - 1].rstrip() + "…"
    metric = "context relevance" if row.kind.value == "astrid_cr" else "refusal"
    return f"{metric} of “{question}”" if question else metric
