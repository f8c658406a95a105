"""The case page follows the judgement: the record scrolls to and outlines the current
judgement's evidence, E jumps there and back, the scrollbar marks flags and evidence, red
flags are white on red. The queue groups a brief's failed quotes into one judgement,
lists required ones first with their count, and accepts the remaining optional ones in
one recorded bulk action."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QMessageBox

from concord.adjudication.targets import case_targets
from concord.domain import DisagreementKind, GateStatus, Severity
from concord.review import review_tally
from concord.store import Repository
from concord.ui import theme
from concord.ui.case_view import TAB_DECISIONS, TAB_REVIEW
from concord.workbench.case_queue import BULK_REASON, disagreement_of, entry_label
from tests.ui.helpers import decide_required, idle

CTRL = Qt.KeyboardModifier.ControlModifier
CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def _span_of(case, entry) -> tuple[str, int, int]:
    from concord.review import target_spans

    s = target_spans(case, entry.target)[0]
    return s["source_id"], s["start"], s["end"]


def test_record_scrolls_to_the_current_judgements_evidence(case_window, qtbot) -> None:
    view = case_window.case_view
    record = view.review.record_view
    qtbot.keyClick(case_window, Qt.Key.Key_2, CTRL)  # the record beside the briefs
    queue = view.queue
    case = view.case
    with_spans = [
        n
        for n, e in enumerate(queue.entries)
        if e.target.kind in ("gate", "disagreement") and _has_span(case, e)
    ]
    assert len(with_spans) >= 2
    for n in with_spans[-2:]:  # far down the queue: the record must move to each
        queue.go(n)
        source_id, start, end = _span_of(case, queue.current)
        assert (source_id, start, end) in record._current  # outlined (orange)
        assert record.selected_source_span() == (source_id, start, end)  # scrolled to
        QApplication.processEvents()
        assert record.viewport().rect().intersects(record.cursorRect())
        assert any(t.kind == "current" for t in record.ticks.ticks)
    score = next(n for n, e in enumerate(queue.entries) if e.target.kind == "overall")
    queue.go(score)
    assert record._current == []  # a score has no span of its own: nothing stale outlined
    assert not record.textCursor().hasSelection()  # nor left selected (drawn orange too)
    assert "no span of its own" in view.review.cited_by_label.text()


def _has_span(case, entry) -> bool:
    from concord.review import target_spans

    return bool(target_spans(case, entry.target))


def test_e_jumps_to_the_evidence_and_back(case_window, qtbot) -> None:
    view = case_window.case_view
    qtbot.keyClick(case_window, Qt.Key.Key_4, CTRL)
    assert view.tabs.currentIndex() == TAB_DECISIONS
    gate = next(n for n, e in enumerate(view.queue.entries) if e.target.kind == "gate")
    view.queue.go(gate)
    view.decisions.list.setFocus()
    assert "(E)" in view.decisions.show_button.text()
    qtbot.keyClick(case_window, Qt.Key.Key_E)
    record = view.review.record_view
    assert view.tabs.currentIndex() == TAB_REVIEW and record.hasFocus()
    assert record.selected_source_span() == _span_of(view.case, view.queue.current)
    qtbot.keyClick(case_window, Qt.Key.Key_E)
    assert view.tabs.currentIndex() == TAB_DECISIONS and view.decisions.list.hasFocus()


def test_red_flags_are_unmistakable_and_ticked_on_the_scrollbar(case_window) -> None:
    record = case_window.case_view.review.record_view
    style = record.gate_format(GateStatus.TRIGGERED)
    assert style.background().color() == QColor(theme.RED_FLAG_BACKGROUND)
    assert style.foreground().color() == QColor("#ffffff") and style.fontWeight() >= 700
    negated = record.gate_format(GateStatus.NEGATED)
    assert negated.fontStrikeOut() and negated.background().style() == Qt.BrushStyle.NoBrush
    fired = [g for g in record._gates if g.status == GateStatus.TRIGGERED]
    ticks = record.ticks.ticks
    flags = [t for t in ticks if t.kind == "flag"]
    assert fired and len(flags) == len(fired)
    assert all(t.colour == theme.RED and 0.0 <= t.fraction <= 1.0 for t in flags)
    assert any(t.kind == "evidence" for t in ticks)  # cited, verified evidence
    legend = case_window.case_view.review.legend.text()
    assert "WHITE ON RED" in legend and "scrollbar ticks" in legend
    moderate = record.gate_format(GateStatus.TRIGGERED, Severity.MODERATE)
    assert moderate.background().color() == QColor(theme.AMBER)  # distinct from major
    assert "amber = moderate red flag" in legend


def test_failed_quotes_are_one_judgement_per_brief(case_window, qtbot, stored_case) -> None:
    _, case = stored_case
    view = case_window.case_view
    queue = view.queue
    groups = [e for e in queue.entries if e.is_quotes]
    assert groups, "the scripted briefs carry paraphrased quotes that fail verification"
    assert len({g.agent for g in groups}) == len(groups)  # one per brief
    assert max(len(g.targets) for g in groups) >= 2
    for group in groups:
        assert not group.required
        kinds = {disagreement_of(case, t).kind for t in group.targets}
        assert kinds == {DisagreementKind.UNVERIFIED_EVIDENCE}
    # the anaesthetist's same unsupported claim, found against each specialist: one entry
    repeated = [e for e in queue.entries if e.is_group and not e.is_quotes]
    assert repeated
    for entry in repeated:
        found = [disagreement_of(case, t) for t in entry.targets]
        assert len({d.description for d in found}) == 1 and len(found) > 1
        assert len({t.ref.specialist for t in entry.targets}) == len(found)
        assert entry.key.startswith("same:")
        assert f"The same in {len(found)} comparisons" in entry_label(case, entry, visible=True)
    judgements = sum(len(e.targets) for e in queue.entries)
    assert judgements == len(case_targets(case)) > len(queue.entries)  # nothing lost
    required = [e.required for e in queue.entries]
    assert required == sorted(required, reverse=True)  # required ones first
    n_required = sum(required)
    summary = view.decisions.summary.text()
    assert f"Required before signing: 0 of {n_required} decided" in summary
    # deciding the group decides each of its quotes, together
    group = max(groups, key=lambda g: len(g.targets))
    queue.go(queue.entries.index(group))
    detail = view.decisions.detail.toPlainText()
    assert f"The {len(group.targets)} quotes" in detail  # the list inside the judgement
    assert detail.count("  • [to do]") == len(group.targets)
    qtbot.keyClick(case_window, Qt.Key.Key_A)
    idle(qtbot, case_window, lambda: queue.current is not None and queue.current.key != group.key)
    with Repository.open() as repo:
        stored = repo.decisions(case_id=case.case_id)
    assert {d.target_id for d in stored} == {t.id for t in group.targets}


def test_accept_the_remaining_optional_judgements_is_one_recorded_action(
    case_window, qtbot, stored_case
) -> None:
    _, case = stored_case
    view = case_window.case_view
    queue = view.queue
    decide_required(case_window, qtbot)
    entries = [e for e in queue.entries if not e.required]
    optional = [t.id for e in entries for t in e.targets]
    qtbot.keyClick(case_window, Qt.Key.Key_A, CTRL_SHIFT)
    box = case_window.findChild(QMessageBox, "acceptOptionalBox")
    # one count of judgements: the queue's entries, as the button, the PDF and the sign
    # dialog count them (a group of quotes is one judgement)
    assert box is not None and box.isVisible() and f"{len(entries)} optional" in box.text()
    assert f"{len(entries)} optional" in view.decisions.bulk_button.text()
    qtbot.keyClick(box, Qt.Key.Key_Return)
    idle(qtbot, case_window, lambda: all(e.decided for e in queue.entries))
    with Repository.open() as repo:
        stored = repo.decisions(case_id=case.case_id)
    bulk = [d for d in stored if d.reason == BULK_REASON.format(n=len(entries))]
    assert sorted(d.target_id for d in bulk) == sorted(optional)
    assert all(
        d.reason in ("accepted as shown", "discussed with the surgeon")
        for d in stored
        if d not in bulk
    )
    tally = review_tally(case, stored)
    assert tally.total == len(queue.entries) and tally.bulk_accepted == len(entries)


def test_no_bulk_accept_in_blind_mode(case_window, qtbot) -> None:
    view = case_window.case_view
    qtbot.keyClick(case_window, Qt.Key.Key_B)
    qtbot.keyClick(case_window, Qt.Key.Key_A, CTRL_SHIFT)
    assert case_window.findChild(QMessageBox, "acceptOptionalBox") is None
    assert "Blind mode" in view.banner.text() and not view.queue.decisions
    assert not view.decisions.bulk_button.isEnabled()
