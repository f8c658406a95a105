"""ASTRID scores as a registry in long format: a score registered in one place is computed,
stored and shown; runs stored before the long format (schema 7) read the same after
migration 8, and the audit chain still verifies."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlite_utils import Database

from concord.astrid.llm_judge import judge_items
from concord.astrid.report import run_report
from concord.astrid.scores import ScoreInputs, item_score, item_scores, unregister_score
from concord.astrid.store import AstridStore
from concord.integrity.verify import verify_installation
from concord.llm.scripted import ScriptedRuntime
from concord.store import MIGRATIONS, Repository, migrate
from tests.architecture.test_how_to_add import readme_section
from tests.astrid.helpers import rule_judge


@pytest.fixture
def ungrounded_share() -> Iterator[str]:
    """The README's example: the share of information-containing sentences not grounded."""

    @item_score("ungrounded_share", label="Ungrounded share")
    def _share(inputs: ScoreInputs) -> float:
        counts = inputs.cf_counts
        return 0.0 if counts.n == 0 else counts.u / counts.n

    yield "ungrounded_share"
    unregister_score("ungrounded_share")


def test_a_registered_score_is_scored_stored_and_shown(
    ungrounded_share: str, repo: Repository, demo_items
) -> None:
    page = readme_section("How to add a metric")
    assert "@item_score" in page and "qa_item_scores" in page
    store = AstridStore(repo)
    set_id, _ = store.save_set(demo_items, name="demo", source="demo", user="t")
    run = list(judge_items(ScriptedRuntime(rule_judge()), demo_items, set_id))[-1].run
    store.save_run(run, "t")

    stored = store.get_run(run.run_id)
    assert stored == run  # every score, the new one included, reads back
    scores = stored.repeat().scores
    for s in scores:
        expected = 0.0 if s.n_informative == 0 else s.n_ungrounded / s.n_informative
        assert s.values[ungrounded_share] == pytest.approx(expected)
        assert (s.values["cf"], s.values["cr"]) == (s.cf, float(s.cr))  # built-ins agree
    assert any(s.values[ungrounded_share] > 0 for s in scores)  # the rule judge's tap water
    rows = repo.db.execute(
        "SELECT count(*) FROM qa_item_scores WHERE run_id = ? AND score = ?",
        [run.run_id, ungrounded_share],
    ).fetchone()[0]
    assert rows == len(demo_items)

    report = run_report(store, run.run_id, clinical=False)
    shown = {i["item_id"]: i for i in report["items"]}
    some = next(s for s in scores if s.values[ungrounded_share] > 0)
    item = shown[some.item_id]
    assert item["runs"][0]["scores"][ungrounded_share] == some.values[ungrounded_share]
    assert item["scores"][ungrounded_share]["label"] == "Ungrounded share"


def test_a_score_outside_zero_to_one_is_refused(demo_items) -> None:
    @item_score("broken", label="Broken")
    def _broken(inputs: ScoreInputs) -> float:
        return 2.0

    try:
        with pytest.raises(ValueError, match="broken gave 2.0"):
            list(judge_items(ScriptedRuntime(rule_judge()), demo_items[:1], "QA-SET-x"))
    finally:
        unregister_score("broken")
    assert "broken" not in {s.name for s in item_scores()}


def test_runs_stored_before_long_format_read_the_same_after_migration(
    concord_home: Path, demo_items
) -> None:
    path = concord_home / "concord.sqlite"
    conn = sqlite3.connect(str(path))
    conn.execute("PRAGMA foreign_keys=ON")
    db = Database(conn)
    assert migrate(db, MIGRATIONS[:7]) == 7  # the schema before this change
    old = Repository(db)
    store = AstridStore(old)
    set_id, _ = store.save_set(demo_items, name="demo", source="demo", user="t")
    run = list(judge_items(ScriptedRuntime(rule_judge()), demo_items, set_id))[-1].run
    # what the code before the registry stored: no long rows (the table did not exist)
    before = run.model_copy(
        update={
            "repeats": tuple(
                r.model_copy(
                    update={"scores": tuple(s.model_copy(update={"values": {}}) for s in r.scores)}
                )
                for r in run.repeats
            )
        }
    )
    store.save_run(before, "t")
    db.close()

    repo = Repository.open()  # migration 8 runs here
    try:
        version = repo.db.execute("SELECT max(version) FROM schema_version").fetchone()[0]
        assert version == MIGRATIONS[-1].version
        read = AstridStore(repo).get_run(run.run_id)
        assert read == run  # the four scores, from the copied rows, as computed
        assert verify_installation(repo, home=concord_home).ok
    finally:
        repo.close()
