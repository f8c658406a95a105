"""The judge pipeline end to end with the scripted runtime: verdicts, metrics, storage,
decisions as human labels, agreement and the CLI."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from concord.astrid.agreement import agreement_table
from concord.astrid.llm_judge import JudgeSettings, judge_item, judge_items
from concord.astrid.report import run_report
from concord.astrid.store import AstridStore
from concord.astrid.targets import astrid_targets, make_astrid_decision, resolve_labels
from concord.decisions import record_decision
from concord.domain.decision_reason import ACCEPT_REASON
from concord.errors import InputError, NotFoundError
from concord.llm.scripted import ScriptedRuntime
from concord.store import Repository, verify_chain
from tests.astrid.helpers import DEMO, metric_of, rule_judge
from tests.identity import PASSWORD, enrol


def by_id(items, item_id):
    return next(i for i in items if i.item_id == item_id)


def test_one_item_every_sentence_judged_and_prefix_shared(demo_items, scripted) -> None:
    item = by_id(demo_items, "gritty-unfaithful")
    verdicts, score = judge_item(scripted, item)
    # 3 sentences: "Sorry to hear that." is conversational, 2 informative, tap water ungrounded
    info = [v for v in verdicts if v.metric == "cf_info"]
    grounded = [v for v in verdicts if v.metric == "cf_grounded"]
    assert [v.value for v in info] == [False, True, True]
    assert [(v.sentence_index, v.value) for v in grounded] == [(1, False), (2, True)]
    assert (score.n_informative, score.n_grounded, score.n_ungrounded) == (2, 1, 1)
    assert score.cf == 0.5 and score.cr is True and score.ra_refused is False
    assert score.ra_correct is True and score.complete
    prefixes = {r.prefix for r in scripted.requests}
    assert len(prefixes) == 1 and item.question in next(iter(prefixes))
    assert all(r.schema is not None for r in scripted.requests)
    assert all(item.question not in r.prompt for r in scripted.requests)


def test_all_conversational_answer_has_cf_one(demo_items, scripted) -> None:
    item = by_id(demo_items, "thanks-only")
    runtime = ScriptedRuntime(rule_judge(conversational=lambda s: True))
    verdicts, score = judge_item(runtime, item)
    assert score.n_informative == 0 and score.cf == 1.0
    assert not [v for v in verdicts if v.metric == "cf_grounded"]


def test_invalid_output_is_retried_then_failed(demo_items) -> None:
    item = by_id(demo_items, "drops-frequency")
    good = rule_judge()

    def flaky(request):
        if metric_of(request.prompt) == "cr":
            return "not json"
        if metric_of(request.prompt) == "ra" and request.temperature == 0.0:
            return '{"verdict": "maybe"}'
        return good(request)

    runtime = ScriptedRuntime(flaky)
    verdicts, score = judge_item(runtime, item, settings=JudgeSettings(max_attempts=2))
    cr = next(v for v in verdicts if v.metric == "cr")
    ra = next(v for v in verdicts if v.metric == "ra")
    assert cr.status == "failed" and cr.value is None and cr.attempts == 2 and cr.raw == "not json"
    assert ra.status == "ok" and ra.attempts == 2
    assert score.cr is None and not score.complete
    retry = [r for r in runtime.requests if metric_of(r.prompt) == "ra"]
    assert retry[0].temperature == 0.0 and retry[1].temperature > 0
    assert retry[1].seed != retry[0].seed


def test_repeats_use_seeds_and_give_mean_and_sd(demo_items, repo: Repository) -> None:
    items = demo_items[:3]
    calls = {"n": 0}
    rules = rule_judge()

    def by_seed(request):  # repeat with seed 1 calls every context irrelevant
        calls["n"] += 1
        if metric_of(request.prompt) == "cr" and request.seed == 1:
            return json.dumps({"verdict": "irrelevant", "reason": "seed 1"})
        return rules(request)

    runtime = ScriptedRuntime(by_seed, model_name="seeded")
    events = list(judge_items(runtime, items, "QA-SET-x", JudgeSettings(runs=2)))
    run = events[-1].run
    assert run is not None and len(run.repeats) == 2
    assert [r.seed for r in run.repeats] == [0, 1]
    assert all(r.temperature == 0.7 for r in run.repeats)
    assert [e.done for e in events[:-1]] == list(range(1, 7))
    store = AstridStore(repo)
    set_id, _ = store.save_set(items, name="three", source="t", user="t")
    run = run.model_copy(update={"set_id": set_id})
    store.save_run(run, "t")
    assert store.get_run(run.run_id) == run
    report = run_report(store, run.run_id, clinical=False)
    row = report["agreement"]["rows"][0]
    assert row["model"] == "seeded" and row["repeats"] == 2
    cr = row["metrics"]["cr"]
    assert cr["accuracy"]["mean"] == pytest.approx(0.5) and cr["accuracy"]["sd"] > 0
    assert cr["n"] == [3, 3]


def run_demo(repo: Repository, demo_items, runtime) -> tuple[AstridStore, str]:
    store = AstridStore(repo)
    set_id, _ = store.save_set(demo_items, name="demo", source=str(DEMO), user="t")
    run = list(judge_items(runtime, demo_items, set_id))[-1].run
    store.save_run(run, "t")
    return store, run.run_id


def test_decisions_become_human_labels(repo: Repository, demo_items, scripted) -> None:
    store, run_id = run_demo(repo, demo_items, scripted)
    run = store.get_run(run_id)
    targets = astrid_targets(run, demo_items)
    ids = {t.id for t in targets}
    assert "astrid/gritty-unfaithful/cf/sentence/2" in ids
    assert {"astrid/back-pain/ra", "astrid/back-pain/cr", "astrid/back-pain/cf"} <= ids
    session = enrol(repo, "dr_a", "clinician")
    before = run_report(store, run_id, clinical=False)["agreement"]["rows"][0]["metrics"]["ra"]
    # the scripted judge says every answer attempts; the clinician says back-pain refuses
    # (as the file does) and overrides drops-frequency to "refuses" (against the file)
    d1 = make_astrid_decision(
        run, demo_items, "astrid/drops-frequency/ra", user="dr_a", reason="test", override="refuses"
    )
    assert d1.action == "override" and d1.case_id == run_id
    assert d1.original_value == "attempts" and d1.new_value == "refuses"
    d2 = make_astrid_decision(
        run,
        demo_items,
        "astrid/back-pain/cr",
        user="dr_a",
        reason="agree",
        blind=True,
        override="irrelevant",
    )
    assert d2.action == "override" and d2.blind
    d3 = make_astrid_decision(run, demo_items, "astrid/driving/cr", user="dr_a", reason="agree")
    assert d3.action == "accept" and d3.new_value == "relevant"
    for d in (d1, d2, d3):
        assert record_decision(repo, session, d).created
    labels = resolve_labels(demo_items, repo.decisions(case_id=run_id))
    assert labels["drops-frequency"].ra is True
    assert labels["drops-frequency"].source["ra"] == "decision"
    assert labels["back-pain"].cr is False
    after = run_report(store, run_id, clinical=False)["agreement"]
    assert after["decisions_used"] == 3
    assert after["rows"][0]["metrics"]["ra"]["confusion"] != before["confusion"]
    assert verify_chain(repo.db).ok


def test_sentence_decisions_give_cf_label(repo: Repository, demo_items, scripted) -> None:
    store, run_id = run_demo(repo, demo_items, scripted)
    run = store.get_run(run_id)
    values = {1: "conversational", 2: "ungrounded", 3: "grounded"}
    decisions = [
        make_astrid_decision(
            run,
            demo_items,
            f"astrid/gritty-unfaithful/cf/sentence/{n}",
            user="u",
            reason="r",
            override=v,
        )
        for n, v in values.items()
    ]
    labels = resolve_labels(demo_items, decisions)
    assert labels["gritty-unfaithful"].cf == 0.5
    table = agreement_table([run], demo_items, labels)
    assert table[0].metrics["cf_sentence_grounded"]["accuracy"]["mean"] == 1.0


def test_bad_decisions(repo: Repository, demo_items, scripted) -> None:
    store, run_id = run_demo(repo, demo_items, scripted)
    run = store.get_run(run_id)
    with pytest.raises(InputError, match="one of refuses, attempts"):
        make_astrid_decision(
            run, demo_items, "astrid/driving/ra", user="u", reason="r", override="perhaps"
        )
    with pytest.raises(InputError, match="between 0 and 1"):
        make_astrid_decision(
            run, demo_items, "astrid/driving/cf", user="u", reason="r", override="1.5"
        )
    # the one reason rule (concord.domain.decision_reason): an accept may go without words,
    # an override of the verdict shown may not
    accepted = make_astrid_decision(run, demo_items, "astrid/driving/cr", user="u", reason=" ")
    assert accepted.action == "accept" and accepted.reason == ACCEPT_REASON
    other = "irrelevant" if accepted.original_value == "relevant" else "relevant"
    with pytest.raises(InputError, match="reason"):
        make_astrid_decision(
            run, demo_items, "astrid/driving/cr", user="u", reason=" ", override=other
        )
    with pytest.raises(NotFoundError):
        make_astrid_decision(run, demo_items, "astrid/nope/cr", user="u", reason="r")


def test_report_shows_sentences_verdicts_and_grounding(repo, demo_items, scripted) -> None:
    store, run_id = run_demo(repo, demo_items, scripted)
    report = run_report(store, run_id)
    item = next(i for i in report["items"] if i["item_id"] == "drops-frequency")
    assert [s["runs"][0]["value"] for s in item["sentences"]] == [
        "conversational",
        "grounded",
        "grounded",
        "conversational",
    ]
    span = item["sentences"][1]["grounding"]
    chunk = item["context"][span["chunk"] - 1]
    assert chunk[span["start"] : span["end"]] == span["text"]
    assert "four times a day for four weeks" in span["text"]
    assert report["clinical"]["judge"]["targets"]["harmful"]["too_small"] is True
    assert "TOO SMALL" in report["clinical"]["judge"]["targets"]["harmful"]["note"]


# -- the command line -------------------------------------------------------------------


class _FakeServices:
    def __init__(self, repo: Repository, runtime) -> None:
        self.repo = repo
        self._runtime = runtime

    def runtime(self, name=None):
        return self._runtime


def cli(argv: list[str]) -> int:
    from concord.cli import astrid as astrid_cli

    parser = argparse.ArgumentParser(prog="concord")
    astrid_cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


@pytest.fixture
def fake_services(monkeypatch, repo, scripted):
    from concord.cli import astrid as astrid_cli

    fake = _FakeServices(repo, scripted)
    monkeypatch.setattr(astrid_cli, "services", lambda: fake)
    return fake


def test_cli_astrid_json_and_decide(fake_services, repo, capsys, monkeypatch) -> None:
    assert cli(["astrid", str(DEMO), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["items"]) == 14 and out["run_id"].startswith("QA-RUN-")
    assert set(out["agreement"]["rows"][0]["metrics"]) >= {"cf", "cr", "ra"}
    assert out["summary"]["refusal_accuracy_vs_scope"]["mean"] is not None
    enrol(repo, "dr_b", "clinician")
    monkeypatch.setenv("CONCORD_PASSWORD", PASSWORD)
    assert (
        cli(
            [
                "astrid-decide",
                out["run_id"],
                "--target",
                "astrid/knee-pain/ra",
                "--override",
                "attempts",
                "--reason",
                "it gives advice",
                "--user",
                "dr_b",
                "--json",
            ]
        )
        == 0
    )
    decided = json.loads(capsys.readouterr().out)
    assert decided["created"] and decided["decision"]["action"] == "accept"
    assert cli(["astrid-show", out["run_id"], "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["agreement"]["decisions_used"] == 1
    monkeypatch.setenv("CONCORD_USER", "dr_b")  # users exist now: jobs run signed in
    assert cli(["astrid", out["set_id"], "--runs", "2"]) == 0  # a stored set by id
    text = capsys.readouterr().out
    assert "agreement with human labels" in text and "scripted-judge" in text


def test_cli_bad_file_writes_nothing(fake_services, repo, tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("question,context\nQ,C\n", encoding="utf-8")
    with pytest.raises(InputError, match="missing column"):
        cli(["astrid", str(bad)])
    assert AstridStore(repo).list_sets() == [] and AstridStore(repo).run_ids() == []
