"""The ASTRID QA review page, driven through the main window by keyboard: option keys shown
on the options, accept, accept the rest of an item with one key, auto-advance, CF derived
from the sentence verdicts, skip, undo as a new decision, blind mode, blind labelling with
no judge run, resume after a restart, plain text."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from concord.astrid.llm_judge import judge_items
from concord.astrid.load import load_items
from concord.astrid.store import AstridStore
from concord.astrid.targets import resolve_labels
from concord.domain.decision_history import standing_decisions
from concord.llm.scripted import ScriptedRuntime
from concord.store import Repository
from concord.ui.main_window import PAGE_QA
from concord.ui.qa_item_view import SELECTED_TINT, VERDICT_TINTS
from concord.workbench.qa_session import CF_REASON, UNDO_REASON
from tests.astrid.helpers import DEMO, rule_judge
from tests.ui.helpers import USER, idle

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


def press(qtbot, window, key, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    qtbot.keyClick(window, key, modifier)
    idle(qtbot, window, lambda: not window.qa_view.busy)


@pytest.fixture
def run_id(repo: Repository) -> str:
    return judged_set(repo)


@pytest.fixture
def qa(make_window, run_id, qtbot):
    window = make_window()
    return window, open_qa(qtbot, window)


def texts(view) -> list[str]:
    targets = view.item.targets
    return [targets.item(n).text() for n in range(targets.count())]


def buttons(view) -> list[str]:
    return [b.text() for b in view.item.option_buttons if b.isVisibleTo(view)]


def painted(view) -> set[str]:
    """Background colours used in the context text."""
    colours = set()
    block = view.item.context.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            brush = it.fragment().charFormat().background()
            if brush.style() != Qt.BrushStyle.NoBrush:
                colours.add(brush.color().name())
            it += 1
        block = block.next()
    return colours


def mine(repo: Repository) -> list:
    return [d for d in standing_decisions(repo.decisions()) if d.user == USER]


def test_shows_verdicts_options_with_their_keys_and_a_legend(qa) -> None:
    _, view = qa
    assert view.session.run is not None and view.queue.count() == N_ITEMS
    assert view.item.question.toPlainText() == view.session.items[0].question
    rows = texts(view)
    assert rows[0].startswith("S1   [judge: conversational · you: —]")
    assert any(t.startswith("CR — is the retrieved context relevant") for t in rows)
    assert not any(t.startswith("CF") for t in rows)  # CF is derived, never asked
    assert "from your sentence verdicts" in view.item.cf_label.text()
    # the option keys are printed on the options, the judge's choice marked
    assert buttons(view) == ["1  conversational   (◆ judge)", "2  grounded", "3  ungrounded"]
    legend = view.item.legend.text()
    assert "1 / 2 / 3" in legend and "Enter accept the rest" in legend and "undo" in legend
    assert VERDICT_TINTS["grounded"] in painted(view)  # not blind: verdict colours shown
    assert "Labels in the file: CF: 1" in view.item.labels_label.text()
    assert view.progress_label.text().startswith(f"Your progress ({USER}): 0 / {N_ITEMS} items")
    view.item.targets.setCurrentRow(len(rows) - 2)  # CR: two options
    assert buttons(view) == ["1  relevant   (◆ judge)", "2  irrelevant"]


def test_enter_accepts_the_rest_of_the_item_and_moves_on(qa, qtbot, repo) -> None:
    window, view = qa
    first = view.session.items[0].item_id
    n_rows = len(view.item_rows())
    press(qtbot, window, Qt.Key.Key_Return)  # one key for the whole item
    assert view.item_index == 1 and view.session.item_done(first)
    stored = mine(repo)
    answered = [d for d in stored if d.reason != CF_REASON]
    assert len(answered) == n_rows and all(d.action == "accept" for d in answered)
    cf = [d for d in stored if d.target_kind == "astrid_cf"]
    assert len(cf) == 1 and cf[0].reason == CF_REASON  # derived from the sentences
    assert cf[0].target_id == f"astrid/{first}/cf" and cf[0].action == "accept"
    assert view.progress.value() == 1 and view.queue.item(0).text().startswith("✓")
    assert view.item.targets.currentRow() == 0  # the next item starts at its first verdict


def test_keys_answer_and_advance_and_an_override_needs_a_reason(qa, qtbot, repo) -> None:
    window, view = qa
    view.item.targets.setCurrentRow(1)
    press(qtbot, window, Qt.Key.Key_A)
    decision = mine(repo)[0]
    assert decision.action == "accept" and decision.target_id.endswith("/cf/sentence/2")
    assert decision.user == USER and decision.reason == "accepted as shown"
    assert view.item.targets.currentRow() == 2  # moved on to the next undecided verdict
    press(qtbot, window, Qt.Key.Key_3)  # "ungrounded", unlike the judge: the reason box opens
    dialog = view.dialog
    assert dialog is not None and dialog.isVisible() and len(mine(repo)) == 1
    qtbot.waitUntil(lambda: QApplication.focusWidget() is dialog.box)  # typing goes into it
    qtbot.keyClicks(dialog.box, "Not in the leaflet")  # a capital first: typed, not a preset
    qtbot.keyClick(dialog.box, Qt.Key.Key_Return)
    idle(qtbot, window, lambda: not view.busy)
    last = mine(repo)[-1]
    assert last.action == "override" and last.new_value == "ungrounded"
    assert last.reason == "Not in the leaflet" and view.dialog is None
    assert "you: ungrounded" in texts(view)[2]
    assert view.item.targets.currentRow() == 3
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    # a reason typed beforehand (R) is used without asking again
    qtbot.keyClick(window, Qt.Key.Key_R)
    assert view.reason.hasFocus()
    qtbot.keyClicks(view.reason, "checked the leaflet")
    qtbot.keyClick(view.reason, Qt.Key.Key_Return)  # Enter in the box returns, decides nothing
    assert not view.reason.hasFocus() and len(mine(repo)) == 2
    press(qtbot, window, Qt.Key.Key_2)  # S4 (judge: conversational) answered grounded
    assert view.dialog is None and mine(repo)[-1].reason == "checked the leaflet"


def test_cf_follows_the_sentence_verdicts(qa, qtbot, repo) -> None:
    window, view = qa
    item = view.session.items[0]
    sentences = [r for r in view.item_rows() if r.kind == "astrid_cf_sentence"]
    informative = [r for r in sentences if r.judge_value != "conversational"]
    assert informative, "the demo item has information-containing sentences"
    view.reason.setText("checked")
    for row in sentences:  # mark every informative sentence ungrounded
        view.item.targets.setCurrentRow(view.item_rows().index(row))
        key = Qt.Key.Key_1 if row.judge_value == "conversational" else Qt.Key.Key_3
        view.reason.setText("checked")
        press(qtbot, window, key)
    assert view.session.cf_mine(item.item_id) == 0.0
    labels = resolve_labels(view.session.items, repo.decisions())
    assert labels[item.item_id].cf == 0.0  # the stored labels agree
    assert "0.00 from your sentence verdicts" in view.item.cf_label.text()


def test_undo_is_a_new_decision_and_reopens_the_verdict(qa, qtbot, repo) -> None:
    window, view = qa
    first = view.session.items[0].item_id
    press(qtbot, window, Qt.Key.Key_Return)  # the whole first item, CF derived
    logged = len(repo.decisions())
    press(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    everything = repo.decisions()
    assert len(everything) > logged  # appended, nothing edited or deleted
    undo = next(d for d in everything[logged:] if d.reason.startswith("undo: withdraws"))
    assert undo.new_value is None and undo.user == USER
    assert undo.reason == UNDO_REASON.format(decision_id=everything[logged - 2].decision_id)
    # the item is open again on the verdict undone (refusal, the last one decided)
    rows = view.item_rows()
    assert view.item_index == 0 and not view.session.item_done(first)
    assert rows[view.item.targets.currentRow()].kind == "astrid_ra"
    assert view.session.cf_mine(first) is not None  # CF rests on the sentences only
    press(qtbot, window, Qt.Key.Key_Backspace)  # relevance
    press(qtbot, window, Qt.Key.Key_Backspace)  # the last sentence: CF is withdrawn too
    current = rows[view.item.targets.currentRow()]
    assert current.kind == "astrid_cf_sentence" and not view.session.decided(current)
    assert view.session.cf_mine(first) is None
    labels = resolve_labels(view.session.items, repo.decisions())[first]
    assert labels.source.get("cf") == "file"  # the withdrawn CF no longer counts as a label
    press(qtbot, window, Qt.Key.Key_A)  # answer it again: CF again
    assert view.session.cf_mine(first) is not None
    press(qtbot, window, Qt.Key.Key_Return)  # and the rest: the item is done again
    assert view.session.item_done(first)


def test_skip_leaves_the_item_for_later(qa, qtbot, repo) -> None:
    window, view = qa
    press(qtbot, window, Qt.Key.Key_S)
    assert view.item_index == 1 and view.queue.item(0).text().startswith("↷")
    assert not repo.decisions() and "Skipped" in view.status.text()
    for _ in range(N_ITEMS - 1):  # the others first ...
        press(qtbot, window, Qt.Key.Key_Return)
    assert view.item_index == 0  # ... then back to the skipped one


def test_blind_mode_hides_verdicts_reasons_and_labels_until_answered(qa, qtbot, repo) -> None:
    window, view = qa
    qtbot.keyClick(window, Qt.Key.Key_B)
    assert view.blind and window.blind and window.blind_label.isVisible()
    assert all("judge: hidden (blind)" in t for t in texts(view))
    assert "hidden" in view.item.labels_label.text()
    assert "CF: 1" not in view.item.labels_label.text()
    assert "hidden" in view.item.reason_label.text()
    assert not any("judge" in b for b in buttons(view))
    assert painted(view) <= {SELECTED_TINT}  # no verdict colour in the context
    press(qtbot, window, Qt.Key.Key_A)  # accepting an unseen verdict is refused
    press(qtbot, window, Qt.Key.Key_Return)  # and so is accepting the rest
    assert not repo.decisions() and "Blind mode" in view.status.text()
    press(qtbot, window, Qt.Key.Key_1)  # answer S1 "conversational", as the judge did
    decision = mine(repo)[0]
    assert decision.blind and decision.action == "accept" and decision.reason == "blind answer"
    assert "judge: conversational" in texts(view)[0]  # revealed once answered
    assert view.item.targets.currentRow() == 1


def test_blind_labelling_with_no_judge_run(make_window, qtbot, repo) -> None:
    items = load_items(DEMO)[:2]
    set_id, _ = AstridStore(repo).save_set(items, name="unjudged", source="demo", user="t")
    window = make_window()
    view = open_qa(qtbot, window)
    assert view.session.run is None and "No judge run on this set yet" in view.banner.text()
    assert "no judge verdict" in texts(view)[0]
    press(qtbot, window, Qt.Key.Key_Return)  # nothing to accept
    assert not repo.decisions()
    rows = view.item_rows()
    for _ in rows:
        press(qtbot, window, Qt.Key.Key_2)  # grounded / irrelevant / attempts
    stored = mine(repo)
    labels = [d for d in stored if d.reason != CF_REASON]
    assert len(labels) == len(rows) and all(d.case_id == set_id for d in labels)
    assert all(d.original_value is None and d.blind for d in labels)
    assert view.item_index == 1  # moved on to the next item
    cf = resolve_labels(items, repo.decisions())[items[0].item_id].cf
    assert cf == 1.0  # every sentence labelled grounded
    # once a judge runs, these labels are this reviewer's answers on its verdicts
    run = list(judge_items(ScriptedRuntime(rule_judge()), items, set_id))[-1].run
    AstridStore(repo).save_run(run, "t")
    view.refresh()
    idle(qtbot, window, lambda: view.session is not None and view.session.run is not None)
    assert view.session.item_done(items[0].item_id)
    assert view.item_index == 1


def test_blind_mode_ignores_other_reviewers(make_window, run_id, qtbot, repo) -> None:
    other = make_window(user="someone.else")
    open_qa(qtbot, other)
    press(qtbot, other, Qt.Key.Key_A)
    assert len(repo.decisions()) == 1
    other.close()
    window = make_window()
    view = open_qa(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_B)
    assert "hidden (blind)" in texts(view)[0]  # another's decision reveals nothing
    assert "1 decision(s) by other reviewers" in view.progress_label.text()


def test_queue_next_previous_and_verdict_keys(qa, qtbot) -> None:
    window, view = qa
    qtbot.keyClick(window, Qt.Key.Key_N)
    assert view.item_index == 1
    assert view.item.question.toPlainText() == view.session.items[1].question
    qtbot.keyClick(window, Qt.Key.Key_J)
    assert view.item.targets.currentRow() == 1
    qtbot.keyClick(window, Qt.Key.Key_K)
    assert view.item.targets.currentRow() == 0
    for _ in range(N_ITEMS + 2):
        qtbot.keyClick(window, Qt.Key.Key_N)
    assert view.item_index == N_ITEMS - 1
    qtbot.keyClick(window, Qt.Key.Key_P)
    assert view.item_index == N_ITEMS - 2


def test_queue_resumes_where_the_reviewer_stopped(make_window, run_id, qtbot, repo) -> None:
    window = make_window()
    view = open_qa(qtbot, window)
    for item in range(2):
        assert view.item_index == item
        press(qtbot, window, Qt.Key.Key_Return)
    assert view.progress.value() == 2
    window.close()
    again = make_window()
    view = open_qa(qtbot, again)
    assert view.item_index == 2  # the third item
    assert view.progress.value() == 2 and view.progress.maximum() == N_ITEMS
    assert f"2 / {N_ITEMS} items done" in view.progress_label.text()
    assert view.queue.item(0).text().startswith("✓") and view.queue.item(2).text().startswith("•")


def test_fast_keys_wait_for_the_write_under_way(qa, qtbot, repo) -> None:
    """Keys pressed while a decision is being stored act after it, on the new state: two
    quick Enters decide two items, never the same one twice."""
    window, view = qa
    qtbot.keyClick(window, Qt.Key.Key_Return)
    qtbot.keyClick(window, Qt.Key.Key_Return)
    idle(qtbot, window, lambda: not view.busy and view.session.items_done == 2)
    targets = [d.target_id for d in repo.decisions()]
    assert len(targets) == len(set(targets))
    assert view.item_index == 2


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
    assert view.item.question.toPlainText() == "<b>bold?</b>"
    assert "<i>c</i>" in view.item.context.toPlainText()
    assert "<script>x</script>" in texts(view)[0]
