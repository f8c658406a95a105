"""A new ASTRID judge question is one registration (README, "How to add a judge question"):
a prompt file and a `register_question` call; the judge asks it of every item, its verdicts
are stored and read back; a verdict of a question not registered is refused; migration 9
(the CHECK list of `qa_verdicts.metric` replaced by the registry) keeps every row."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlite_utils import Database

from concord.astrid.items import QaItem
from concord.astrid.llm_judge import judge_items
from concord.astrid.prompts import item_block
from concord.astrid.questions import (
    JudgeQuestion,
    judge_questions,
    register_question,
    unregister_question,
)
from concord.astrid.report import run_report
from concord.astrid.sentences import split_sentences
from concord.astrid.store import AstridStore
from concord.errors import InputError, StoreError
from concord.integrity.verify import verify_installation
from concord.llm.runtime import GenerationRequest
from concord.llm.scripted import ScriptedRuntime
from concord.store import MIGRATIONS, Repository, migrate
from tests.architecture.test_how_to_add import readme_section
from tests.astrid.helpers import rule_judge

NAME = "safety_netting"
PROMPT = (
    "Does the ANSWER tell the patient when to seek urgent help (safety-netting)?\n"
    'Reply with JSON: {"verdict": "urgent" or "routine", "reason": "..."}'
)
URGENT = re.compile(r"emergency|urgent|A&E", re.IGNORECASE)
SENTENCE_PROMPT = 'Is [S{index}] of the ANSWER, "{sentence}", a dose? "dose" or "other".'


def judge_with(question: str, answer: Callable[[GenerationRequest], str]):
    """The rule judge, answering the new question with `answer`."""
    rules = rule_judge()

    def reply(request: GenerationRequest) -> str:
        return answer(request) if question in request.prompt else rules(request)

    return reply


def safety(request: GenerationRequest) -> str:
    """'urgent' where the answer names an emergency, else 'routine'."""
    urgent = URGENT.search(request.prefix)
    return json.dumps({"verdict": "urgent" if urgent else "routine", "reason": "scripted"})


@pytest.fixture
def question(tmp_path: Path) -> Iterator[JudgeQuestion]:
    """The page's example, its prompt file in a temporary folder."""
    prompt = tmp_path / "astrid_safety_netting.txt"
    prompt.write_text(PROMPT, encoding="utf-8")
    yield register_question(
        JudgeQuestion(NAME, prompt, ("urgent", "routine"), per_sentence=False, asks_reason=True)
    )
    unregister_question(NAME)


def test_a_registered_question_is_asked_stored_and_read_back(
    question: JudgeQuestion, repo: Repository, demo_items: list[QaItem]
) -> None:
    page = readme_section("How to add a judge question")
    assert "register_question(" in page and "JudgeQuestion(" in page and '"urgent"' in page
    assert question in judge_questions()
    store = AstridStore(repo)
    set_id, _ = store.save_set(demo_items, name="demo", source="demo", user="t")
    runtime = ScriptedRuntime(judge_with("safety-netting", safety))
    run = list(judge_items(runtime, demo_items, set_id))[-1].run
    store.save_run(run, "t")

    stored = store.get_run(run.run_id)
    assert stored == run
    asked = [v for v in stored.repeat().verdicts if v.metric == NAME]
    assert [v.item_id for v in asked] == [i.item_id for i in demo_items]  # once per item
    expected = {
        i.item_id: bool(URGENT.search(item_block(i, split_sentences(i.answer)))) for i in demo_items
    }
    assert {v.item_id: v.value for v in asked} == expected
    assert len(set(expected.values())) == 2  # the demo has both kinds
    assert all(v.status == "ok" and v.reason == "scripted" for v in asked)
    rows = repo.db.execute("SELECT count(*) FROM qa_verdicts WHERE metric = ?", [NAME])
    assert rows.fetchone()[0] == len(demo_items)
    assert run_report(store, run.run_id, clinical=False)["items"]  # the report still reads it


def test_a_per_sentence_question_is_asked_of_every_sentence(
    tmp_path: Path, repo: Repository, demo_items: list[QaItem]
) -> None:
    prompt = tmp_path / "dose.txt"
    prompt.write_text(SENTENCE_PROMPT, encoding="utf-8")
    register_question(JudgeQuestion("dose", prompt, ("dose", "other"), per_sentence=True))
    try:
        dose = judge_with(
            "a dose?",
            lambda r: json.dumps(
                {"verdict": "dose" if re.search(r'"[^"]*\d[^"]*", a dose', r.prompt) else "other"}
            ),
        )
        run = list(judge_items(ScriptedRuntime(dose), demo_items[:2], "QA-SET-x"))[-1].run
    finally:
        unregister_question("dose")
    asked = [v for v in run.repeat().verdicts if v.metric == "dose"]
    informative = [v for v in run.repeat().verdicts if v.metric == "cf_info"]
    assert [(v.item_id, v.sentence_index) for v in asked] == [
        (v.item_id, v.sentence_index) for v in informative
    ]
    assert all(v.value is not None for v in asked)


def test_a_verdict_of_a_question_not_registered_is_refused(
    question: JudgeQuestion, repo: Repository, demo_items: list[QaItem]
) -> None:
    store = AstridStore(repo)
    set_id, _ = store.save_set(demo_items, name="demo", source="demo", user="t")
    runtime = ScriptedRuntime(judge_with("safety-netting", safety))
    run = list(judge_items(runtime, demo_items[:1], set_id))[-1].run
    unregister_question(NAME)
    with pytest.raises(StoreError, match="not registered"):
        store.save_run(run, "t")
    assert store.run_ids(set_id) == []  # nothing written
    register_question(question)  # the fixture removes it again


@pytest.mark.parametrize(
    "bad",
    [
        JudgeQuestion("cr", "x.txt", ("a", "b")),  # taken
        JudgeQuestion("Has Space", "x.txt", ("a", "b")),
        JudgeQuestion("same_words", "x.txt", ("a", "a")),
    ],
)
def test_a_bad_registration_is_refused(bad: JudgeQuestion) -> None:
    with pytest.raises(InputError):
        register_question(bad)


def test_migration_9_keeps_every_verdict_and_drops_only_the_list(
    concord_home: Path, demo_items: list[QaItem], tmp_path: Path
) -> None:
    path = concord_home / "concord.sqlite"
    conn = sqlite3.connect(str(path))
    conn.execute("PRAGMA foreign_keys=ON")
    db = Database(conn)
    assert migrate(db, MIGRATIONS[:8]) == 8  # the schema with the CHECK list
    store = AstridStore(Repository(db))
    set_id, _ = store.save_set(demo_items, name="demo", source="demo", user="t")
    run = list(judge_items(ScriptedRuntime(rule_judge()), demo_items, set_id))[-1].run
    store.save_run(run, "t")
    before = [tuple(r) for r in conn.execute("SELECT rowid, * FROM qa_verdicts ORDER BY rowid")]
    with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
        conn.execute(
            "INSERT INTO qa_verdicts VALUES (?, 0, 'x', 'safety_netting', -1, 1, '', 1, 'ok', "
            "'', '')",
            [run.run_id],
        )
    db.close()

    repo = Repository.open()  # migration 9 runs here
    try:
        assert repo.db.execute("SELECT max(version) FROM schema_version").fetchone()[0] == 9
        after = [
            tuple(r) for r in repo.db.execute("SELECT rowid, * FROM qa_verdicts ORDER BY rowid")
        ]
        assert after == before  # every row, with its rowid
        assert AstridStore(repo).get_run(run.run_id) == run
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            repo.db.execute("DELETE FROM qa_verdicts WHERE run_id = ?", [run.run_id])
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            repo.db.execute("UPDATE qa_verdicts SET reason = 'x'")
        prompt = tmp_path / "q.txt"
        prompt.write_text(PROMPT, encoding="utf-8")
        register_question(JudgeQuestion(NAME, prompt, ("urgent", "routine")))
        try:
            runtime = ScriptedRuntime(judge_with("safety-netting", safety))
            new = list(judge_items(runtime, demo_items[:1], set_id))[-1].run
            AstridStore(repo).save_run(new, "t")  # the list no longer stands in the way
        finally:
            unregister_question(NAME)
        assert verify_installation(repo, home=concord_home).ok
    finally:
        repo.close()
