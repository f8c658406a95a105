"""Why a run failed and what to do about it, in the words the worklist and the case page use."""

from __future__ import annotations

from concord.domain import Case
from concord.errors import RecordTooLong

RERUN_ADVICE = "re-run the panel, or review the record by hand"


def failure_text(case: Case) -> str:
    """ "Run failed: <why>. What to do: <advice>." for a failed case; "" otherwise."""
    why = case.run_failure
    if not why:
        return ""
    why = why.removeprefix("the anaesthetist brief failed: ")
    if RecordTooLong.PLAIN in why:
        return f"Run failed: {RecordTooLong.PLAIN}. What to do: {RecordTooLong.ADVICE}."
    return f"Run failed: {why.rstrip('.')}. What to do: {RERUN_ADVICE}."
