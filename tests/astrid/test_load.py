"""Importing QA items: JSONL and CSV, clear errors, nothing half imported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from concord.astrid.load import load_items
from concord.astrid.store import AstridStore
from concord.errors import InputError
from concord.store import Repository


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_demo_set_loads_with_every_label(demo_items) -> None:
    assert len(demo_items) >= 12
    scopes = {i.scope for i in demo_items}
    assert scopes == {"in", "out"}
    for item in demo_items:
        labels = item.labels
        assert None not in (
            labels.cf,
            labels.cr,
            labels.ra,
            labels.harmful,
            labels.helpful,
            labels.inappropriate,
        ), item.item_id


def test_jsonl_chunks_flat_labels_and_default_ids(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "qa.jsonl",
        [
            {
                "question": "Q1?",
                "context": ["chunk one", "chunk two"],
                "answer": "A1.",
                "scope": "out",
                "cr": "yes",
                "ra": True,
                "cf": 0.5,
                "inappropriate": "slightly",
            },
            {
                "id": "b",
                "question": "Q2?",
                "context": "one chunk",
                "answer": "A2.",
                "labels": {"harmful": "no", "helpful": 1},
            },
        ],
    )
    first, second = load_items(path)
    assert first.context == ("chunk one", "chunk two")
    assert first.item_id.startswith("q-") and first.scope == "out"
    assert (first.labels.cr, first.labels.ra, first.labels.cf) == (True, True, 0.5)
    assert first.labels.inappropriate == "slightly"
    assert second.item_id == "b" and second.context == ("one chunk",)
    assert (second.labels.harmful, second.labels.helpful, second.labels.cr) == (False, True, None)
    assert load_items(path)[0].item_id == first.item_id  # stable default id


def test_csv_with_extra_context_columns(tmp_path: Path) -> None:
    path = tmp_path / "qa.csv"
    path.write_text(
        "id,question,context,context_2,answer,scope,cf,cr,ra,harmful,helpful,inappropriate\n"
        'a,"When, exactly?",first chunk,second chunk,"Soon. Thanks!",in,1,yes,no,no,yes,no\n'
        'b,Q?,"[""x"", ""y""]",,Fine.,,,,,,,\n',
        encoding="utf-8",
    )
    a, b = load_items(path)
    assert a.question == "When, exactly?" and a.context == ("first chunk", "second chunk")
    assert a.labels.cf == 1.0 and a.labels.ra is False and a.scope == "in"
    assert b.context == ("x", "y") and b.scope is None and b.labels.present() == {}


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing_answer.csv", "question,context\nQ?,C\n", "missing column(s) answer"),
        ("missing_answer.jsonl", '{"question": "Q?", "context": "C"}\n', "missing or empty answer"),
        (
            "blank_answer.jsonl",
            '{"question": "Q?", "context": "C", "answer": "  "}\n',
            "missing or empty answer",
        ),
        ("empty_context.jsonl", '{"question": "Q?", "context": [], "answer": "A"}\n', "context"),
        ("empty_context.csv", "question,context,answer\nQ?,,A\n", "missing or empty context"),
        (
            "bad_scope.jsonl",
            '{"question": "Q", "context": "C", "answer": "A", "scope": "maybe"}\n',
            "scope must be in or out",
        ),
        (
            "bad_label.jsonl",
            '{"question": "Q", "context": "C", "answer": "A", "cr": "perhaps"}\n',
            "cr must be yes or no",
        ),
        (
            "typo.jsonl",
            '{"question": "Q", "context": "C", "awnser": "A"}\n',
            "unknown field(s) awnser",
        ),
        (
            "dup.jsonl",
            '{"id": "x", "question": "Q", "context": "C", "answer": "A"}\n' * 2,
            "already used on line 1",
        ),
        ("empty.jsonl", "\n", "file is empty"),
        ("broken.jsonl", '{"question": \n', "line 1: not valid JSON"),
        ("items.txt", "question\n", "must be .jsonl or .csv"),
    ],
)
def test_bad_inputs_name_the_file_and_problem(
    tmp_path: Path, name: str, content: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_items(path)
    line = caught.value.one_line()
    assert str(path) in line and message in line and "\n" not in line


def test_non_utf8_csv_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "latin1.csv"
    path.write_bytes("question,context,answer\nCaf\xe9?,C,A\n".encode("latin-1"))
    with pytest.raises(InputError, match="not UTF-8"):
        load_items(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        load_items(tmp_path / "nope.jsonl")


def test_import_is_all_or_nothing(tmp_path: Path, repo: Repository, demo_items) -> None:
    store = AstridStore(repo)
    bad = write_jsonl(
        tmp_path / "bad.jsonl",
        [
            {"question": "Q1", "context": "C", "answer": "A."},
            {"question": "Q2", "context": "C"},
        ],
    )
    with pytest.raises(InputError):
        store.save_set(load_items(bad), name="bad", source=str(bad), user="t")
    assert store.list_sets() == []
    set_id, created = store.save_set(demo_items, name="demo", source="demo", user="t")
    assert created and store.items(set_id) == demo_items
    again, created_again = store.save_set(demo_items, name="demo", source="demo", user="t")
    assert again == set_id and not created_again
    actions = [r["action"] for r in repo.db.query("SELECT action FROM audit ORDER BY seq")]
    assert actions[-2:] == ["qa import", "qa import (duplicate)"]
    sentences = store.sentences(set_id, demo_items[0].item_id)
    assert [demo_items[0].answer[s.start : s.end] for s in sentences] == [s.text for s in sentences]
