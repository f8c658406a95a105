"""The ASTRID QA review view: queue, highlighting, blind mode, accept/override by key."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402
from tests.astrid.conftest import DEMO, rule_judge  # noqa: E402

from concord.astrid.judge import judge_items  # noqa: E402
from concord.astrid.load import load_items  # noqa: E402
from concord.astrid.store import AstridStore  # noqa: E402
from concord.llm.scripted import ScriptedRuntime  # noqa: E402
from concord.store import Repository  # noqa: E402


class _Services:
    def __init__(self, repo: Repository) -> None:
        self.repo = repo


@pytest.fixture
def view(qtbot, repo: Repository):
    from concord.ui.qa_view import QaReviewView

    items = load_items(DEMO)[:3]
    store = AstridStore(repo)
    set_id, _ = store.save_set(items, name="demo", source="demo", user="t")
    run = list(judge_items(ScriptedRuntime(rule_judge()), items, set_id))[-1].run
    store.save_run(run, "t")
    widget = QaReviewView(_Services(repo), user="annotator")
    qtbot.addWidget(widget)
    widget.show()
    return widget


def test_shows_item_verdicts_and_grounding(view) -> None:
    assert view.run is not None and view.queue.count() == 3
    assert view.question.toPlainText() == view.items[0].question
    texts = [view.targets.item(n).text() for n in range(view.targets.count())]
    assert texts[0].startswith("S1  judge: conversational")
    assert any(t.startswith("Context relevant  judge: relevant") for t in texts)
    assert "[C1]" in view.context.toPlainText()
    spans = view.grounding_spans(view.items[0])
    assert 1 in spans  # "Use the drops four times a day ..." is found in the context
    assert view.progress_label.text() == f"0 / {len(view.rows)} verdicts decided"


def test_accept_and_override_by_keyboard(view, qtbot, repo) -> None:
    view.reason.setText("checked against the leaflet")
    view.targets.setCurrentRow(1)
    view.targets.setFocus()
    qtbot.keyClick(view.targets, Qt.Key.Key_A)
    decisions = repo.decisions(case_id=view.run.run_id)
    assert len(decisions) == 1 and decisions[0].action == "accept"
    assert decisions[0].target_id.endswith("/cf/sentence/2") and decisions[0].user == "annotator"
    assert view.targets.currentRow() == 2  # moved on to the next undecided verdict
    view.value_box.setCurrentText("ungrounded")
    qtbot.keyClick(view.targets, Qt.Key.Key_O)
    last = repo.decisions(case_id=view.run.run_id)[-1]
    assert last.action == "override" and last.new_value == "ungrounded"
    assert view.progress.value() == 2


def test_reason_is_required(view, qtbot, repo) -> None:
    view.reason.setText("")
    view.targets.setFocus()
    qtbot.keyClick(view.targets, Qt.Key.Key_A)
    assert repo.decisions() == [] and "reason" in view.status.text()


def test_blind_mode_hides_verdicts_until_answered(view, qtbot, repo) -> None:
    view.targets.setFocus()
    qtbot.keyClick(view.targets, Qt.Key.Key_B)
    assert view.blind
    texts = [view.targets.item(n).text() for n in range(view.targets.count())]
    assert all("(hidden)" in t for t in texts)
    assert not view.accept_button.isEnabled()
    view.reason.setText("blind label")
    view.value_box.setCurrentText("conversational")
    qtbot.keyClick(view.targets, Qt.Key.Key_O)
    decision = repo.decisions()[-1]
    assert decision.blind and decision.action == "accept"  # same as the judge, found blind
    assert "human: conversational" in view.targets.item(0).text()
    assert "(hidden)" not in view.targets.item(0).text()


def test_queue_next_and_previous(view, qtbot) -> None:
    view.targets.setFocus()
    qtbot.keyClick(view.targets, Qt.Key.Key_N)
    assert view.item_index == 1 and view.question.toPlainText() == view.items[1].question
    qtbot.keyClick(view.targets, Qt.Key.Key_N)
    qtbot.keyClick(view.targets, Qt.Key.Key_N)
    assert view.item_index == 2
    qtbot.keyClick(view.targets, Qt.Key.Key_P)
    assert view.item_index == 1


def test_qa_text_is_plain(qtbot, repo) -> None:
    from concord.astrid.items import QaItem
    from concord.ui.qa_view import QaReviewView

    item = QaItem(item_id="x", question="<b>bold?</b>", context=("<i>c</i> text here",),
                  answer="<script>x</script> Fine.")
    store = AstridStore(repo)
    set_id, _ = store.save_set([item], name="html", source="t", user="t")
    run = list(judge_items(ScriptedRuntime(rule_judge()), [item], set_id))[-1].run
    store.save_run(run, "t")
    widget = QaReviewView(_Services(repo))
    qtbot.addWidget(widget)
    assert widget.question.toPlainText() == "<b>bold?</b>"
    assert "<i>c</i>" in widget.context.toPlainText()
