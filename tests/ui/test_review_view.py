"""Side-by-side review: bullets select their evidence, evidence shows its bullets."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from concord.ui.case_view import TAB_REVIEW
from concord.workbench.marks import cited_marks


def _first_supported(case):
    brief = case.brief("anaesthetist")
    for item in brief.items:
        marks = [m for m in cited_marks(brief, item) if m.has_span and m.verified]
        if marks:
            return brief, item, marks[0]
    raise AssertionError("the scripted anaesthetist brief has no supported bullet")


def test_selecting_a_bullet_selects_its_span(case_window, stored_case):
    record, case = stored_case
    view = case_window.case_view
    view.tabs.setCurrentIndex(TAB_REVIEW)
    brief, item, mark = _first_supported(case)
    tree = view.review.anaesthetist_tree
    node = tree._items[item.item_id]
    rect = tree.visualItemRect(node)
    QTest.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert tree.currentItem() is node
    selected = view.review.record_view.textCursor().selectedText().replace("\u2029", "\n")
    expected = record.document(mark.source_id).text[mark.start : mark.end]
    assert selected == expected
    assert view.review.record_view.selected_source_span() == (mark.source_id, mark.start, mark.end)


def test_cursor_on_evidence_lists_citing_bullets(case_window, stored_case):
    record, case = stored_case
    view = case_window.case_view
    view.tabs.setCurrentIndex(TAB_REVIEW)
    brief, item, mark = _first_supported(case)
    rv = view.review.record_view
    cursor = rv.textCursor()
    cursor.setPosition(rv.position_of(mark.source_id, mark.start + 1))
    rv.setTextCursor(cursor)
    texts = view.review.cited_by_texts()
    assert any(item.item_id in t and "Anaesthetist" in t for t in texts)
    # clicking the entry goes to the bullet
    entry = next(
        view.review.cited_by.item(i)
        for i in range(view.review.cited_by.count())
        if item.item_id in view.review.cited_by.item(i).text()
    )
    view.review._go_to_citing(entry)
    assert (
        view.review.anaesthetist_tree.currentItem()
        is view.review.anaesthetist_tree._items[item.item_id]
    )


def test_unsupported_bullets_are_marked(case_window, stored_case):
    _, case = stored_case
    tree = case_window.case_view.review.anaesthetist_tree
    unsupported = case.brief("anaesthetist").unsupported_items()
    assert unsupported
    found = case.brief("anaesthetist").evidence_by_id()
    for item in unsupported:
        shown = tree._items[item.item_id].text(1)
        if any(c in found and found[c].alignment.verified for c in item.cites):
            # the quote is the record's text, but it does not carry the claim: amber
            assert "quote found — does not support this claim" in shown
            assert item.support_reason in tree._items[item.item_id].toolTip(1)
        else:
            assert "UNSUPPORTED" in shown


def test_patient_text_is_plain_text(make_window, qtbot, tmp_path):
    path = tmp_path / "html.txt"
    path.write_text(
        "Patient <b>not bold</b> &amp; <script>x</script>\nK+ 6.3 mmol/L\n", encoding="utf-8"
    )
    window = make_window()
    window.patients.import_files([path])
    qtbot.waitUntil(lambda: bool(window.worklist.model.rows), timeout=10_000)
    window.open_record(window.worklist.model.rows[0].record_id)
    qtbot.waitUntil(lambda: window.case_view.bundle is not None, timeout=10_000)
    text = window.case_view.review.record_view.toPlainText()
    assert "<b>not bold</b> &amp; <script>x</script>" in text
    assert window.case_view.title.textFormat() == Qt.TextFormat.PlainText
