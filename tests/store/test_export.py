from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from concord.domain import Decision
from concord.store import Repository, export_labels_csv, export_labels_jsonl
from concord.store import export as export_module
from concord.store.export import DECISION_FIELDS, PROVENANCE_FIELDS
from tests import factories as f


def decision_of(line: dict[str, object]) -> Decision:
    """The decision an export line carries (its provenance columns left aside)."""
    return Decision.model_validate({k: line[k] for k in DECISION_FIELDS})


@pytest.fixture
def decided(repo: Repository) -> list[Decision]:
    decisions = [
        f.decision("D-1"),
        f.decision("D-2", target_id="gate/hyperkalaemia", override={"status": "negated"}),
        f.decision("D-3", case_id="QA-1", target_id="qa/1/cf", blind=True, spans=()),
    ]
    for d in decisions:
        repo.append_decision(d)
    repo.append_decision(decisions[0])  # a retried write must not duplicate the label
    return decisions


def test_jsonl_holds_every_decision_exactly_once(
    repo: Repository, decided: list[Decision], tmp_path: Path
) -> None:
    out = tmp_path / "labels.jsonl"
    result = export_labels_jsonl(repo, out)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert result.rows == len(lines) == 3
    assert [decision_of(json.loads(line)) for line in lines] == decided
    first = json.loads(lines[1])
    assert first["original_value"] == 0.5 and first["new_value"] == {"status": "negated"}
    assert first["spans"][0]["text"] == "K+ 6.3"
    assert first["shown"]["prompt_sha256"] == "p-renal"
    assert first["at"].endswith("+00:00")
    assert repo.audit_rows()[-1].action == "export (labels jsonl)"


def test_csv_has_the_same_labels(repo: Repository, decided: list[Decision], tmp_path: Path) -> None:
    out = tmp_path / "labels.csv"
    export_labels_csv(repo, out)
    with out.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["decision_id"] for r in rows] == ["D-1", "D-2", "D-3"]
    assert json.loads(rows[1]["new_value"]) == {"status": "negated"}
    assert rows[2]["blind"] == "True"


def test_an_empty_database_exports_an_empty_file(repo: Repository, tmp_path: Path) -> None:
    out = tmp_path / "labels.jsonl"
    assert export_labels_jsonl(repo, out).rows == 0
    assert out.read_text() == ""


def test_a_failed_export_leaves_the_previous_file_untouched(
    repo: Repository, decided: list[Decision], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "labels.jsonl"
    out.write_text("previous export\n")
    head = repo.audit_head()

    def broken(labels: list[dict[str, object]]):  # type: ignore[no-untyped-def]
        def write(handle):  # type: ignore[no-untyped-def]
            handle.write("half a line")
            raise OSError("disk full")

        return write

    monkeypatch.setattr(export_module, "_write_jsonl", broken)
    with pytest.raises(OSError, match="disk full"):
        export_labels_jsonl(repo, out)
    assert out.read_text() == "previous export\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["concord-home", "labels.jsonl"]
    assert repo.audit_head() == head


def test_every_line_carries_the_provenance_columns_null_where_not_recorded(
    repo: Repository, decided: list[Decision], tmp_path: Path
) -> None:
    out = tmp_path / "labels.jsonl"
    export_labels_jsonl(repo, out)
    for line in out.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        assert {*PROVENANCE_FIELDS, "blind", "unsafe", "rater", "origin"} <= set(row)
        assert all(row[k] is None for k in PROVENANCE_FIELDS)  # recorded before provenance
        assert row["unsafe"] is None and row["origin"] == "local"
    csv_out = tmp_path / "labels.csv"
    export_labels_csv(repo, csv_out)
    header = csv_out.read_text(encoding="utf-8").splitlines()[0].split(",")
    for column in ("blind", "bulk", "golden_shown", "seconds_on_item", "unsafe"):
        assert column in header
