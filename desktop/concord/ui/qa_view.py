"""ASTRID QA review: one item at a time — the question, the retrieved context with the
grounding of each answer sentence highlighted, the judge's verdicts — and the reviewer's
accept / override of each verdict.

Data comes from the database thread (`qa_loaders`): the view asks with `db.call` and lays
out what comes back; it never touches SQLite. The reviewer's queue is theirs: progress
counts their own decisions, and the page opens at the first item they have not finished,
so work resumes where it stopped after a restart.

Keys (window shortcuts, dispatched here by the main window while this page is shown):
A accept the selected verdict · 1/2/3 answer with the 1st/2nd/3rd value · O record the
value chosen in the box · ↑/↓ (or J/K) verdict · N/P item · R reason box · B blind mode.
In blind mode the judge's verdicts, its reasons and the file's labels are hidden until the
reviewer has answered. Every piece of QA text is shown as plain text.

"Judge this QA set" (Ctrl+J) runs the ASTRID judge over the set shown, with the model
chosen beside it, in the window's job runner (`workers.JobRunner`, its own thread and
Services); the page follows its progress and opens the new run when it is stored.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from concord.accounts.session import Session as SignedIn
from concord.astrid.items import QaItem
from concord.astrid.targets import KIND_VALUES, make_astrid_decision, parse_value
from concord.domain import Decision
from concord.errors import ConcordError
from concord.ui import theme
from concord.ui.job_panel import JobFollower, JobPanel
from concord.ui.messages import error_text, show_banner
from concord.ui.model_jobs import judge_qa_set
from concord.ui.qa_loaders import (
    QaChoice,
    QaImport,
    QaRow,
    QaSession,
    append_qa_decision,
    load_session,
    qa_choices,
)
from concord.ui.theme import plain_label
from concord.ui.workers import JobContext, JobProgress, JobRunner

VERDICT_TINTS = {
    "grounded": "#cdeecd",
    "ungrounded": "#f7c6c6",
    "conversational": "#e4e4e4",
    "failed": "#ffe0a0",
}
SELECTED_TINT = "#ffd36b"
CF_CHOICES = ("1.0", "0.5", "0.0")
ACCEPT_REASON = "accepted as shown"
BLIND_REASON = "blind answer"
KEY_HINT = (
    "Keys: ↑/↓ verdict · 1 / 2 / 3 answer with that value · A accept the judge · "
    "O record the value in the box · R type a reason (Enter returns) · "
    "N / P next / previous item · B blind mode"
)
CONTEXT_LEGEND = (
    "Highlights show where code finds each answer sentence in the context: "
    "green = judged grounded · red = judged NOT grounded · grey = "
    "conversational · amber = the judge gave no verdict · orange = the "
    "selected sentence"
)
ITEM_TITLES = {
    "astrid_cf": "CF — conversational faithfulness (computed from the sentences)",
    "astrid_cr": "CR — is the retrieved context relevant to the question?",
    "astrid_ra": "RA — does the answer refuse (decline to answer)?",
}


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _value_text(value: object) -> str:
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def file_labels_text(item: QaItem) -> str:
    labels = item.labels.present()
    if not labels:
        return "Labels in the file: none"
    words = {
        "cf": "CF",
        "cr": "context relevant",
        "ra": "answer refuses",
        "harmful": "harmful",
        "helpful": "helpful",
        "inappropriate": "inappropriate",
    }
    parts = []
    for key, value in labels.items():
        shown = ("yes" if value else "no") if isinstance(value, bool) else _value_text(value)
        parts.append(f"{words.get(key, key)}: {shown}")
    return "Labels in the file: " + " · ".join(parts)


class QaReviewView(QWidget):
    """Review queue over the verdicts of one ASTRID judge run."""

    decided = Signal(str)  # target id, after the decision was stored
    loaded = Signal()  # a session is shown
    blind_requested = Signal(bool)  # the page's blind box was clicked
    import_requested = Signal()

    def __init__(
        self, db: Any, user: str, jobs: JobRunner | None = None, parent: QWidget | None = None
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
        self._want: tuple[str | None, str | None] | None = None  # to open after a refresh
        self._select_after: str | None = None  # target to select once the session is shown
        self._build()

    # -- layout --------------------------------------------------------------------------

    def _build(self) -> None:
        self.run_box = QComboBox(objectName="qaRunBox")
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
        self.blind_box = QCheckBox("Blind mode (B)", objectName="qaBlind")
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
        self._judge_job.stopped.connect(lambda _set_id, text, level: self.show_banner(text, level))

        self.progress_label = plain_label("", bold=True, wrap=False)
        self.progress_label.setObjectName("qaProgressLabel")
        self.progress = QProgressBar(objectName="qaProgress")
        self.progress.setFormat("%v / %m items")
        self.progress.setFixedWidth(220)
        self.banner = plain_label()
        self.banner.setObjectName("qaBanner")
        self.banner.hide()
        prog = QHBoxLayout()
        prog.addWidget(self.progress_label, 1)
        prog.addWidget(self.progress)

        self.queue = QListWidget(objectName="qaQueue")
        self.queue.setToolTip(
            "Items of the set: ✓ = you decided every verdict, • = to do; in / out = scope"
        )
        self.queue.currentRowChanged.connect(self._item_chosen)
        queue_box = QWidget()
        ql = QVBoxLayout(queue_box)
        ql.setContentsMargins(0, 0, 0, 0)
        ql.addWidget(plain_label("Items (✓ done · • to do · scope)", bold=True))
        ql.addWidget(self.queue, 1)

        self.item_label = plain_label("", wrap=True)
        self.item_label.setObjectName("qaItemLabel")
        self.item_label.setStyleSheet("font-weight:bold; font-size:12pt")
        self.labels_label = plain_label()
        self.labels_label.setObjectName("qaFileLabels")
        self.labels_label.setStyleSheet(f"color:{theme.GREY}")
        self.question = QPlainTextEdit(readOnly=True, objectName="qaQuestion")
        self.question.setMaximumHeight(64)
        self.question.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.context = QPlainTextEdit(readOnly=True, objectName="qaContext")
        self.context.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.targets = QListWidget(objectName="qaTargets")
        self.targets.setWordWrap(True)
        self.targets.setSpacing(1)
        self.targets.currentRowChanged.connect(lambda _: self._target_chosen())
        self.reason_label = plain_label()
        self.reason_label.setObjectName("qaJudgeReason")

        self.value_box = QComboBox(objectName="qaValue")
        self.value_box.setMinimumWidth(150)
        self.reason = QLineEdit(objectName="qaReason")
        self.reason.setPlaceholderText(
            "Reason (kept for the next verdicts; required to override a visible verdict)"
        )
        self.reason.returnPressed.connect(self.targets.setFocus)
        self.accept_button = QPushButton("Accept judge (A)", objectName="qaAccept")
        self.accept_button.clicked.connect(self.accept_current)
        self.override_button = QPushButton("Record my value (O)", objectName="qaOverride")
        self.override_button.clicked.connect(self.override_current)
        self.status = plain_label()
        self.status.setObjectName("qaStatus")
        decide = QHBoxLayout()
        decide.addWidget(plain_label("Your value:", wrap=False))
        decide.addWidget(self.value_box)
        decide.addWidget(plain_label("Reason:", wrap=False))
        decide.addWidget(self.reason, 1)
        decide.addWidget(self.accept_button)
        decide.addWidget(self.override_button)

        context_box = QWidget()
        cl = QVBoxLayout(context_box)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.addWidget(plain_label("Retrieved context", bold=True))
        legend = plain_label(CONTEXT_LEGEND)
        legend.setStyleSheet("color:#333; font-size:9pt")
        cl.addWidget(legend)
        cl.addWidget(self.context, 1)
        targets_box = QWidget()
        tl = QVBoxLayout(targets_box)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(
            plain_label("Answer, sentence by sentence, and the item's verdicts", bold=True)
        )
        tl.addWidget(self.targets, 1)
        middle = QSplitter(Qt.Orientation.Horizontal)
        middle.addWidget(context_box)
        middle.addWidget(targets_box)
        middle.setStretchFactor(0, 1)
        middle.setStretchFactor(1, 1)
        middle.setChildrenCollapsible(False)

        centre = QWidget()
        column = QVBoxLayout(centre)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.item_label)
        column.addWidget(self.labels_label)
        column.addWidget(plain_label("Question", bold=True))
        column.addWidget(self.question)
        column.addWidget(middle, 1)
        column.addWidget(self.reason_label)
        column.addLayout(decide)
        hint = plain_label(KEY_HINT)
        hint.setStyleSheet("color:#333; font-size:9pt")
        column.addWidget(hint)
        column.addWidget(self.status)
        split = QSplitter()
        split.addWidget(queue_box)
        split.addWidget(centre)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 5)
        split.setSizes([220, 1200])
        split.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.judge)
        layout.addLayout(prog)
        layout.addWidget(self.banner)
        layout.addWidget(split, 1)
        self._show_nothing("Loading…")

    # -- loading (database thread) -------------------------------------------------------

    def refresh(self) -> None:
        """Read the sets and runs again; keep the open run when it is still there."""
        if self._want is None and self.session is not None:
            run = self.session.run
            self._want = (self.session.set_id, run.run_id if run else None)
        self.db.call(qa_choices, self._choices_loaded, self._load_failed)

    def open_run(
        self, set_id: str | None, run_id: str | None, target_id: str | None = None
    ) -> None:
        """Show a set (its newest run) or one run, optionally at one verdict."""
        self._want = (set_id, run_id)
        self._select_after = target_id
        self.db.call(qa_choices, self._choices_loaded, self._load_failed)

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
                "(resources/demo/qa_cataract_followup.jsonl is a demo set), "
                "then judge it with “Judge this QA set” (Ctrl+J)."
            )
            self._update_judge_button()
            return
        index = 0
        if self._want is not None:
            set_id, run_id = self._want
            same_run = [n for n, c in enumerate(choices) if run_id and c.run_id == run_id]
            same_set = [n for n, c in enumerate(choices) if c.set_id == set_id]
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
        self.db.call(
            lambda repo: load_session(repo, choice.set_id, choice.run_id, user),
            self._session_loaded,
            self._load_failed,
        )

    def _load_failed(self, exc: BaseException) -> None:
        self.show_banner(f"Could not read the QA data: {error_text(exc)}", "error")

    def _session_loaded(self, session: QaSession) -> None:
        self.session = session
        if session.run is None:
            self.show_banner(
                "This set has not been judged yet: its items are shown, but there are no "
                "verdicts to decide. Choose a judge model above and press “Judge this QA "
                f"set” (Ctrl+J), or run `concord astrid {session.set_id}`.",
                "warning",
            )
        elif not self.judging:
            self.show_banner("")
        self._update_judge_button()
        self.item_index = session.start_item
        self._fill_queue()
        self._update_progress()
        target = self._select_after
        self._select_after = None
        if target is None or not self._select_target(target):
            self._show_item(first_open=True)
        self.loaded.emit()

    # -- judging (job runner) ------------------------------------------------------------

    def _update_judge_button(self) -> None:
        self._judge_job.update_button()

    def judge_set(self, model: str | None = None) -> None:
        """Run the ASTRID judge over the set shown (Ctrl+J); the new run opens when done."""
        if self.session is None or not self._judge_job.can_start():
            return
        set_id, user = self.session.set_id, self.user
        chosen = self.judge.model_name() if model is None else model

        def job(ctx: JobContext) -> str:  # runs in the job runner's thread
            runtime = ctx.runtime(chosen or None, set_id)
            return judge_qa_set(
                ctx.services.repo,
                runtime,
                set_id,
                user,
                should_stop=ctx.should_stop,
                report=lambda done, total, message: ctx.progress(JobProgress(done, total, message)),
            )

        self.show_banner("")
        self._judge_job.start(set_id, job, f"Judging {self.session.set_name}: loading the model…")

    def cancel_judging(self) -> None:
        self._judge_job.cancel()

    @property
    def judging(self) -> bool:
        return self._judge_job.following

    def _judge_finished(self, set_id: str, run_id: object) -> None:
        self.judge.stopped(f"Judge run {run_id} stored: its verdicts are shown below.", ok=True)
        self.open_run(set_id, str(run_id))

    # -- showing -------------------------------------------------------------------------

    def show_banner(self, text: str, level: str = "info") -> None:
        show_banner(self.banner, text, level)

    def _show_nothing(self, note: str) -> None:
        self.queue.clear()
        self.targets.clear()
        self.question.setPlainText("")
        self.context.setPlainText("")
        self.item_label.setText("")
        self.labels_label.setText("")
        self.reason_label.setText("")
        self.progress_label.setText("")
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.show_banner(note, "info")
        self._enable_decisions(None)

    def set_blind(self, on: bool) -> None:
        if on == self.blind and self.blind_box.isChecked() == on:
            return
        self.blind = on
        self.blind_box.setChecked(on)
        if self.session is not None:
            self._fill_queue()
            self._show_item()

    def _fill_queue(self) -> None:
        session = self.session
        assert session is not None
        self.queue.blockSignals(True)
        self.queue.clear()
        for item in session.items:
            done = session.item_done(item.item_id)
            scope = f"  · {item.scope}" if item.scope else ""
            entry = QListWidgetItem(("✓ " if done else "• ") + item.item_id + scope)
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
        self.queue.setMinimumWidth(min(320, max(160, width)))

    def _update_progress(self) -> None:
        session = self.session
        assert session is not None
        judged = len(session.judged_items)
        self.progress.setRange(0, max(1, judged))
        self.progress.setValue(session.items_done)
        if session.run is None:
            self.progress_label.setText(f"{len(session.items)} items, not judged yet")
            return
        others = (
            f" · {session.others} decision(s) by other reviewers not counted"
            if session.others
            else ""
        )
        self.progress_label.setText(
            f"Your progress ({self.user}): {session.items_done} / {judged} items done · "
            f"{session.verdicts_done} / {session.verdicts_total} verdicts decided{others}"
        )

    def current_item(self) -> QaItem | None:
        if self.session is None or not self.session.items:
            return None
        return self.session.items[self.item_index]

    def item_rows(self) -> list[QaRow]:
        item = self.current_item()
        return [] if item is None or self.session is None else self.session.item_rows(item.item_id)

    def current_row(self) -> QaRow | None:
        rows = self.item_rows()
        index = self.targets.currentRow()
        return rows[index] if 0 <= index < len(rows) else None

    def hidden(self, row: QaRow) -> bool:
        """Is the judge's verdict on this row hidden (blind, not yet answered)?"""
        return self.blind and not row.decided

    def sentence_text(self, item: QaItem, index: int) -> str:
        assert self.session is not None
        return self.session.sentences[item.item_id][index].text

    def row_text(self, row: QaRow) -> str:
        item = self.current_item()
        target = row.target
        if target is None:
            judge = "not judged"
        elif self.hidden(row):
            judge = "judge: hidden (blind)"
        else:
            judge = f"judge: {_value_text(target.value)}"
        mine = "" if row.mine is None else f"  ·  you: {_value_text(row.mine.new_value)}"
        if row.sentence is not None and item is not None:
            text = self.sentence_text(item, row.sentence)
            return f"S{row.sentence + 1}   [{judge}{mine}]\n“{text}”"
        assert target is not None
        extra = ""
        if target.kind == "astrid_ra" and item is not None:
            extra = (
                f"\nscope: {item.scope or 'not given'} — refusing is right only for an "
                "out-of-scope question"
            )
        if target.kind == "astrid_cf" and not self.hidden(row):
            extra = (
                "\n" + target.label.split(": ", 1)[-1] + " = grounded / information-"
                "containing sentences"
            )
        return f"{ITEM_TITLES[target.kind]}   [{judge}{mine}]{extra}"

    def row_tint(self, row: QaRow) -> str | None:
        if row.target is None:
            return None
        if row.mine is not None:
            return VERDICT_TINTS.get(str(row.mine.new_value))
        if self.blind:
            return None
        return VERDICT_TINTS.get(str(row.target.value))

    def _show_item(self, first_open: bool = False) -> None:
        item = self.current_item()
        session = self.session
        if item is None or session is None:
            return
        self.queue.blockSignals(True)
        self.queue.setCurrentRow(self.item_index)
        self.queue.blockSignals(False)
        rows = self.item_rows()
        judged = [r for r in rows if r.target is not None]
        decided = sum(r.decided for r in judged)
        scope = {"in": "in scope", "out": "OUT OF SCOPE"}.get(
            str(item.scope or ""), "scope not given"
        )
        state = f"you decided {decided} of {len(judged)} verdicts" if judged else "not judged"
        self.item_label.setText(
            f"Item {self.item_index + 1} of {len(session.items)}: "
            f"{item.item_id} · {scope} · {state}"
        )
        self.labels_label.setText(
            "Labels in the file: hidden in blind mode" if self.blind else file_labels_text(item)
        )
        self.question.setPlainText(item.question)
        keep = self.targets.currentRow()
        self.targets.blockSignals(True)
        self.targets.clear()
        for row in rows:
            entry = QListWidgetItem(self.row_text(row))
            tint = self.row_tint(row)
            if tint:
                entry.setBackground(QColor(tint))
            self.targets.addItem(entry)
        self.targets.blockSignals(False)
        if first_open or keep < 0:
            open_rows = [n for n, r in enumerate(rows) if r.target is not None and not r.decided]
            keep = open_rows[0] if open_rows else 0
        self.targets.setCurrentRow(min(keep, len(rows) - 1))
        self._target_chosen()

    def _context_text(self, item: QaItem) -> tuple[str, list[int]]:
        """The chunks as one plain text, and where (in UTF-16 units) each chunk starts."""
        parts, offsets, at = [], [], 0
        for n, chunk in enumerate(item.context, start=1):
            head = f"[C{n}] "
            offsets.append(at + _utf16(head))
            parts.append(head + chunk)
            at += _utf16(head + chunk) + 2
        return "\n\n".join(parts), offsets

    def grounding_spans(self, item: QaItem) -> dict[int, Any]:
        assert self.session is not None
        return {
            s: span for (item_id, s), span in self.session.spans.items() if item_id == item.item_id
        }

    def _paint_context(self, item: QaItem, selected: int | None) -> None:
        text, offsets = self._context_text(item)
        self.context.setPlainText(text)
        rows = {r.sentence: r for r in self.item_rows() if r.sentence is not None}
        for sentence, span in self.grounding_spans(item).items():
            row = rows.get(sentence)
            tint = (
                SELECTED_TINT
                if sentence == selected
                else (self.row_tint(row) if row is not None else None)
            )
            if tint is None:
                continue
            chunk = item.context[span.chunk]
            cursor = QTextCursor(self.context.document())
            cursor.setPosition(offsets[span.chunk] + _utf16(chunk[: span.start]))
            cursor.setPosition(
                offsets[span.chunk] + _utf16(chunk[: span.end]), QTextCursor.MoveMode.KeepAnchor
            )
            fmt = QTextCharFormat()
            fmt.setBackground(QColor(tint))
            cursor.mergeCharFormat(fmt)
            if sentence == selected:
                view = self.context.textCursor()
                view.setPosition(cursor.selectionStart())
                self.context.setTextCursor(view)
                self.context.ensureCursorVisible()

    def _target_chosen(self) -> None:
        item, row = self.current_item(), self.current_row()
        if item is None:
            return
        self._paint_context(item, None if row is None else row.sentence)
        self.value_box.clear()
        self._enable_decisions(row)
        if row is None or row.target is None:
            self.reason_label.setText("")
            return
        values = KIND_VALUES.get(row.target.kind)
        self.value_box.setEditable(values is None)
        if values is None:  # CF: a number
            self.value_box.addItems(list(CF_CHOICES))
            self.value_box.setToolTip("CF between 0 and 1 (type another value if needed)")
        else:
            self.value_box.addItems(list(values))
            self.value_box.setToolTip("1 / 2 / 3 pick and record a value")
            others = [v for v in values if v != row.target.value]
            if row.mine is not None:
                self.value_box.setCurrentText(str(row.mine.new_value))
            elif others and not self.hidden(row):
                self.value_box.setCurrentText(others[0])
        if self.hidden(row):
            self.reason_label.setText(
                "Judge's verdict and reason: hidden until you answer (blind mode)"
            )
        else:
            reason = row.judge_reason or "(none given)"
            self.reason_label.setText(f"Judge's reason: {reason}")

    def _enable_decisions(self, row: QaRow | None) -> None:
        can = row is not None and row.target is not None
        self.value_box.setEnabled(can)
        self.reason.setEnabled(can)
        self.override_button.setEnabled(can)
        self.accept_button.setEnabled(
            can
            and row is not None
            and not self.hidden(row)
            and row.target is not None
            and row.target.value != "failed"
        )
        self.override_button.setText(
            "Record my answer (O)"
            if can and row is not None and self.hidden(row)
            else "Record my value (O)"
        )

    # -- navigation ----------------------------------------------------------------------

    def _item_chosen(self, index: int) -> None:
        if self.session is not None and 0 <= index < len(self.session.items):
            self.item_index = index
            self.targets.setCurrentRow(-1)
            self._show_item(first_open=True)

    def go_to_item(self, index: int) -> None:
        if self.session is not None and 0 <= index < len(self.session.items):
            self.item_index = index
            self._show_item(first_open=True)

    def next_item(self) -> None:
        self.go_to_item(self.item_index + 1)

    def previous_item(self) -> None:
        self.go_to_item(self.item_index - 1)

    def next_verdict(self) -> None:
        row = self.targets.currentRow()
        if row + 1 < self.targets.count():
            self.targets.setCurrentRow(row + 1)

    def previous_verdict(self) -> None:
        row = self.targets.currentRow()
        if row > 0:
            self.targets.setCurrentRow(row - 1)

    def focus_reason(self) -> None:
        self.reason.setFocus()
        self.reason.selectAll()

    def focus_queue(self) -> None:
        self.targets.setFocus()

    def _select_target(self, target_id: str) -> bool:
        session = self.session
        if session is None:
            return False
        for row in session.rows:
            if row.target is not None and row.target.id == target_id:
                self.item_index = next(
                    n for n, it in enumerate(session.items) if it.item_id == row.item_id
                )
                self._show_item()
                ids = [r.target.id if r.target else "" for r in self.item_rows()]
                self.targets.setCurrentRow(ids.index(target_id))
                return True
        return False

    def select_target(self, target_id: str) -> None:
        if not self._select_target(target_id):
            raise KeyError(target_id)

    # -- deciding ------------------------------------------------------------------------

    def accept_current(self) -> None:
        row = self.current_row()
        if row is None or row.target is None:
            return
        if self.hidden(row):
            self.status.setText("Blind mode: give your own answer first (1 / 2 / 3 or O).")
            return
        self._decide(None)

    def override_current(self) -> None:
        self._decide(self.value_box.currentText())

    def choose_value(self, number: int) -> None:
        """Keys 1/2/3: pick that value for the selected verdict and record it."""
        row = self.current_row()
        if row is None or row.target is None or not 1 <= number <= self.value_box.count():
            return
        self.value_box.setCurrentIndex(number - 1)
        self._decide(self.value_box.currentText())

    def _decide(self, value: str | None) -> None:
        row, session = self.current_row(), self.session
        if row is None or row.target is None or session is None or session.run is None:
            return
        target = row.target
        hidden = self.hidden(row)
        reason = self.reason.text().strip()
        if not reason:
            try:
                same = value is None or parse_value(target.kind, value) == target.value
            except ConcordError as exc:
                self.status.setText(error_text(exc))
                return
            if hidden:
                reason = BLIND_REASON
            elif same:
                reason = ACCEPT_REASON
        try:
            decision = make_astrid_decision(
                session.run,
                session.items,
                target.id,
                user=self.user,
                reason=reason,
                override=value,
                blind=hidden,
            )
        except ConcordError as exc:
            text = error_text(exc)
            if "reason" in text:
                text += " — press R and type why you override the judge"
            self.status.setText(text)
            return
        signed_in = self.signed_in
        if signed_in is None:
            self.status.setText("Sign in to record decisions.")
            return
        self.reason.clear()  # a reason belongs to one decision only
        self.db.call(
            lambda repo: append_qa_decision(repo, decision, signed_in),
            lambda result: self._stored(decision, result),
            lambda exc: self.status.setText(f"The decision was not stored: {error_text(exc)}"),
        )

    def _stored(self, decision: Decision, result: tuple[dict[str, Decision], int]) -> None:
        session = self.session
        if session is None or session.run is None or session.run.run_id != decision.case_id:
            return
        mine, session.others = result
        for row in session.rows:
            if row.target is not None:
                row.mine = mine.get(row.target.id)
        shown = "accepted" if decision.action.value == "accept" else "overridden"
        blind = " (blind answer)" if decision.blind else ""
        self.status.setText(
            f"Stored: {decision.target_id} {shown}{blind} → {_value_text(decision.new_value)}"
        )
        position = self.targets.currentRow()
        self._fill_queue()
        self._update_progress()
        self._show_item()
        rows = self.item_rows()
        following = [
            n
            for n in range(position + 1, len(rows))
            if rows[n].target is not None and not rows[n].decided
        ]
        earlier = [
            n for n in range(0, position) if rows[n].target is not None and not rows[n].decided
        ]
        if following or earlier:
            self.targets.setCurrentRow((following or earlier)[0])
        else:
            self.status.setText(
                self.status.text() + " — every verdict of this item is decided; N for the next item"
            )
        self.decided.emit(decision.target_id)

    def imported(self, result: QaImport) -> None:
        """After File → Import QA items: show the set."""
        note = "" if result.created else " (already imported)"
        self.status.setText(f"Imported {result.items} QA items as {result.set_id}{note}")
        self.open_run(result.set_id, None)
