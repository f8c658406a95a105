"""The case page: header (patient, status, brief quality, review flag), a message banner,
run controls, the four views in tabs, and the decision bar at the bottom.

The record follows the judgement: whenever the current judgement changes, its evidence is
outlined in the record and scrolled to (without leaving the tab you are on); E jumps to
the record at that evidence, and E again comes back to where you were.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from concord.domain import Case, CaseStatus, GateHit, TargetRef
from concord.review import target_spans
from concord.ui import theme
from concord.ui.dashboard import Dashboard
from concord.ui.decisions_view import DecisionBar, DecisionsPanel
from concord.ui.messages import show_banner
from concord.ui.review_queue import ReviewQueue
from concord.ui.review_view import ReviewView
from concord.ui.run_view import RunPanel
from concord.ui.scorecard_view import ScorecardView
from concord.ui.theme import plain_label
from concord.workbench.case_bundle import CaseBundle, operation_text
from concord.workbench.case_queue import QueueEntry

TAB_DASHBOARD, TAB_REVIEW, TAB_SCORECARD, TAB_DECISIONS = range(4)
BADGE = "padding:4px 8px; border-radius:4px"


def _spans(case: Case, entry: QueueEntry) -> list[tuple[str, int, int]]:
    found = [s for t in entry.targets for s in target_spans(case, t)]
    return list(dict.fromkeys((s["source_id"], s["start"], s["end"]) for s in found))


class CaseView(QWidget):
    back_requested = Signal()
    sign_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bundle: CaseBundle | None = None
        self._evidence_return: tuple[int, QWidget | None] | None = None
        self.queue = ReviewQueue(self)
        self.back_button = QPushButton("◀ Worklist")
        self.back_button.setToolTip("Back to the worklist (Ctrl+L)")
        self.back_button.clicked.connect(self.back_requested.emit)
        self.title = plain_label(bold=True, style="font-size:14pt")
        self.title.setObjectName("caseTitle")
        self.meta = plain_label(style="color:#333")
        self.meta.setObjectName("caseMeta")
        self.status_badge = plain_label()
        self.status_badge.setObjectName("statusBadge")
        self.grade_badge = plain_label()
        self.grade_badge.setObjectName("gradeBadge")
        self.grade_badge.setToolTip(
            "How well the AI briefs agree with each other and the record (worst specialist "
            "grade). It grades the AI, not the patient's risk."
        )
        self.review_badge = plain_label()
        self.sign_button = QPushButton("Sign…")
        self.sign_button.setObjectName("signButton")
        self.sign_button.setEnabled(False)
        self.sign_button.setToolTip(
            "Sign the review record (enabled once the case is reviewed, and again when amended)"
        )
        self.sign_button.clicked.connect(self.sign_requested.emit)
        self.banner = plain_label()
        self.banner.setObjectName("messageBanner")
        self.banner.hide()
        self.banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        head = QHBoxLayout()
        head.addWidget(self.back_button)
        titles = QVBoxLayout()
        titles.addWidget(self.title)
        titles.addWidget(self.meta)
        head.addLayout(titles, 1)
        for w in (self.status_badge, self.grade_badge, self.review_badge):
            w.setWordWrap(False)
            head.addWidget(w, 0, Qt.AlignmentFlag.AlignVCenter)  # compact, not stretched
        head.addWidget(self.sign_button, 0, Qt.AlignmentFlag.AlignVCenter)

        self.run_panel = RunPanel()
        self.dashboard = Dashboard()
        self.review = ReviewView()
        self.scorecards = ScorecardView()
        self.decisions = DecisionsPanel(self.queue)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("caseTabs")
        self.tabs.addTab(self.dashboard, "Dashboard (Ctrl+1)")
        self.tabs.addTab(self.review, "Side-by-side review (Ctrl+2)")
        self.tabs.addTab(self.scorecards, "Scorecard (Ctrl+3)")
        self.tabs.addTab(self.decisions, "Decisions && queue (Ctrl+4)")
        self.bar = DecisionBar(self.queue)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 0)
        lay.addLayout(head)
        lay.addWidget(self.banner)
        lay.addWidget(self.run_panel)
        lay.addWidget(self.tabs, 1)
        lay.addWidget(self.bar)

        self.dashboard.disagreement_clicked.connect(self.go_to_disagreement)
        self.dashboard.gate_clicked.connect(self.show_gate)
        self.decisions.evidence_requested.connect(self.toggle_evidence)
        self.queue.current_changed.connect(self.follow)
        self.queue.blind_changed.connect(self._blind_changed)
        self.tabs.currentChanged.connect(self._tab_changed)

    # content -------------------------------------------------------------------------

    @property
    def case(self) -> Case | None:
        return self.bundle.case if self.bundle else None

    @property
    def record_id(self) -> str | None:
        return self.bundle.record.record_id if self.bundle else None

    @property
    def status(self) -> CaseStatus | None:
        return self.bundle.status if self.bundle else None

    def set_bundle(self, bundle: CaseBundle, user: str) -> None:
        self.bundle = bundle
        self._evidence_return = None
        case = bundle.case
        self.title.setText(bundle.name)
        self.title.setToolTip(f"Record “{bundle.record.name}”")
        if case is not None:
            self.meta.setText(
                f"Case {case.case_id} · record {bundle.record.record_id} · "
                f"model {case.model_name} · operation: {operation_text(case)} · "
                f"run {case.created_at:%Y-%m-%d %H:%M} UTC"
            )
        else:
            self.meta.setText(
                f"Record {bundle.record.record_id} · "
                f"{len(bundle.record.documents)} document(s) · not run yet"
            )
        self.set_status(bundle.status)
        self.dashboard.set_content(case, bundle.gates)
        self.review.set_content(bundle.record, case, bundle.gates)
        self.scorecards.set_case(case)
        self.queue.user = user
        self.queue.set_case(case, bundle.decisions)
        self.bar.setVisible(case is not None)
        self.show_message(bundle.note, level="warning" if bundle.note else "info")
        self._blind_changed(self.queue.blind)

    def set_status(self, status: CaseStatus, signed_by: str | None = None) -> None:
        if self.bundle is not None:
            self.bundle = replace(
                self.bundle, status=status, signed_by=signed_by or self.bundle.signed_by
            )
        colour = theme.STATUS_COLOURS.get(status.value, theme.STATUS_FALLBACK)
        self.status_badge.setText(f"Status: {status.value}")
        self.status_badge.setStyleSheet(
            f"color:white; background:{colour}; {BADGE}; font-weight:bold"
        )
        self.sign_button.setEnabled(status.signable)
        self._grade_badges()

    def _grade_badges(self) -> None:
        case = self.case
        if case is None or self.queue.blind:
            self.grade_badge.setText("Brief quality: hidden (blind)" if case else "Not run")
            self.grade_badge.setStyleSheet(f"background:#ddd; {BADGE}")
            self.review_badge.setText("")
            self.review_badge.hide()
            return
        lowered = any(s.cap_lowered for s in case.scorecards if s.grade == case.worst_grade)
        self.grade_badge.setText(
            f"AI brief quality: {theme.grade_label(case.worst_grade, lowered)}"
        )
        self.grade_badge.setStyleSheet(
            f"background:#f1f1f1; color:#222; border:1px solid #999; {BADGE}"
        )
        self.review_badge.show()
        signer = self.bundle.signed_by if self.bundle is not None else None
        status = self.status
        if status == CaseStatus.SIGNED and signer:
            self.review_badge.setText(f"✓ Human review done by {signer}")
            self.review_badge.setStyleSheet(
                f"background:{theme.GREEN}; color:white; {BADGE}; font-weight:bold"
            )
        elif status == CaseStatus.AMENDED and signer:
            self.review_badge.setText(f"Signed by {signer}, amended since: sign again")
            self.review_badge.setStyleSheet(
                f"background:{theme.AMBER}; color:black; {BADGE}; font-weight:bold"
            )
        elif case.human_review:
            self.review_badge.setText("⚠ HUMAN REVIEW NEEDED")
            self.review_badge.setStyleSheet(
                f"background:{theme.RED}; color:white; {BADGE}; font-weight:bold"
            )
        else:
            self.review_badge.setText("No review flag")
            self.review_badge.setStyleSheet(f"background:#e6e6e6; {BADGE}")

    def show_message(self, text: str, level: str = "error") -> None:
        """The in-window message line for errors and notes (never a crash, never hidden)."""
        show_banner(self.banner, text, level, bold=True)

    # the record follows the judgement ------------------------------------------------

    def follow(self, entry: QueueEntry | None) -> bool:
        """Outline the current judgement's evidence in the record and scroll to it (or, for
        an item match, select the two bullets). True when there was something to show."""
        case = self.case
        if entry is None or case is None:
            return False
        spans = _spans(case, entry)
        if spans:
            n = len(spans)
            return self.review.show_spans(
                spans,
                f"Current judgement: {n} span{'s' if n != 1 else ''} of evidence outlined in "
                "orange (E jumps there and back).",
            )
        self.review.show_spans([])
        ref = entry.target.ref
        if ref.match_items is not None:
            spec_item, anaes_item = ref.match_items
            self.review.select_bullet("anaesthetist", anaes_item)
            self.review.select_bullet(ref.subject, spec_item)
            return True
        if entry.is_quotes:
            note = "Current judgement: quotes not found in the record, so nothing to outline."
        else:
            note = "Current judgement: a score, with no span of its own in the record."
        self.review.cited_by_label.setText(note)
        return False

    def toggle_evidence(self) -> None:
        """E: to the record at the current judgement's evidence; E again: back."""
        if self._evidence_return is not None and self.tabs.currentIndex() == TAB_REVIEW:
            tab, widget = self._evidence_return
            self._evidence_return = None
            self.tabs.setCurrentIndex(tab)
            if widget is not None:
                widget.setFocus()
            return
        self._evidence_return = (self.tabs.currentIndex(), QApplication.focusWidget())
        self.tabs.setCurrentIndex(TAB_REVIEW)
        self.follow(self.queue.current)
        self.queue.saw_evidence()  # a major finding may now be accepted
        self.review.record_view.setFocus()

    # navigation ----------------------------------------------------------------------

    def go_to_disagreement(self, specialist: str, disagreement_id: str) -> None:
        target_id = TargetRef.disagreement(specialist, disagreement_id).format()
        if self.queue.go_to_target(target_id):
            self.tabs.setCurrentIndex(TAB_DECISIONS)

    def show_gate(self, gate: GateHit) -> None:
        self.queue.go_to_target(TargetRef.gate(gate.gate_id).format())
        if gate.evidence:
            span = gate.evidence[0]
            self.tabs.setCurrentIndex(TAB_REVIEW)
            self.review.show_span(span.source_id, span.start, span.end)

    def _tab_changed(self, index: int) -> None:
        """A tab hidden by blind mode is never shown, however it was asked for (a
        shortcut, opening a case, a link)."""
        if index >= 0 and not self.tabs.isTabEnabled(index):
            self.tabs.setCurrentIndex(TAB_DECISIONS)
            self.show_message(
                "That view shows the judge's verdicts and is hidden in blind "
                "mode (B leaves blind mode).",
                "info",
            )

    def _blind_changed(self, on: bool) -> None:
        """Blind mode hides every place that shows a verdict: the dashboard, the scorecard
        (tab and the strip beside the briefs), the grade and review badges, and the
        record-screen red-flag marks in the record."""
        has_case = self.case is not None
        self.tabs.setTabEnabled(TAB_DASHBOARD, has_case and not on or not has_case)
        self.tabs.setTabEnabled(TAB_SCORECARD, not on)
        blind_tip = "Hidden in blind mode (B leaves it)"
        self.tabs.setTabToolTip(TAB_DASHBOARD, blind_tip if on else "")
        self.tabs.setTabToolTip(TAB_SCORECARD, blind_tip if on else "")
        if on and self.tabs.currentIndex() in (TAB_DASHBOARD, TAB_SCORECARD):
            self.tabs.setCurrentIndex(TAB_DECISIONS)
        self.review.set_blind(on)
        self._grade_badges()
