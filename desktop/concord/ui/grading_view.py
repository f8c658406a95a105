"""EVAL grading: a clinician grades generated answers good or bad, one after another.

Data comes from the database thread (`workbench.grading`); each grade is a decision. The queue
is the grader's own: progress counts their grades and the page opens at the first answer
they have not graded, so work resumes where it stopped after a restart.

Keys (window shortcuts, dispatched here by the main window while this page is shown):
G good · X bad · N / P next / previous answer · L golden answers on/off · H mark the answer
unsafe (1 / 2 / 3 severity) · R reason box (Enter returns) · B blind mode, which hides the
reward model's prediction until the grader has graded the answer.

Every grade is stored with how it was given: blind or not, whether the golden answers were
on screen (they are hidden again whenever another answer comes up, so one L shows them for
one answer only), and the seconds the answer had been on screen.

"Generate answers" (Ctrl+G) makes K answers per question of the set shown, with the model,
temperature and context choice beside it, in the window's job runner (`workers.JobRunner`,
its own thread and Services); the page follows its progress and reloads the queue when
the answers are stored.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from concord.accounts.session import Session as SignedIn
from concord.eval.configs import DEFAULT_K
from concord.eval.grading import Grade
from concord.eval.grading_queue import QueueItem
from concord.eval.rows import EvalSet
from concord.ui import theme
from concord.ui.commands import Command
from concord.ui.db import DbThread
from concord.ui.job_panel import JobFollower, JobPanel
from concord.ui.label_dialogs import HarmDialog
from concord.ui.messages import error_text, show_banner
from concord.ui.theme import plain_label
from concord.ui.workers import JobRunner
from concord.workbench.grading import (
    GradingState,
    eval_sets,
    grade_answer,
    grading_state,
    mark_answer_harm,
)
from concord.workbench.imports import EvalImport
from concord.workbench.model_jobs import MAX_K, GenerationResult, generation_job

GRADE_COLOURS = {"good": (theme.GREEN, "#ffffff"), "bad": (theme.RED, "#ffffff")}
DEFAULT_TEMPERATURE = 0.2
KEY_HINT = (
    "Keys: G good · X bad · N / P next / previous answer · L golden answers (this answer "
    "only) · H mark unsafe · R type a reason (Enter returns) · B blind mode"
)


GRADING = frozenset(
    {
        Command.GOOD,
        Command.BAD,
        Command.NEXT,
        Command.PREVIOUS,
        Command.DOWN,
        Command.UP,
        Command.GOLDEN,
        Command.REASON,
        Command.HARM,
    }
)


def _text_box(name: str) -> QPlainTextEdit:
    box = QPlainTextEdit()
    box.setObjectName(name)
    box.setReadOnly(True)
    box.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
    return box


class GradingView(QWidget):
    """The answer grading page (EVAL)."""

    title = "Answer grading (EVAL)"
    tip = "Grade generated answers good or bad against expert golden answers (Alt+3)"
    commands_changed = Signal()
    graded = Signal(str)  # decision id, once stored
    loaded = Signal()
    blind_requested = Signal(bool)
    import_requested = Signal()

    def __init__(
        self,
        db: DbThread,
        user: str,
        jobs: JobRunner | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("gradingPage")
        self.db = db
        self.user = user
        self.signed_in: SignedIn | None = None  # set by the main window; grades as this user
        self.jobs = jobs  # generates answers; None: the page only grades
        self._keep_banner: tuple[str, str] | None = None  # shown again after the reload
        self.blind = False
        self.sets_data: list[EvalSet] = []
        self.state: GradingState | None = None
        self.position = 0
        self._want: str | None = None
        self._answer_after: str | None = None
        self.busy = False  # a grade is being stored
        self.dialog: HarmDialog | None = None
        self._timed: str | None = None  # the answer on screen, and since when (monotonic)
        self._shown_at = time.monotonic()
        self._loaded_once = False
        self._requests = 0  # only the latest read is shown

        self.sets = QComboBox()
        self.sets.setObjectName("gradingSets")
        self.sets.activated.connect(self._set_activated)
        refresh = QPushButton("Refresh")
        refresh.setToolTip("Read the question sets and answers again")
        refresh.clicked.connect(self.refresh)
        self.import_button = QPushButton("Import question set…")
        self.import_button.clicked.connect(self.import_requested.emit)
        self.blind_box = QCheckBox("Blind mode (B)")
        self.blind_box.setObjectName("gradingBlind")
        self.blind_box.setToolTip("Hide the reward model's prediction until you have graded")
        self.blind_box.clicked.connect(self.blind_requested.emit)
        top = QHBoxLayout()
        top.addWidget(plain_label("Question set:", bold=True, wrap=False))
        top.addWidget(self.sets, 1)
        top.addWidget(refresh)
        top.addWidget(self.import_button)
        top.addWidget(self.blind_box)
        self.generate = self._generation_panel()

        self.progress = plain_label("", bold=True, wrap=False)
        self.progress.setObjectName("gradingProgress")
        self.bar = QProgressBar()
        self.bar.setObjectName("gradingBar")
        self.bar.setFormat("%v / %m graded")
        self.bar.setFixedWidth(220)
        prog = QHBoxLayout()
        prog.addWidget(self.progress, 1)
        prog.addWidget(self.bar)
        self.banner = plain_label()
        self.banner.setObjectName("gradingBanner")
        self.banner.hide()

        self.meta = plain_label("", wrap=True)
        self.meta.setObjectName("gradingMeta")
        self.meta.setStyleSheet("font-weight:bold; font-size:12pt")
        self.question = plain_label()
        self.question.setObjectName("gradingQuestion")
        self.question.setStyleSheet(
            "font-size:11pt; padding:4px; background:#f4f6f8; "
            "border:1px solid #c8cdd3; border-radius:3px"
        )
        self.question.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.answer = _text_box("gradingAnswer")
        font = self.answer.font()
        font.setPointSizeF(max(font.pointSizeF(), 10.5))
        self.answer.setFont(font)
        self.golden_title = plain_label("", bold=True)
        self.golden = _text_box("gradingGolden")
        self.golden.setVisible(False)
        self.golden_note = plain_label("")
        self.golden_note.setStyleSheet(f"color:{theme.GREY}")
        self.prediction = plain_label()
        self.prediction.setObjectName("gradingPrediction")
        self.my_grade = plain_label("", bold=True, wrap=False)
        self.my_grade.setObjectName("gradingMine")
        self.reason = QLineEdit()
        self.reason.setObjectName("gradingReason")
        self.reason.setPlaceholderText("Reason (optional; kept for the next answers until cleared)")
        self.reason.returnPressed.connect(self.setFocus)
        self.status = plain_label()
        self.status.setObjectName("gradingStatus")

        self.buttons: dict[str, QPushButton] = {}
        buttons = QHBoxLayout()
        for key, text, slot in [
            ("good", "Good (G)", lambda: self.grade(Grade.GOOD)),
            ("bad", "Bad (X)", lambda: self.grade(Grade.BAD)),
            ("prev", "◀ Previous (P)", self.previous),
            ("next", "Next (N) ▶", self.next),
            ("golden", "Golden answers (L)", self.toggle_golden),
        ]:
            button = QPushButton(text)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.clicked.connect(slot)
            if key in GRADE_COLOURS:
                bg, fg = GRADE_COLOURS[key]
                button.setStyleSheet(
                    f"QPushButton {{ background:{bg}; color:{fg}; "
                    "font-weight:bold; padding:4px 14px }"
                    "QPushButton:disabled { background:#ccc; color:#666 }"
                )
            self.buttons[key] = button
            buttons.addWidget(button)
        buttons.addWidget(self.my_grade)
        buttons.addStretch(1)

        answer_box = QWidget()
        al = QVBoxLayout(answer_box)
        al.setContentsMargins(0, 0, 0, 0)
        al.addWidget(plain_label("Generated answer", bold=True))
        al.addWidget(self.answer, 1)
        golden_box = QWidget()
        gl = QVBoxLayout(golden_box)
        gl.setContentsMargins(0, 0, 0, 0)
        gl.addWidget(self.golden_title)
        gl.addWidget(self.golden, 1)
        gl.addWidget(self.golden_note)
        gl.addStretch(0)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(answer_box)
        split.addWidget(golden_box)
        split.setChildrenCollapsible(False)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.generate)
        layout.addLayout(prog)
        layout.addWidget(self.banner)
        layout.addWidget(self.meta)
        layout.addWidget(plain_label("Question", bold=True))
        layout.addWidget(self.question)
        layout.addWidget(split, 1)
        layout.addWidget(self.prediction)
        layout.addWidget(self.reason)
        layout.addLayout(buttons)
        hint = plain_label(KEY_HINT)
        hint.setStyleSheet("color:#333; font-size:9pt")
        layout.addWidget(hint)
        layout.addWidget(self.status)
        self._show_golden_state()
        self.show_current()

    # data ------------------------------------------------------------------------------

    # the page protocol ---------------------------------------------------------------

    def commands(self) -> frozenset[Command]:
        found = {Command.GENERATE, *GRADING}
        if self.generating:
            found.add(Command.CANCEL)
        return frozenset(found)

    def run_command(self, command: Command) -> None:
        actions: dict[Command, Callable[[], None]] = {
            Command.GOOD: lambda: self.grade(Grade.GOOD),
            Command.BAD: lambda: self.grade(Grade.BAD),
            Command.NEXT: self.next,
            Command.DOWN: self.next,
            Command.PREVIOUS: self.previous,
            Command.UP: self.previous,
            Command.GOLDEN: self.toggle_golden,
            Command.REASON: self.focus_reason,
            Command.HARM: self.mark_harm,
            Command.GENERATE: lambda: self.generate_answers(),
            Command.CANCEL: self.cancel_generation,
        }
        if self.dialog is not None and command in GRADING:
            return  # the harm dialog is open: the answer waits for it
        if command in actions:
            actions[command]()

    def page_shown(self) -> None:
        if not self._loaded_once:
            self.refresh()
        self.setFocus()

    def show_message(self, text: str, level: str = "info") -> None:
        show_banner(self.banner, text, level)

    # data ------------------------------------------------------------------------------

    def refresh(self) -> None:
        self._loaded_once = True
        if self._want is None and self.state is not None:
            self._want = self.state.set_id
        self._read_sets()

    def _read_sets(self) -> None:
        self._requests += 1
        request = self._requests
        self.db.call(
            eval_sets,
            lambda sets: self._sets_loaded(sets) if request == self._requests else None,
            self._failed("Could not read the sets"),
        )

    def open_answer(self, set_id: str, answer_id: str | None = None) -> None:
        self._loaded_once = True
        self._want = set_id
        self._answer_after = answer_id
        self._read_sets()

    def _failed(self, title: str) -> Callable[[BaseException], None]:
        def on_error(exc: BaseException) -> None:
            self.busy = False
            self.show_banner(f"{title}: {error_text(exc)}", "error")

        return on_error

    def _sets_loaded(self, sets: list[EvalSet]) -> None:
        self.sets_data = sets
        self.sets.clear()
        for s in sets:
            self.sets.addItem(f"{s.name}  ({s.set_id}, imported {s.imported_at[:10]})")
        if not sets:
            self.state = None
            self.show_banner(
                "No question set yet. Import one with File → Import question "
                "set… (resources/demo/eval_questions.jsonl is a demo set)."
            )
            self._update_generate_button()
            self.show_current()
            return
        ids = [s.set_id for s in sets]
        index = ids.index(self._want) if self._want in ids else 0
        self._want = None
        self.sets.setCurrentIndex(index)
        self._open(index)

    def _set_activated(self, index: int) -> None:
        self._answer_after = None
        self._open(index)

    def _open(self, index: int) -> None:
        if not 0 <= index < len(self.sets_data):
            return
        set_id, user = self.sets_data[index].set_id, self.user
        self._requests += 1
        request = self._requests
        self.db.call(
            lambda repo: grading_state(repo, set_id, user),
            lambda state: self._state_loaded(state) if request == self._requests else None,
            self._failed("Could not read the answers"),
        )

    def _state_loaded(self, state: GradingState) -> None:
        self.state = state
        self.position = state.position
        if self._answer_after is not None:
            for n, item in enumerate(state.items):
                if item.answer.answer_id == self._answer_after:
                    self.position = n
            self._answer_after = None
        if self._keep_banner is not None:  # a generation's failure stays in view
            self.show_banner(*self._keep_banner)
            self._keep_banner = None
        elif not state.items:
            self.show_banner(
                f"No generated answers in this set yet: the {len(state.questions)} questions "
                "and their golden answers are imported. Choose a model, temperature and K "
                "above and press “Generate answers” (Ctrl+G), or run "
                f"`concord eval generate {state.set_id} --temperature 0.2 --k 3`.",
                "warning",
            )
        elif not self.generating:
            self.show_banner("")
        self._update_generate_button()
        self.show_current()
        self.loaded.emit()

    # generating answers (job runner) --------------------------------------------------

    def _generation_panel(self) -> JobPanel:
        panel = JobPanel("Generate answers (Ctrl+G)", "generate")
        panel.start_button.setToolTip(
            "K answers per question of the set shown, from the "
            "chosen model (answers already stored are kept)"
        )
        self.temperature = QDoubleSpinBox()
        self.temperature.setObjectName("generateTemperature")
        self.temperature.setRange(0.0, 2.0)
        self.temperature.setSingleStep(0.1)
        self.temperature.setDecimals(2)
        self.temperature.setValue(DEFAULT_TEMPERATURE)
        self.temperature.setToolTip("Sampling temperature of this configuration")
        self.k_box = QSpinBox()
        self.k_box.setObjectName("generateK")
        self.k_box.setRange(1, MAX_K)
        self.k_box.setValue(DEFAULT_K)
        self.k_box.setToolTip("Answers per question")
        self.context_box = QCheckBox("Give the passage (RAG)")
        self.context_box.setObjectName("generateContext")
        self.context_box.setToolTip("Put each question's context passage in the prompt")
        panel.extra.addWidget(QLabel("T:"))
        panel.extra.addWidget(self.temperature)
        panel.extra.addWidget(QLabel("K:"))
        panel.extra.addWidget(self.k_box)
        panel.extra.addWidget(self.context_box)
        panel.start_requested.connect(self.generate_answers)
        panel.cancel_requested.connect(self.cancel_generation)
        self._generate_job = JobFollower(  # follows the generation for the set shown
            self.jobs,
            panel,
            lambda: self.state is not None,
            failed_text="Answer generation failed (answers made before the failure are kept)",
            cancelled_text="Answer generation cancelled; the answers made so far are kept.",
            parent=self,
        )
        self._generate_job.done.connect(self._generation_finished)
        self._generate_job.following_changed.connect(lambda _on: self.commands_changed.emit())
        self._generate_job.stopped.connect(self._generation_stopped)
        return panel

    def _update_generate_button(self) -> None:
        self._generate_job.update_button()

    def generate_answers(self, model: str | None = None) -> None:
        """Generate K answers per question of the set shown (Ctrl+G); the queue reloads
        when they are stored."""
        if self.state is None or not self._generate_job.can_start():
            return
        set_id, user = self.state.set_id, self.user
        chosen = self.generate.model_name() if model is None else model
        temperature, k = self.temperature.value(), self.k_box.value()
        use_context = self.context_box.isChecked()

        self.show_banner("")
        self._generate_job.start(
            set_id,
            generation_job(
                set_id, chosen or None, user, temperature=temperature, k=k, use_context=use_context
            ),
            f"Generating {k} answer(s) per question at T={temperature:g}: loading the model…",
        )

    def cancel_generation(self) -> None:
        self._generate_job.cancel()

    @property
    def generating(self) -> bool:
        return self._generate_job.following

    def _generation_finished(self, set_id: str, result: object) -> None:
        if not isinstance(result, GenerationResult):
            return
        self.generate.stopped(
            f"{result.label}: {result.generated} new answer(s), "
            f"{result.already_stored} already stored.",
            ok=True,
        )
        self.open_answer(set_id)

    def _generation_stopped(self, set_id: str, text: str, level: str) -> None:
        self.show_banner(text, level)
        self._keep_banner = (text, level)  # answers stored before the stop are kept:
        self.open_answer(set_id)  # show them

    # showing ---------------------------------------------------------------------------

    def show_banner(self, text: str, level: str = "info") -> None:
        self.show_message(text, level)

    def set_blind(self, on: bool) -> None:
        self.blind = on
        self.blind_box.setChecked(on)
        self.show_current()

    def current(self) -> QueueItem | None:
        state = self.state
        if state is None or not state.items:
            return None
        return state.items[min(self.position, len(state.items) - 1)]

    @property
    def total(self) -> int:
        return len(self.state.items) if self.state else 0

    @property
    def done(self) -> int:
        return self.state.done if self.state else 0

    def prediction_hidden(self, item: QueueItem) -> bool:
        return self.blind and item.my_grade is None

    def show_current(self) -> None:
        item = self.current()
        total, done = self.total, self.done
        self.bar.setRange(0, max(1, total))
        self.bar.setValue(done)
        self.bar.setFormat("%v / %m graded" if total else "nothing to grade")
        self.progress.setText(
            f"Your progress ({self.user}): {done} / {total} answers graded" if self.state else ""
        )
        for key in ("good", "bad", "prev", "next"):
            self.buttons[key].setEnabled(item is not None and not self.busy)
        if item is None:
            self.meta.setText("Nothing to grade" if self.state else "")
            self.question.setText("")
            self.answer.setPlainText("")
            self.prediction.setText("")
            self.my_grade.setText("")
            self._golden_for(None)
            return
        assert self.state is not None
        if item.answer.answer_id != self._timed:  # another answer: its time starts now, and
            self._timed, self._shown_at = item.answer.answer_id, time.monotonic()
            self.golden.setVisible(False)  # the golden answers are hidden again
            self._show_golden_state()
        config = self.state.configs.get(item.answer.config_hash, f"T={item.answer.temperature:g}")
        self.meta.setText(
            f"Answer {self.position + 1} of {total} · question "
            f"“{item.question.label}” · configuration {config} · sample "
            f"{item.answer.sample + 1} · {item.answer.answer_id}"
        )
        self.question.setText(item.question.text)
        self.answer.setPlainText(item.answer.text)
        self._golden_for(item)
        if item.prediction is None:
            self.prediction.setText("Reward model: no prediction for this answer")
            self.prediction.setStyleSheet("")
        elif self.prediction_hidden(item):
            self.prediction.setText("Reward model: prediction hidden until you grade (blind mode)")
            self.prediction.setStyleSheet(f"color:{theme.GREY}")
        else:
            p = item.prediction
            self.prediction.setText(
                f"Reward model {p.version} predicts: {p.grade} (score {p.score:.2f} of 1)"
            )
            self.prediction.setStyleSheet("font-weight:bold")
        harm = f" · ⚠ you marked it UNSAFE ({item.my_harm})" if item.my_harm else ""
        if item.my_grade is None:
            self.my_grade.setText(f"  Your grade: not graded yet{harm}")
            self.my_grade.setStyleSheet(f"color:{theme.GREY}")
        else:
            bg, fg = GRADE_COLOURS.get(item.my_grade, ("#ddd", "#000"))
            self.my_grade.setText(f"  Your grade: {item.my_grade.upper()}{harm}  ")
            self.my_grade.setStyleSheet(
                f"background:{bg}; color:{fg}; font-weight:bold; padding:3px 8px; border-radius:4px"
            )

    def _golden_for(self, item: QueueItem | None) -> None:
        golden = item.question.golden if item is not None else ()
        self.golden_title.setText(f"Golden answers from the experts ({len(golden)})")
        self.golden.setPlainText("\n\n".join(f"{g.expert or 'expert'}: {g.text}" for g in golden))
        self._show_golden_state()

    def _show_golden_state(self) -> None:
        shown = not self.golden.isHidden()
        self.golden_note.setText(
            "" if shown else "Hidden, so you grade on your own first — press L to show."
        )

    # actions ---------------------------------------------------------------------------

    def grade(self, grade: Grade) -> None:
        item = self.current()
        if item is None or self.state is None or self.busy:
            return
        set_id, user = self.state.set_id, self.user
        answer_id = item.answer.answer_id
        reason = self.reason.text().strip() or f"graded {grade.value} (no comment)"
        blind = self.prediction_hidden(item)
        golden_shown = not self.golden.isHidden()
        seconds = time.monotonic() - self._shown_at
        signed_in = self.signed_in
        if signed_in is None:
            self.status.setText("Sign in to grade answers.")
            return
        self.reason.clear()  # a reason belongs to one grade only
        self.busy = True
        self.show_current()
        self.db.call(
            lambda repo: grade_answer(
                repo,
                set_id,
                user,
                answer_id,
                grade.value,
                reason,
                blind=blind,
                session=signed_in,
                golden_shown=golden_shown,
                seconds=seconds,
            ),
            self._graded,
            self._failed("The grade was not stored"),
        )

    def _graded(self, state: GradingState) -> None:
        self.busy = False
        if self.state is not None and self.state.set_id != state.set_id:
            return
        self.state = state
        self.position = state.position
        decision = state.decision
        if decision is not None:
            grade = "withdrawn" if decision.new_value is None else decision.new_value
            self.status.setText(f"Stored: answer graded {grade}")
            self.graded.emit(decision.decision_id)
        if state.done == len(state.items):
            self.status.setText(self.status.text() + " — every answer of this set is graded")
        self.show_current()

    def next(self) -> None:
        if self.state and self.state.items:
            self.position = min(self.position + 1, len(self.state.items) - 1)
            self.show_current()

    def previous(self) -> None:
        self.position = max(self.position - 1, 0)
        self.show_current()

    def mark_harm(self) -> None:
        """H: mark the answer shown unsafe, with a severity."""
        item = self.current()
        if item is None or self.state is None or self.busy:
            return
        dialog = HarmDialog(f"“{item.answer.text[:300]}”", sentence=False, parent=self)
        dialog.chosen.connect(lambda severity, _whole: self._mark(item, severity))
        dialog.finished.connect(self._dialog_closed)
        self.dialog = dialog
        dialog.open()
        dialog.activateWindow()
        dialog.setFocus()

    def _dialog_closed(self, _result: int) -> None:
        self.dialog = None
        self.window().activateWindow()
        self.setFocus()

    def _mark(self, item: QueueItem, severity: object) -> None:
        state, signed_in = self.state, self.signed_in
        if state is None:
            return
        if signed_in is None:
            self.status.setText("Sign in to mark answers.")
            return
        set_id, user, answer_id = state.set_id, self.user, item.answer.answer_id
        reason, blind = self.reason.text().strip(), self.blind
        seconds = time.monotonic() - self._shown_at
        self.reason.clear()
        self.busy = True
        self.db.call(
            lambda repo: mark_answer_harm(
                repo,
                set_id,
                user,
                answer_id,
                str(severity),
                reason,
                blind=blind,
                session=signed_in,
                seconds=seconds,
            ),
            self._marked,
            self._failed("The harm label was not stored"),
        )

    def _marked(self, state: GradingState) -> None:
        self.busy = False
        self.state = state
        decision = state.decision
        if decision is not None:
            self.status.setText(f"Marked unsafe ({decision.new_value}): {decision.target_id}")
        self.show_current()

    def toggle_golden(self) -> None:
        self.golden.setVisible(self.golden.isHidden())
        self._show_golden_state()

    def focus_reason(self) -> None:
        self.reason.setFocus()
        self.reason.selectAll()

    def imported(self, result: EvalImport) -> None:
        note = "" if result.created else " (already imported)"
        self.status.setText(f"Imported {result.questions} questions as {result.set_id}{note}")
        self.open_answer(result.set_id)
