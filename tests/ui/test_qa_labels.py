"""Labels on the QA page record what the annotator did: no key falls through to accepting the
judge, every label carries how it was given (bulk, seconds, the run shown), H marks unsafe,
and blind mode shows no verdict anywhere, the judge's progress line included.

Keys are pressed on whatever widget has the focus, as on a real keyboard."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from concord.astrid.load import load_items
from concord.astrid.store import AstridStore
from concord.domain.decision_history import standing_decisions
from concord.store import Repository
from concord.store.label_store import LabelStore
from concord.workbench.model_jobs import judge_qa_set
from concord.workbench.qa_session import CF_REASON
from concord.workbench.reason_presets import presets
from tests.astrid.helpers import DEMO, rule_judge
from tests.ui.helpers import USER, idle
from tests.ui.test_qa_page import judged_set, open_qa

KEYS = {
    "1": Qt.Key.Key_1,
    "2": Qt.Key.Key_2,
    "3": Qt.Key.Key_3,
    "a": Qt.Key.Key_A,
    "h": Qt.Key.Key_H,
    "w": Qt.Key.Key_W,
    "Enter": Qt.Key.Key_Return,
    "Esc": Qt.Key.Key_Escape,
}


def type_keys(qtbot, window, sequence: str) -> None:
    """Each key to the widget that has the keyboard focus (the window's queue, or a dialog
    once it is open), at a person's pace: after every write has landed and the window
    manager has given the focus to the window that should have it."""
    view = window.qa_view
    grading = window.grading_view
    for name in sequence.split():
        target = QApplication.focusWidget() or window
        qtbot.keyClick(target, KEYS[name])
        idle(qtbot, window, lambda: not view.busy and not grading.busy)
        qtbot.waitUntil(
            lambda: QApplication.activeWindow() is (view.dialog or grading.dialog or window)
        )


def mine(repo: Repository) -> dict[str, object]:
    """My standing decisions by target id (CF derived from the sentences left aside)."""
    return {
        d.target_id: d
        for d in standing_decisions(repo.decisions())
        if d.user == USER and d.reason != CF_REASON
    }


def gritty_faithful(make_window, repo, qtbot):
    """The demo item whose first sentence ("Ah, that's a common feeling after the
    operation.") the rule judge calls information (grounded), and whose last ("Does that
    help?") it calls conversational."""
    items = [i for i in load_items(DEMO) if i.item_id == "gritty-faithful"]
    judged_set(repo, items)
    window = make_window()
    view = open_qa(qtbot, window)
    rows = view.item_rows()
    assert [r.judge_value for r in rows[:4]] == [
        "grounded",
        "grounded",
        "grounded",
        "conversational",
    ]
    return window, view


def test_the_key_sequence_1_a_a_1_enter_stores_what_was_meant(make_window, repo, qtbot) -> None:
    """The annotator means S1 conversational (the judge says grounded), and presses
    1 a a 1 Enter. Before, 1 was refused for want of a reason (said only in the status line),
    the first `a` accepted the judge's "grounded" on S1 — the opposite of what was meant,
    stored as "accepted as shown" — and Enter accepted the rest. Now 1 opens the reason box
    with the focus; `a` takes its first preset reason, so S1 is stored conversational; the
    second `a` accepts S2; 1 on S3 opens the box again, and Enter with no reason records
    nothing: the item waits, nothing else is accepted."""
    window, view = gritty_faithful(make_window, repo, qtbot)
    item = "gritty-faithful"
    type_keys(qtbot, window, "1 a a 1 Enter")
    stored = mine(repo)
    s1 = stored[f"astrid/{item}/cf/sentence/1"]
    assert s1.new_value == "conversational" and s1.action == "override"
    assert s1.original_value == "grounded"
    assert s1.reason == presets("astrid_cf_sentence", "conversational")[0][1]
    s2 = stored[f"astrid/{item}/cf/sentence/2"]
    assert s2.new_value == "grounded" and s2.action == "accept"
    assert set(stored) == {f"astrid/{item}/cf/sentence/1", f"astrid/{item}/cf/sentence/2"}
    assert not any(
        d.reason.startswith("accepted as shown")
        and d.new_value == "grounded"
        and d.target_id.endswith("/1")
        for d in repo.decisions()
    )
    # the item waits on S3's reason: the box is open, says why, and has the focus
    dialog = view.dialog
    assert dialog is not None and dialog.isVisible()
    assert "Nothing is recorded without a reason" in dialog.note.text()
    assert QApplication.focusWidget() is dialog.box
    # Esc cancels that override: still nothing more stored, the queue has the keys again
    type_keys(qtbot, window, "Esc")
    assert view.dialog is None and set(mine(repo)) == set(stored)
    assert "cancelled" in view.status.text()
    # and the annotator goes on: S3 accepted, S4 conversational as the judge said, the rest
    type_keys(qtbot, window, "a 1 Enter")
    final = mine(repo)
    assert final[f"astrid/{item}/cf/sentence/3"].new_value == "grounded"
    assert final[f"astrid/{item}/cf/sentence/4"].new_value == "conversational"
    assert final[f"astrid/{item}/cf/sentence/1"].new_value == "conversational"
    assert {f"astrid/{item}/cr", f"astrid/{item}/ra"} <= set(final)


def test_every_label_records_how_it_was_given(make_window, repo, qtbot) -> None:
    window, view = gritty_faithful(make_window, repo, qtbot)
    type_keys(qtbot, window, "a Enter")  # S1 one by one, the rest of the item in bulk
    provenance = LabelStore(repo).provenance()
    run = view.session.run
    by_target = {d.target_id: d for d in repo.decisions()}
    one = by_target["astrid/gritty-faithful/cf/sentence/1"]
    rest = by_target["astrid/gritty-faithful/cr"]
    cf = by_target["astrid/gritty-faithful/cf"]
    assert provenance[one.decision_id].bulk is False
    assert provenance[rest.decision_id].bulk is True  # Enter: not decided one by one
    assert provenance[cf.decision_id].bulk is True  # CF follows the key that completed it
    for decision in (one, rest, cf):
        how = provenance[decision.decision_id]
        assert how.judge_run == run.run_id
        assert how.set_id == view.session.set_id and how.set_sha256 == view.session.set_sha256
        assert how.seconds_on_item is not None and how.seconds_on_item >= 0
        assert how.golden_shown is None  # no golden answers in ASTRID


def test_h_marks_a_sentence_or_the_whole_answer_unsafe(make_window, repo, qtbot) -> None:
    window, view = gritty_faithful(make_window, repo, qtbot)
    type_keys(qtbot, window, "h 3")  # the current sentence, major
    type_keys(qtbot, window, "h w 2")  # the whole answer, moderate
    stored = mine(repo)
    sentence = stored["astrid/gritty-faithful/harm/sentence/1"]
    answer = stored["astrid/gritty-faithful/harm"]
    assert sentence.new_value == "major" and answer.new_value == "moderate"
    assert sentence.original_value is None and sentence.case_id == view.session.set_id
    assert "UNSAFE (major)" in view.item.targets.item(0).text()
    assert "marked the answer UNSAFE (moderate)" in view.item.item_label.text()
    assert view.item.targets.currentRow() == 0  # a harm mark does not move on
    type_keys(qtbot, window, "h Esc")  # cancelled: nothing
    assert len(mine(repo)) == 2


@pytest.fixture
def qa_blind(make_window, repo, qtbot):
    judged_set(repo, load_items(DEMO)[:2])
    window = make_window()
    view = open_qa(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_B)
    assert view.blind
    return window, view, qtbot, repo


def test_blind_answers_need_no_reason_and_open_no_box(qa_blind) -> None:
    window, view, qtbot, repo = qa_blind
    type_keys(qtbot, window, "2")  # S1: the judge (hidden) says conversational
    decision = next(iter(mine(repo).values()))
    assert view.dialog is None and decision.blind and decision.new_value == "grounded"
    assert decision.reason == "blind answer"


def test_the_judge_progress_line_names_no_verdict(repo) -> None:
    from concord.llm.scripted import ScriptedRuntime

    items = load_items(DEMO)[:3]
    set_id, _ = AstridStore(repo).save_set(items, name="demo", source="demo", user="t")
    messages: list[str] = []
    judge_qa_set(
        repo,
        ScriptedRuntime(rule_judge()),
        set_id,
        "t",
        report=lambda done, total, message: messages.append(message),
    )
    assert messages and not any(
        word in m for m in messages for word in ("CF", "CR", "RA", "refuses", "relevant")
    )


def test_the_in_app_export_writes_labels_with_their_provenance(
    make_window, repo, qtbot, tmp_path
) -> None:
    import csv
    import json

    window, view = gritty_faithful(make_window, repo, qtbot)
    type_keys(qtbot, window, "h 2 a Enter")  # a harm mark on S1, S1 one by one, the rest in bulk
    out = tmp_path / "labels.jsonl"
    window.export_labels(out)
    idle(qtbot, window, lambda: out.exists() and out.with_suffix(".csv").exists())
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    by_target = {r["target_id"]: r for r in rows}
    first = by_target["astrid/gritty-faithful/cf/sentence/1"]
    assert first["bulk"] is False and first["blind"] is False
    assert first["unsafe"] == "moderate"  # the sentence this rater marked unsafe
    assert first["judge_run"] == view.session.run.run_id and first["seconds_on_item"] >= 0
    assert by_target["astrid/gritty-faithful/cr"]["bulk"] is True
    assert by_target["astrid/gritty-faithful/cr"]["unsafe"] is None
    assert by_target["astrid/gritty-faithful/harm/sentence/1"]["new_value"] == "moderate"
    with out.with_suffix(".csv").open(encoding="utf-8", newline="") as handle:
        header = next(csv.reader(handle))
    for column in ("blind", "bulk", "golden_shown", "seconds_on_item", "unsafe"):
        assert column in header
    assert "Labels exported" in window.statusBar().currentMessage()
