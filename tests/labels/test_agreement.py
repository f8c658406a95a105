"""Agreement worth trusting: blind labels are compared with a judge run made after them, blind
and non-blind apart, bulk accepts left out, per-annotator acceptance and time with warnings,
gold items scored per annotator, unsafe marks listed first."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from concord.astrid.items import QaItem
from concord.astrid.llm_judge import judge_items
from concord.astrid.load import load_items
from concord.astrid.results import QaRun
from concord.astrid.store import AstridStore
from concord.astrid.targets import astrid_targets, make_astrid_decision, make_astrid_label
from concord.decisions import record_decision
from concord.domain import LabelProvenance, TargetKind, TargetRef
from concord.labels.agreement import agreement_report
from concord.labels.harm import harm_decision
from concord.labels.reasons import REST_REASON
from concord.llm.scripted import ScriptedRuntime
from concord.store import Repository
from concord.store.label_store import LabelStore
from tests.astrid.helpers import DEMO, rule_judge
from tests.identity import enrol


@pytest.fixture
def qa(repo: Repository) -> tuple[str, list[QaItem]]:
    items = load_items(DEMO)[:6]
    set_id, _ = AstridStore(repo).save_set(items, name="demo", source="demo", user="t")
    return set_id, items


def judge(repo: Repository, set_id: str, items: Sequence[QaItem]) -> QaRun:
    run = list(judge_items(ScriptedRuntime(rule_judge()), items, set_id))[-1].run
    assert run is not None
    AstridStore(repo).save_run(run, "t")
    return run


def label_blind(repo, session, set_id, items, *, flip: int = 0, seconds: float = 5.0) -> int:
    """Label every sentence / CR / RA of `items` blind (no run yet), as the rule judge would
    answer except every `flip`-th label; returns how many labels."""
    rule = judge_values(items)
    n = 0
    for target_id, value in rule.items():
        n += 1
        if flip and n % flip == 0:
            value = {
                "grounded": "ungrounded",
                "ungrounded": "grounded",
                "conversational": "grounded",
                "relevant": "irrelevant",
                "irrelevant": "relevant",
                "attempts": "refuses",
                "refuses": "attempts",
            }[value]
        decision = make_astrid_label(
            set_id, items, target_id, value, user=session.name, reason="blind answer"
        )
        how = LabelProvenance(bulk=False, seconds_on_item=seconds, set_id=set_id)
        record_decision(repo, session, decision, provenance=how)
    return n


def judge_values(items: Sequence[QaItem]) -> dict[str, str]:
    """What the rule judge says on each sentence, CR and RA (computed on a throwaway run)."""
    run = list(judge_items(ScriptedRuntime(rule_judge()), items, "X"))[-1].run
    assert run is not None
    return {
        t.id: str(t.value)
        for t in astrid_targets(run, items)
        if t.kind in ("astrid_cf_sentence", "astrid_cr", "astrid_ra")
    }


def test_blind_labels_given_before_the_judge_ran_are_compared_with_it(repo, qa) -> None:
    set_id, items = qa
    alice = enrol(repo, "alice", "annotator")
    n = label_blind(repo, alice, set_id, items)
    assert not agreement_report(repo).judge  # no judge yet: nothing to compare
    run = judge(repo, set_id, items)  # the judge runs after the labels were given
    rows = agreement_report(repo).judge
    blind = [r for r in rows if r["blind"]]
    assert blind and not [r for r in rows if not r["blind"]]
    assert sum(r["n"] for r in blind) == n  # every blind label compared with the run
    assert all(r["model"] == run.model_name and r["raters"] == ["alice"] for r in blind)
    sentence = next(r for r in blind if r["metric"] == "astrid_cf_sentence")
    assert sentence["accuracy"] == 1.0  # alice answered as the rule judge
    assert sentence["confusion"]["categories"] == ["conversational", "grounded", "ungrounded"]
    counts = sentence["confusion"]["rows_judge_cols_human"]
    assert sum(counts[i][i] for i in range(3)) == sentence["n"]


def test_blind_and_shown_apart_and_bulk_accepts_left_out(repo, qa) -> None:
    set_id, items = qa
    run = judge(repo, set_id, items)
    bob = enrol(repo, "bob", "annotator")
    targets = [t for t in astrid_targets(run, items) if t.kind == "astrid_cr"]
    shown, blind, bulk = targets[:2], targets[2:4], targets[4:]
    for t in shown:  # accepted one by one, the judge's value on screen
        d = make_astrid_decision(run, items, t.id, user="bob", reason="checked")
        record_decision(repo, bob, d, provenance=LabelProvenance(bulk=False, judge_run=run.run_id))
    for t in blind:
        d = make_astrid_decision(run, items, t.id, user="bob", reason="blind answer", blind=True)
        record_decision(repo, bob, d, provenance=LabelProvenance(bulk=False, judge_run=run.run_id))
    for t in bulk:  # Enter on the rest of the item: rubber stamps
        d = make_astrid_decision(run, items, t.id, user="bob", reason=REST_REASON)
        record_decision(repo, bob, d, provenance=LabelProvenance(bulk=True, judge_run=run.run_id))
    rows = {(r["metric"], r["blind"]): r for r in agreement_report(repo).judge}
    assert rows[("astrid_cr", False)]["n"] == len(shown)
    assert rows[("astrid_cr", True)]["n"] == len(blind)
    assert rows[("astrid_cr", False)]["bulk_left_out"] == len(bulk)
    # a decision recorded before provenance was kept is told bulk by its reason
    old = make_astrid_decision(run, items, targets[0].id, user="bob", reason=REST_REASON)
    record_decision(repo, bob, old)
    rows = {(r["metric"], r["blind"]): r for r in agreement_report(repo).judge}
    assert rows[("astrid_cr", False)]["n"] == len(shown) - 1


def test_two_annotators_get_kappa_with_an_interval(repo, qa) -> None:
    set_id, items = qa
    alice = enrol(repo, "alice", "annotator")
    bob = enrol(repo, "bob", "annotator")
    label_blind(repo, alice, set_id, items)
    label_blind(repo, bob, set_id, items, flip=3)
    rows = agreement_report(repo).annotators
    sentences = next(
        r for r in rows if r["metric"] == "astrid_cf_sentence" and r["kappa_kind"] == "cohen"
    )
    assert sentences["annotators"] == ["alice", "bob"] and sentences["n"] > 10
    assert sentences["agreement"] < 1.0 and sentences["kappa"] is not None
    low, high = sentences["ci95"]
    assert low <= sentences["kappa"] <= high
    assert sentences["disagreements"]


def test_acceptance_rate_and_seconds_per_item_warn(repo, qa) -> None:
    set_id, items = qa
    run = judge(repo, set_id, items)
    fast = enrol(repo, "fast", "annotator")
    for t in astrid_targets(run, items):
        if t.kind in ("astrid_cf_sentence", "astrid_cr", "astrid_ra") and t.value != "failed":
            d = make_astrid_decision(run, items, t.id, user="fast", reason="ok")
            how = LabelProvenance(bulk=False, seconds_on_item=0.8, judge_run=run.run_id)
            record_decision(repo, fast, d, provenance=how)
    report = agreement_report(repo)
    [row] = [r for r in report.per_annotator if r["rater"] == "fast"]
    assert row["acceptance_rate"] == 1.0 and row["seconds_per_item"] == 0.8
    assert len(row["warnings"]) == 2 and report.warnings == row["warnings"]
    assert "100%" in row["warnings"][0] and "0.8 s per item" in row["warnings"][1]


def test_gold_items_are_scored_per_annotator(repo, qa) -> None:
    set_id, items = qa
    lead = enrol(repo, "lead", "annotator")
    alice = enrol(repo, "alice", "annotator")
    bob = enrol(repo, "bob", "annotator")
    label_blind(repo, lead, set_id, items[:2])
    label_blind(repo, alice, set_id, items[:2])
    label_blind(repo, bob, set_id, items[:2], flip=2)
    LabelStore(repo).seed_gold(set_id, [items[0].item_id, items[1].item_id], "lead")
    gold = {g["rater"]: g for g in agreement_report(repo).gold}
    assert set(gold) == {"alice", "bob"}  # the seeder is the reference, not scored
    assert gold["alice"]["accuracy"] == 1.0 and gold["alice"]["gold_items"] == 2
    assert gold["bob"]["accuracy"] < 1.0 and gold["bob"]["n"] == gold["alice"]["n"]


def test_unsafe_marks_come_first_most_severe_first(repo, qa) -> None:
    set_id, items = qa
    alice = enrol(repo, "alice", "annotator")
    for item, number, severity in ((items[0], None, "minor"), (items[1], 2, "major")):
        mark = harm_decision(
            TargetRef.astrid_harm(item.item_id, number),
            severity,
            case_id=set_id,
            user="alice",
            shown={"set_id": set_id},
        )
        record_decision(repo, alice, mark, provenance=LabelProvenance(set_id=set_id))
    unsafe = agreement_report(repo).unsafe
    assert [(m["item"], m["sentence"], m["severity"]) for m in unsafe] == [
        (items[1].item_id, 2, "major"),
        (items[0].item_id, None, "minor"),
    ]


def test_case_scores_are_compared_by_grade_band_and_disagreements_by_severity() -> None:
    from concord.labels.agreement import category

    # two raters who grade a brief 73.3 and 70.0 agree (both Medium); raw numbers never would
    assert category(TargetKind.OVERALL, 73.3) == category(TargetKind.OVERALL, 70.0) == "Medium"
    assert category(TargetKind.OVERALL, 16.0) == "Very Low"
    assert category(TargetKind.SUBSCORE, 0.2) == "Very Low"  # a sub-score 0-1, banded x100
    judged = {"kind": "CONFLICT", "severity": "major"}
    assert category(TargetKind.DISAGREEMENT, judged) == category(TargetKind.DISAGREEMENT, "major")
    assert category(TargetKind.DISAGREEMENT, "rejected") == "rejected"
