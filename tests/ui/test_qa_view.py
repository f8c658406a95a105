"""The ASTRID QA review page, driven through the main window: verdicts and grounding,
accept / override by key, blind mode, the queue, resume after a restart, plain text."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from tests.astrid.conftest import DEMO, rule_judge
from tests.ui.conftest import USER, idle

from concord.astrid.llm_judge import judge_items
from concord.astrid.load import load_items
from concord.astrid.store import AstridStore
from concord.llm.scripted import ScriptedRuntime
from concord.store import Repository
from concord.ui.main_window import PAGE_QA
from concord.ui.qa_view import SELECTED_TINT, VERDICT_TINTS

N_ITEMS = 4


def judged_set(repo: Repository, items=None) -> str:
    """Store a QA set and a scripted judge run over it; return the run id."""
    items = items if items is not None else load_items(DEMO)[:N_ITEMS]
    store = AstridStore(repo)
    set_id, _ = store.save_set(items, name="demo", source="demo", user="t")
    run = list(judge_items(ScriptedRuntime(rule_judge()), items, set_id))[-1].run
    store.save_run(run, "t")
    return run.run_id


def open_qa(qtbot, window):
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.AltModifier)
    view = window.qa_view
    idle(qtbot, window, lambda: view.session is not None)
    assert window.pages.currentIndex() == PAGE_QA
    return view


@pytest.fixture
def run_id(repo: Repository) -> str:
    return judged_set(repo)


@pytest.fixture
def qa(make_window, run_id, qtbot):
    window = make_window()
    return window, open_qa(qtbot, window)


def texts(view) -> list[str]:
    return [view.targets.item(n).text() for n in range(view.targets.count())]


def painted(view) -> set[str]:
    """Background colours used in the context text."""
    colours = set()
    block = view.context.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            brush = it.fragment().charFormat().background()
            if brush.style() != Qt.BrushStyle.NoBrush:
                colours.add(brush.color().name())
            it += 1
        block = block.next()
    return colours


def test_shows_item_verdicts_and_grounding(qa) -> None:
    _, view = qa
    assert view.session.run is not None and view.queue.count() == N_ITEMS
    assert view.question.toPlainText() == view.session.items[0].question
    rows = texts(view)
    assert rows[0].startswith("S1   [judge: conversational]")
    assert any(
        t.startswith("CR — is the retrieved context relevant") and "relevant]" in t for t in rows
    )
    assert "[C1]" in view.context.toPlainText()
    assert VERDICT_TINTS["grounded"] in painted(view)  # not blind: verdict colours shown
    spans = view.grounding_spans(view.session.items[0])
    assert 1 in spans  # "Use the drops four times a day ..." is found in the context
    assert "Labels in the file: CF: 1.00" in view.labels_label.text()
    assert view.progress_label.text().startswith(f"Your progress ({USER}): 0 / {N_ITEMS} items")


def test_accept_and_override_by_keyboard(qa, qtbot, repo) -> None:
    window, view = qa
    view.targets.setCurrentRow(1)
    qtbot.keyClick(window, Qt.Key.Key_A)
    idle(qtbot, window, lambda: len(repo.decisions()) == 1)
    decision = repo.decisions(case_id=view.session.run.run_id)[0]
    assert decision.action == "accept" and decision.target_id.endswith("/cf/sentence/2")
    assert decision.user == USER and decision.reason == "accepted as shown"
    assert view.targets.currentRow() == 2  # moved on to the next undecided verdict
    # an override of a visible verdict needs a reason: R focuses the box, Enter returns
    qtbot.keyClick(window, Qt.Key.Key_3)  # "ungrounded", unlike the judge
    assert "reason" in view.status.text() and len(repo.decisions()) == 1
    qtbot.keyClick(window, Qt.Key.Key_R)
    assert view.reason.hasFocus()
    qtbot.keyClicks(view.reason, "not in the leaflet")
    qtbot.keyClick(view.reason, Qt.Key.Key_Return)
    assert not view.reason.hasFocus()
    qtbot.keyClick(window, Qt.Key.Key_3)
    idle(qtbot, window, lambda: len(repo.decisions()) == 2)
    last = repo.decisions()[-1]
    assert last.action == "override" and last.new_value == "ungrounded"
    assert last.reason == "not in the leaflet"
    assert view.progress.value() == 0  # no item finished yet
    assert "you: ungrounded" in texts(view)[2]
    # the reason went with that decision only: the next accept does not carry it
    assert view.reason.text() == ""
    qtbot.keyClick(window, Qt.Key.Key_A)
    idle(qtbot, window, lambda: len(repo.decisions()) == 3)
    assert repo.decisions()[-1].reason == "accepted as shown"


def test_blind_mode_hides_verdicts_reasons_and_labels_until_answered(qa, qtbot, repo) -> None:
    window, view = qa
    qtbot.keyClick(window, Qt.Key.Key_B)
    assert view.blind and window.blind and window.blind_label.isVisible()
    assert all("hidden (blind)" in t for t in texts(view) if t.startswith("S"))
    assert all("judge: hidden" in t for t in texts(view))
    assert "hidden" in view.labels_label.text() and "CF: 1.00" not in view.labels_label.text()
    assert "hidden" in view.reason_label.text()
    assert not view.accept_button.isEnabled()
    # no verdict colour leaks: neither on the rows nor in the context
    assert all(
        view.targets.item(n).background().style() == Qt.BrushStyle.NoBrush
        for n in range(view.targets.count())
    )
    view.targets.setCurrentRow(0)  # S1 has no span: nothing may be painted in the context
    assert painted(view) == set()
    view.targets.setCurrentRow(1)  # S2 has a span: only the "selected" tint, no verdict
    assert painted(view) == {SELECTED_TINT}
    view.targets.setCurrentRow(0)
    qtbot.keyClick(window, Qt.Key.Key_A)  # accepting an unseen verdict is refused
    assert not repo.decisions() and "Blind mode" in view.status.text()
    qtbot.keyClick(window, Qt.Key.Key_1)  # answer "conversational", as the judge did
    idle(qtbot, window, lambda: len(repo.decisions()) == 1)
    decision = repo.decisions()[-1]
    assert decision.blind and decision.action == "accept" and decision.reason == "blind answer"
    first = texts(view)[0]
    assert "you: conversational" in first and "judge: conversational" in first


def test_blind_mode_ignores_other_reviewers(make_window, run_id, qtbot, repo) -> None:
    other = make_window(user="someone.else")
    view = open_qa(qtbot, other)
    qtbot.keyClick(other, Qt.Key.Key_A)
    idle(qtbot, other, lambda: len(repo.decisions()) == 1)
    other.close()
    window = make_window()
    view = open_qa(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_B)
    assert "hidden (blind)" in texts(view)[0]  # another's decision reveals nothing
    assert "1 decision(s) by other reviewers" in view.progress_label.text()


def test_queue_next_previous_and_verdict_keys(qa, qtbot) -> None:
    window, view = qa
    qtbot.keyClick(window, Qt.Key.Key_N)
    assert view.item_index == 1 and view.question.toPlainText() == view.session.items[1].question
    qtbot.keyClick(window, Qt.Key.Key_J)
    assert view.targets.currentRow() == 1
    qtbot.keyClick(window, Qt.Key.Key_K)
    assert view.targets.currentRow() == 0
    for _ in range(N_ITEMS + 2):
        qtbot.keyClick(window, Qt.Key.Key_N)
    assert view.item_index == N_ITEMS - 1
    qtbot.keyClick(window, Qt.Key.Key_P)
    assert view.item_index == N_ITEMS - 2


def test_queue_resumes_where_the_reviewer_stopped(make_window, run_id, qtbot, repo) -> None:
    window = make_window()
    view = open_qa(qtbot, window)
    for item in range(2):  # decide every verdict of the first two items, by keyboard
        assert view.item_index == item
        n = len(view.item_rows())
        for _ in range(n):
            before = len(repo.decisions())
            qtbot.keyClick(window, Qt.Key.Key_A)
            idle(qtbot, window, lambda b=before: len(repo.decisions()) == b + 1)
        assert view.session.item_done(view.session.items[item].item_id)
        qtbot.keyClick(window, Qt.Key.Key_N)
    assert view.progress.value() == 2
    window.close()
    again = make_window()
    view = open_qa(qtbot, again)
    assert view.item_index == 2  # the third item
    assert view.progress.value() == 2 and view.progress.maximum() == N_ITEMS
    assert f"2 / {N_ITEMS} items done" in view.progress_label.text()
    assert view.queue.item(0).text().startswith("✓") and view.queue.item(2).text().startswith("•")


def test_qa_text_is_plain(make_window, qtbot, repo) -> None:
    from concord.astrid.items import QaItem

    item = QaItem(
        item_id="x",
        question="<b>bold?</b>",
        context=("<i>c</i> text here",),
        answer="<script>x</script> Fine.",
    )
    judged_set(repo, [item])
    window = make_window()
    view = open_qa(qtbot, window)
    assert view.question.toPlainText() == "<b>bold?</b>"
    assert "<i>c</i>" in view.context.toPlainText()
    assert "<script>x</script>" in texts(view)[0]
