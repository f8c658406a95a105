from __future__ import annotations

from pathlib import Path

import pytest

from concord.errors import InputError
from concord.eval.configs import GenerationConfig
from concord.eval.eval_store import EvalStore
from concord.eval.generate import generate_answers
from concord.eval.questions import load_question_set
from concord.llm.scripted import SCRIPTED_SHA256, ScriptedRuntime
from concord.paths import resources_dir
from tests.eval.helpers import make_answers


def test_the_demo_set_loads() -> None:
    qset = load_question_set(resources_dir() / "demo" / "eval_questions.jsonl")
    assert len(qset.questions) >= 5
    assert all(2 <= len(q.answers) <= 3 for q in qset.questions)
    assert qset.set_id.startswith("EV-")


def test_csv_groups_rows_by_question(tmp_path: Path) -> None:
    path = tmp_path / "q.csv"
    path.write_text(
        "question_id,question,expert,answer\n"
        "a,What is K+ limit?,E1,Six\n"
        "a,What is K+ limit?,E2,6.0 mmol/L\n"
        "b,Stent timing?,E1,Six months\n",
        encoding="utf-8",
    )
    qset = load_question_set(path)
    assert [len(q.answers) for q in qset.questions] == [2, 1]
    assert qset.questions[0].answers[1].expert == "E2"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"id": "a", "question": "Q?", "answers": []}\n', "line 1"),
        ('{"id": "a", "question": "Q?", "answers": ["x"]}\nnot json\n', "line 2 is not JSON"),
        ('{"id": "a", "question": "Q?", "answers": ["x"]}\n' * 2, "duplicate question id"),
        ("", "no questions"),
    ],
)
def test_bad_files_name_the_problem(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=problem) as info:
        load_question_set(path)
    assert str(path) in str(info.value)


def test_import_is_idempotent_and_audited(store: EvalStore, question_file: Path) -> None:
    qset = load_question_set(question_file)
    first = store.import_set(qset, "f", "ann")
    assert store.import_set(qset, "f", "ann") == (first[0], False)
    questions = store.questions(first[0])
    assert [len(q.golden) for q in questions] == [2, 2]
    assert store.repo.audit_rows()[-1].action == "eval import"
    assert store.repo.verify_audit().ok


def test_generation_stores_k_answers_with_config_hash_and_resumes(
    store: EvalStore, set_id: str
) -> None:
    make_answers(store, set_id, temperatures=(0.2,), k=2)
    answers = store.answers(set_id)
    config = GenerationConfig("scripted", SCRIPTED_SHA256, 0.2, False)
    assert len(answers) == 4 and {a.config_hash for a in answers} == {config.config_hash}
    assert len({a.seed for a in answers}) == 4  # each sample has its own seed
    runtime = ScriptedRuntime(["third q1", "third q2"])
    events = list(generate_answers(store, runtime, set_id, config, 3, "ann"))
    assert [e.skipped for e in events] == [True, True, False, True, True, False]
    assert len(store.answers(set_id)) == 6


def test_context_config_puts_the_passage_in_the_prompt(store: EvalStore, set_id: str) -> None:
    runtime = ScriptedRuntime(["ok"] * 2)
    config = GenerationConfig("scripted", SCRIPTED_SHA256, 0.0, True)
    list(generate_answers(store, runtime, set_id, config, 1, "ann"))
    assert "Omit apixaban for 48 hours." in runtime.requests[0].prompt
    plain = GenerationConfig("scripted", SCRIPTED_SHA256, 0.0, False)
    assert plain.config_hash != config.config_hash
