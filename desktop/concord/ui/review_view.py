"""Side-by-side review: the record with highlighted evidence, the briefs beside it.

Selecting a bullet selects (and scrolls to) its first cited span and outlines all of
them; putting the cursor on highlighted text lists, below the record, the bullets that
cite it (click one to go to it) and makes them bold in the brief trees.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from concord.domain import Brief, BriefItem, Case, GateHit, Record
from concord.ui import theme
from concord.ui.brief_view import BriefTree
from concord.ui.record_view import RecordView
from concord.ui.scan_crop import ScanCropView
from concord.ui.scorecard_view import ScoreStrip
from concord.workbench.marks import (
    EvidenceMark,
    case_marks,
    cited_marks,
    citing_items,
    gate_marks,
)

RED_FLAG_LEGEND = " · WHITE ON RED = major red flag · black on amber = moderate red flag"
LEGEND = (
    "Highlight colour = agent · solid = the quote is the record's text · dashed underline = "
    "the record's text, formatting aside · red wavy underline = not the record's text (not "
    "evidence) · amber bullet = quote found, does not support the claim · struck-through = negated "
    "mention" + RED_FLAG_LEGEND + " · orange = evidence of the current judgement or bullet · "
    "scrollbar ticks: where flags (red) and cited evidence are"
)


def _plain_label(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    return label


class ReviewView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.case: Case | None = None
        self.gates: tuple[GateHit, ...] = ()
        self.blind = False
        self.record_view = RecordView()
        self.scan_crop = ScanCropView()  # the scan beside OCR'd evidence
        self.scores = ScoreStrip()
        self.scores.specialist_clicked.connect(self._specialist_clicked)
        self.legend = _plain_label(LEGEND)
        self.legend.setStyleSheet("color:#333; font-size:9pt")
        self.agent_key = _plain_label()
        self.cited_by_label = _plain_label("Cited by: put the cursor on highlighted text")
        self.cited_by = QListWidget()
        self.cited_by.setObjectName("citedBy")
        self.cited_by.setMaximumHeight(84)
        self.cited_by.hide()  # shown when the cursor is on evidence that bullets cite
        self.cited_by.itemActivated.connect(self._go_to_citing)
        self.cited_by.itemClicked.connect(self._go_to_citing)

        left = QWidget()
        lay = QVBoxLayout(left)
        lay.setContentsMargins(0, 0, 0, 0)
        title = _plain_label("Patient record")
        title.setStyleSheet("font-weight:bold; font-size:11pt")
        lay.addWidget(title)
        lay.addWidget(self.legend)
        lay.addWidget(self.agent_key)
        lay.addWidget(self.record_view, 1)
        lay.addWidget(self.scan_crop)
        lay.addWidget(self.cited_by_label)
        lay.addWidget(self.cited_by)

        self.anaesthetist_tree = BriefTree()
        self.anaesthetist_tree.setObjectName("brief:anaesthetist")
        self.specialist_tabs = QTabWidget()
        self.specialist_tabs.setObjectName("specialistTabs")
        self.trees: dict[str, BriefTree] = {}
        self.anaesthetist_title = _plain_label("Anaesthetist brief")
        self.anaesthetist_title.setStyleSheet("font-weight:bold; font-size:11pt")
        self.specialist_title = _plain_label("Specialist briefs")
        self.specialist_title.setStyleSheet("font-weight:bold; font-size:11pt")
        top = QWidget()
        tl = QVBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.anaesthetist_title)
        tl.addWidget(self.anaesthetist_tree)
        bottom = QWidget()
        bl = QVBoxLayout(bottom)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.addWidget(self.specialist_title)
        bl.addWidget(self.specialist_tabs)
        briefs = QSplitter(Qt.Orientation.Vertical)
        briefs.addWidget(top)
        briefs.addWidget(bottom)
        briefs.setSizes([500, 500])
        briefs.setChildrenCollapsible(False)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.scores)
        rl.addWidget(briefs, 1)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        split.setSizes([1100, 900])  # the record a little wider than the briefs
        split.setChildrenCollapsible(False)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        outer.addWidget(split)

        self._connect_tree(self.anaesthetist_tree)
        self.record_view.marks_at_cursor.connect(self._marks_at_cursor)

    def _connect_tree(self, tree: BriefTree) -> None:
        tree.bullet_selected.connect(self.show_bullet)
        tree.evidence_selected.connect(self.show_evidence)

    # content -------------------------------------------------------------------------

    def set_content(
        self, record: Record | None, case: Case | None, gates: tuple[GateHit, ...] = ()
    ) -> None:
        """Show a record, with a case's briefs (or, before a run, only screen gates)."""
        self.case = case
        self.gates = case.gates if case is not None else gates
        self.record_view.set_record(record)
        self.anaesthetist_tree.set_brief(None)
        self.specialist_tabs.clear()
        self.trees = {}
        self.cited_by.clear()
        self.cited_by.hide()
        self.scores.set_case(case, self.blind)
        self._paint_marks()
        if case is None:
            self.anaesthetist_title.setText(
                "Anaesthetist brief — not run yet (Ctrl+R runs the agent panel)"
            )
            self.specialist_title.setText("Specialist briefs — not run yet")
            self.agent_key.setText("")
            return
        agents = [b.agent for b in case.briefs]
        self._agent_key_style(agents)
        for brief in case.briefs:
            if brief.agent == "anaesthetist":
                self.anaesthetist_tree.set_brief(brief)
                self.trees[brief.agent] = self.anaesthetist_tree
                self.anaesthetist_title.setText(self._brief_title(brief))
                continue
            tree = BriefTree()
            tree.setObjectName(f"brief:{brief.agent}")
            tree.set_brief(brief)
            self._connect_tree(tree)
            self.trees[brief.agent] = tree
            self.specialist_tabs.addTab(tree, self._brief_title(brief, short=True))
        n = self.specialist_tabs.count()
        self.specialist_title.setText(
            f"Specialist briefs ({n})" if n else "Specialist briefs — none consulted"
        )

    def _paint_marks(self) -> None:
        """Evidence always; record-screen gate marks only when not blind (whether a gate
        fired is a verdict the reviewer answers in blind mode)."""
        evidence = case_marks(self.case) if self.case is not None else []
        self.record_view.set_marks(evidence, [] if self.blind else gate_marks(self.gates))

    def set_blind(self, on: bool) -> None:
        self.blind = on
        self._paint_marks()
        self.scores.set_case(self.case, on)
        self.legend.setText(
            LEGEND
            if not on
            else LEGEND.replace(RED_FLAG_LEGEND, " · red flags hidden (blind mode)")
        )

    def _specialist_clicked(self, specialist: str) -> None:
        tree = self.trees.get(specialist)
        if tree is not None:
            self.specialist_tabs.setCurrentWidget(tree)

    def _agent_key_style(self, agents: list[str]) -> None:
        # colour key as a row of swatches: plain-text label per agent, background = tint
        swatches = " ".join(
            f"<span style='background:{theme.AGENT_TINTS.get(a, theme.FALLBACK_TINT)};"
            f"padding:2px'>&nbsp;{html.escape(theme.agent_title(a))}&nbsp;</span>"
            for a in agents
        )
        self.agent_key.setTextFormat(Qt.TextFormat.RichText)
        self.agent_key.setText("Highlight colours: " + swatches)

    @staticmethod
    def _brief_title(brief: Brief, short: bool = False) -> str:
        unsupported = len(brief.unsupported_items())  # its evidence does not carry it
        failed = sum(1 for e in brief.evidence if not e.alignment.verified)
        name = theme.agent_title(brief.agent)
        bits = []
        if brief.status.value == "failed":
            bits.append("FAILED")
        if unsupported:
            bits.append(f"{unsupported} unsupported")
        if failed:
            bits.append(f"{failed} unverified extract{'s' if failed != 1 else ''}")
        if short:
            return name + (f" ⚠{unsupported}" if unsupported else "")
        suffix = (" — " + ", ".join(bits)) if bits else ""
        n = len(brief.items)
        return f"{name} brief ({n} bullet{'s' if n != 1 else ''}){suffix}"

    # navigation ----------------------------------------------------------------------

    def select_bullet(self, agent: str, item_id: str) -> bool:
        tree = self.trees.get(agent)
        if tree is None:
            return False
        if tree is not self.anaesthetist_tree:
            self.specialist_tabs.setCurrentWidget(tree)
        return tree.select_item(item_id)

    def show_bullet(self, brief: Brief, item: BriefItem) -> None:
        marks = [m for m in cited_marks(brief, item) if m.has_span]
        spans = [(m.source_id, m.start, m.end) for m in marks]
        self.record_view.show_current(spans)  # type: ignore[arg-type]
        if marks:
            first = marks[0]
            assert first.source_id and first.start is not None and first.end is not None
            self.record_view.select_span(first.source_id, first.start, first.end)
            self._crop(first.source_id, first.start, first.end)
            self.cited_by_label.setText(
                f"Selected: {theme.agent_title(brief.agent)} {item.item_id} — "
                f"{len(marks)} cited span(s) outlined in orange"
            )
        else:
            self.cited_by_label.setText(
                f"Selected: {theme.agent_title(brief.agent)} {item.item_id} — UNSUPPORTED: "
                "it cites no evidence found in the record"
            )
        if marks and item.supported is False:
            self.cited_by_label.setText(
                f"Selected: {theme.agent_title(brief.agent)} {item.item_id} — quote found, "
                f"does not support this claim: {item.support_reason}"
            )

    def show_evidence(self, mark: EvidenceMark) -> None:
        if mark.has_span:
            assert mark.source_id and mark.start is not None and mark.end is not None
            self.record_view.show_current([(mark.source_id, mark.start, mark.end)])
            self.record_view.select_span(mark.source_id, mark.start, mark.end)
            self._crop(mark.source_id, mark.start, mark.end)
            if mark.changes:
                self.cited_by_label.setText(
                    f"{mark.evidence_id} of {theme.agent_title(mark.agent)}: NOT VERIFIED — the "
                    "closest record text is outlined; record vs quote: "
                    + mark.diff_text.replace("\n", "; ")
                )
        else:
            self.cited_by_label.setText(
                f"{mark.evidence_id} of {theme.agent_title(mark.agent)}: FAILED — this "
                "extract was not found in the record"
            )

    def show_span(self, source_id: str, start: int, end: int) -> None:
        self.show_spans([(source_id, start, end)])

    def show_spans(self, spans: list[tuple[str, int, int]], note: str = "") -> bool:
        """Outline `spans` in orange and scroll to the first (and, for a scanned page, show
        where it is on the page); False when none is in the record. `note` goes in the line
        under the record."""
        self.record_view.show_current(spans)
        shown = next((s for s in spans if self.record_view.select_span(*s)), None)
        if shown is not None:
            self._crop(*shown)
        else:
            self.record_view.clear_selection()  # nothing of an earlier judgement stays lit
        if note:
            self.cited_by_label.setText(note)
        return shown is not None

    def _crop(self, source_id: str, start: int, end: int) -> None:
        self.scan_crop.show_span(self.record_view.record, source_id, start, end)

    def _marks_at_cursor(self, marks: list[EvidenceMark]) -> None:
        spanned = [m for m in marks if m.has_span]
        if spanned:
            first = spanned[0]
            assert first.source_id and first.start is not None and first.end is not None
            self._crop(first.source_id, first.start, first.end)
        self.cited_by.clear()
        self.cited_by.setVisible(bool(marks))
        keys = {m.key for m in marks}
        citing = citing_items(self.case, keys) if self.case else []
        by_agent: dict[str, set[str]] = {}
        for brief, item in citing:
            by_agent.setdefault(brief.agent, set()).add(item.item_id)
            entry = QListWidgetItem(
                f"{theme.agent_title(brief.agent)} · {item.item_id}: {item.text}"
            )
            entry.setData(Qt.ItemDataRole.UserRole, (brief.agent, item.item_id))
            self.cited_by.addItem(entry)
        for agent, tree in self.trees.items():
            tree.mark_citing(by_agent.get(agent, set()))
        if marks and not citing:
            self.cited_by_label.setText("Cited by: no bullet (extract in an evidence pack only)")
        elif citing:
            self.cited_by_label.setText(f"Cited by {len(citing)} bullet(s) — click to go there:")
        else:
            self.cited_by_label.setText("Cited by: put the cursor on highlighted text")

    def _go_to_citing(self, entry: QListWidgetItem) -> None:
        agent, item_id = entry.data(Qt.ItemDataRole.UserRole)
        self.select_bullet(agent, item_id)

    def cited_by_texts(self) -> list[str]:
        return [self.cited_by.item(i).text() for i in range(self.cited_by.count())]
