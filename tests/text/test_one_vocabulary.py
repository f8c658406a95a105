"""One vocabulary: a negation cue a clinician adds to resources/lexicon/context.json reaches
the record screen, evidence verification and the scorecard alike."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from concord import paths
from concord.adjudication.adjudicate import adjudicate
from concord.adjudication.config import load_scoring_config
from concord.adjudication.gates import addressing_items, contradicting_items
from concord.domain import BriefSection, DisagreementKind, GateStatus, Record, SourceDocument
from concord.errors import InputError
from concord.evidence.align import align_extract
from concord.screen.record_screen import RecordScreen
from concord.text.context_file import CONTEXT_FILE, negation_words, read_context_file
from tests.adjudication.helpers import brief, evidence_for, item

NEW_CUE = "unexposed to"
"""Not a cue today, and made of no word that is one."""
GATE = "bleomycin_exposure"


def _resources(tmp_path: Path, *, with_cue: bool) -> Path:
    root = tmp_path / ("with_cue" if with_cue else "as_shipped")
    shutil.copytree(paths.resources_dir(), root)
    if with_cue:
        path = root.joinpath(*CONTEXT_FILE)
        data = json.loads(path.read_text(encoding="utf-8"))
        data["negation"]["before_list"].append(NEW_CUE)
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    return root


def _record(text: str) -> Record:
    document = SourceDocument(source_id="note.txt", kind="txt", text=text)
    return Record(name="t", documents=(document,))


def _use(monkeypatch: pytest.MonkeyPatch, root: Path) -> RecordScreen:
    """The installation's resources are `root`, as after a clinician's edit and a restart."""
    monkeypatch.setenv(paths.RESOURCES_ENV, str(root))
    return RecordScreen.load()


def _status(screen: RecordScreen, text: str) -> GateStatus | None:
    hits = {h.gate_id: h.status for h in screen.screen(_record(text))}
    return hits.get(GATE)


def _scorecard(screen: RecordScreen):
    record = _record("Hodgkin lymphoma treated with ABVD x6 in 2015.\n")
    gates = screen.screen(record)
    assert {h.gate_id: h.status for h in gates}[GATE] is GateStatus.TRIGGERED
    evidence = [evidence_for(record, "E1", "Hodgkin lymphoma treated with ABVD x6 in 2015")]
    anaes = brief(
        "anaesthetist",
        record,
        [item(BriefSection.TOP_RISKS, 1, "Unexposed to bleomycin, usual FiO2")],
        evidence,
    )
    spec = brief(
        "oncology",
        record,
        [item(BriefSection.TOP_RISKS, 1, "Bleomycin exposure: keep FiO2 low")],
        evidence,
    )
    gate = next(g for g in gates if g.gate_id == GATE)
    rules = screen.definitions
    card = adjudicate(
        record,
        anaes,
        spec,
        gates,
        rules=rules,
        lexicon=screen.lexicon,
        config=load_scoring_config(),
    )
    return card, addressing_items(anaes, gate, rules), contradicting_items(anaes, gate, rules)


def test_a_negation_cue_added_to_the_context_file_reaches_every_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = "PMH: Hodgkin lymphoma 2015. Unexposed to bleomycin.\n"

    # As shipped, "unexposed to" is no cue: the screen fires, the quote is faithful, and the
    # brief that says it addresses the gate.
    screen = _use(monkeypatch, _resources(tmp_path, with_cue=False))
    assert NEW_CUE not in negation_words().before
    assert _status(screen, note) is GateStatus.TRIGGERED
    assert align_extract(_record(note), "bleomycin").verified
    card, addressing, contradicting = _scorecard(screen)
    assert addressing and not contradicting
    assert card.subscore("critical_items").value == 1.0
    assert not any(d.kind is DisagreementKind.CONFLICT for d in card.disagreements)

    # The clinician adds it to negation.before_list: the screen reads the mention as
    # negated, the verifier refuses a quote that leaves the cue out, and the scorecard
    # reads the bullet as denying the gate (a conflict, and the gate missed).
    screen = _use(monkeypatch, _resources(tmp_path, with_cue=True))
    assert NEW_CUE in negation_words().before
    assert _status(screen, note) is GateStatus.NEGATED
    quote = align_extract(_record(note), "bleomycin")
    assert not quote.verified and "context_cut" in quote.flags
    assert align_extract(_record(note), "Unexposed to bleomycin").verified
    card, addressing, contradicting = _scorecard(screen)
    assert contradicting and not addressing
    assert card.subscore("critical_items").value < 1.0 and card.capped
    assert any(
        d.kind is DisagreementKind.CONFLICT and d.gate_id == GATE for d in card.disagreements
    )


def test_the_context_file_is_validated_once_with_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "context.json"
    data = json.loads(paths.resources_dir().joinpath(*CONTEXT_FILE).read_text("utf-8"))
    del data["negation"]["after"]
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError, match=r"invalid context file at negation\.after"):
        read_context_file(path)
