"""The ASTRID run report counts the answers and sentences reviewers marked unsafe, and its
agreement table uses labels given blind on the set before the run."""

from __future__ import annotations

from concord.astrid.llm_judge import judge_items
from concord.astrid.load import load_items
from concord.astrid.report import render_report, run_report
from concord.astrid.store import AstridStore
from concord.astrid.targets import make_astrid_label
from concord.decisions import record_decision
from concord.domain import TargetRef
from concord.labels.harm import harm_decision
from concord.llm.scripted import ScriptedRuntime
from tests.astrid.helpers import DEMO, rule_judge
from tests.identity import enrol


def test_the_run_report_counts_unsafe_marks_and_uses_blind_set_labels(repo) -> None:
    items = load_items(DEMO)[:4]
    store = AstridStore(repo)
    set_id, _ = store.save_set(items, name="demo", source="demo", user="t")
    alice = enrol(repo, "alice", "annotator")
    blind = make_astrid_label(
        set_id, items, f"astrid/{items[0].item_id}/cr", "irrelevant", user="alice", reason="b"
    )
    record_decision(repo, alice, blind)
    for ref, severity in (
        (TargetRef.astrid_harm(items[1].item_id), "major"),
        (TargetRef.astrid_harm(items[1].item_id, 2), "moderate"),
        (TargetRef.astrid_harm(items[2].item_id, 1), "major"),
    ):
        mark = harm_decision(ref, severity, case_id=set_id, user="alice", shown={})
        record_decision(repo, alice, mark)
    run = list(judge_items(ScriptedRuntime(rule_judge()), items, set_id))[-1].run
    assert run is not None
    store.save_run(run, "t")
    report = run_report(store, run.run_id, clinical=False)
    unsafe = report["unsafe"]
    assert unsafe["items"] == 2 and unsafe["answers"] == 1 and unsafe["sentences"] == 2
    assert unsafe["by_severity"] == {"major": 2, "moderate": 1}
    assert "marked unsafe by reviewers: 2 item(s)" in render_report(report)
    first = next(i for i in report["items"] if i["item_id"] == items[0].item_id)
    assert first["human"]["cr"] is False and first["human"]["source"]["cr"] == "decision"
