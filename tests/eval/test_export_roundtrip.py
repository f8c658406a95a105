"""The labels export holds every decision in the database once, EVAL grades included, and
nothing else."""

from __future__ import annotations

import csv
import json
from datetime import UTC, datetime
from pathlib import Path

from concord.domain import Decision, DecisionAction
from concord.eval.eval_store import EvalStore
from concord.eval.grading import grade_decision, record_grade
from concord.store import export_labels_csv, export_labels_jsonl
from concord.store.export import DECISION_FIELDS
from tests.eval.helpers import make_answers
from tests.identity import enrol


def test_every_decision_appears_once_and_nothing_else(
    store: EvalStore, set_id: str, tmp_path: Path
) -> None:
    make_answers(store, set_id, temperatures=(0.2,), k=2)
    ann = enrol(store.repo, "ann", "annotator")
    for n, answer in enumerate(store.answers(set_id)):
        record_grade(
            store.repo,
            ann,
            grade_decision(
                store,
                answer.answer_id,
                "good" if n % 2 else "bad",
                user="ann",
                reason=f"graded {n}",
                blind=True,
            ),
        )
    other = Decision(
        decision_id="D-gate-1",
        case_id="C-1",
        target_id="gate/hyperkalaemia",
        target_kind="gate",
        action=DecisionAction.ACCEPT,
        original_value="triggered",
        new_value="triggered",
        reason="seen",
        user="doc",
        at=datetime.now(UTC),
        shown={"model_sha256": "m"},
        spans=({"source_id": "d", "start": 0, "end": 2, "text": "K+"},),
    )
    store.repo.append_decision(other)
    store.repo.append_decision(other)  # a retry is not a second label

    out = tmp_path / "labels.jsonl"
    result = export_labels_jsonl(store.repo, out)
    exported = [
        Decision.model_validate({k: v for k, v in json.loads(line).items() if k in DECISION_FIELDS})
        for line in out.read_text(encoding="utf-8").splitlines()
    ]
    in_db = store.repo.decisions()
    assert result.rows == len(exported) == len(in_db) == 5
    assert sorted(d.decision_id for d in exported) == sorted(d.decision_id for d in in_db)
    assert len({d.decision_id for d in exported}) == len(exported)
    assert {d.decision_id: d for d in exported} == {d.decision_id: d for d in in_db}
    grades = [d for d in exported if d.target_kind == "eval_grade"]
    assert len(grades) == 4
    first = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    assert first["target_id"].startswith("eval/EA-") and first["original_value"] is None
    assert {"model_sha256", "prompt_sha256", "inputs_sha256"} <= set(first["shown"])
    assert first["blind"] is True and first["user"] == "ann"

    csv_out = tmp_path / "labels.csv"
    export_labels_csv(store.repo, csv_out)
    with csv_out.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted(r["decision_id"] for r in rows) == sorted(d.decision_id for d in in_db)
