"""A run the model refuses before decoding (the record does not fit its context) is a
failed run: stored as failed, with a plain-language reason and what to do, on the worklist;
never a stack of token counts."""

from __future__ import annotations

from concord import paths
from concord.domain import CaseStatus
from concord.errors import RecordTooLong
from concord.llm.runtime import GenerationRequest
from concord.llm.scripted import ScriptedRuntime
from concord.pipeline import PanelSettings, run_panel
from concord.records import load_record
from concord.services import Services
from concord.workbench.triage import Urgency
from concord.workbench.worklist import load_worklist

DEMO = paths.resources_dir() / "demo" / "03_ckd_hyperkalaemia.json"


def refuse(request: GenerationRequest) -> str:
    raise RecordTooLong(
        "the record is too long for the model's context: the prompt takes 2100 of the 2048 "
        "tokens it reads at once, leaving 0 for the answer (it needs 256)",
        subject="gemma",
    )


def test_a_refused_run_is_stored_as_failed_and_says_what_to_do() -> None:
    svc = Services()
    try:
        record = load_record(DEMO)
        svc.repo.save_record(record, "tester")
        events = list(
            run_panel(
                record,
                ScriptedRuntime(refuse),
                profiles=svc.profiles,
                screen=svc.screen,
                lexicon=svc.lexicon,
                config=svc.config,
                settings=PanelSettings(judges=0),
            )
        )
        case = events[-1].case
        assert case is not None and case.initial_status == CaseStatus.RUN_FAILED
        assert "hyperkalaemia" in [g.gate_id for g in case.red_flags]  # the screen stays
        svc.repo.save_case(case, "tester")
        assert svc.repo.case_status(case.case_id) == CaseStatus.RUN_FAILED
        (row,) = load_worklist(svc.repo).rows
        assert row.urgency() == Urgency.RUN_FAILED
        assert "too long for this model" in row.run_problem
        assert "split the record" in row.run_problem
        assert "n_ctx" not in row.run_problem and "token" not in row.run_problem
        assert "n_ctx" not in events[-1].message
    finally:
        svc.close()
