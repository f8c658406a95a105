"""A Case flattened into the queryable rows stored beside its JSON."""

from __future__ import annotations

import hashlib
from typing import Any

from concord.domain import Brief, Case
from concord.store.codec import to_json, utc_iso, utc_now


def case_row(case: Case, status: str) -> dict[str, Any]:
    return {
        "case_id": case.case_id,
        "record_id": case.record_id,
        "created_at": utc_iso(case.created_at, what="case created_at"),
        "status": status,
        "worst_grade": case.worst_grade,
        "human_review": int(case.human_review),
        "model_sha256": case.model_sha256,
        "model_name": case.model_name,
        "config_version": case.config_version,
        "mode": None if case.mode is None else case.mode.value,
        "json": case.model_dump_json(),
    }


def brief_rows(case: Case) -> list[dict[str, Any]]:
    return [
        {
            "case_id": case.case_id,
            "agent": b.agent,
            "status": str(b.status),
            "failure_reason": b.failure_reason,
            "model_sha256": b.model_sha256,
            "prompt_sha256": b.prompt_sha256,
            "attempts": b.attempts,
            "items": len(b.items),
            "evidence": len(b.evidence),
            "verified_evidence": sum(e.alignment.verified for e in b.evidence),
        }
        for b in case.briefs
    ]


def _evidence_rows(case_id: str, brief: Brief) -> list[dict[str, Any]]:
    return [
        {
            "case_id": case_id,
            "agent": brief.agent,
            "evidence_id": e.evidence_id,
            "source_id": e.line.source_id,
            "locator": e.line.locator,
            "tag": e.line.tag,
            "extract": e.line.extract_text,
            "status": str(e.alignment.status),
            "start": e.alignment.start,
            "end": e.alignment.end,
            "score": e.alignment.score,
            "flags": to_json(list(e.alignment.flags)),
            "verified": int(e.alignment.verified),
        }
        for e in brief.evidence
    ]


def evidence_rows(case: Case) -> list[dict[str, Any]]:
    return [row for b in case.briefs for row in _evidence_rows(case.case_id, b)]


def gate_rows(case: Case) -> list[dict[str, Any]]:
    return [
        {
            "case_id": case.case_id,
            "gate_id": g.gate_id,
            "severity": str(g.severity),
            "status": str(g.status),
            "specialty": g.specialty,
            "detail": g.detail,
        }
        for g in case.gates
    ]


def scorecard_rows(case: Case) -> list[dict[str, Any]]:
    return [
        {
            "case_id": case.case_id,
            "specialist": s.specialist,
            "overall": s.overall,
            "grade": s.grade,
            "human_review": int(s.human_review),
            "capped": int(s.capped),
            "config_version": s.config_version,
            "judge_runs": s.judge_runs,
            "judge_spread": s.judge_spread,
        }
        for s in case.scorecards
    ]


def case_json_sha256(case: Case) -> str:
    """SHA-256 of the case JSON as stored in `cases.json` (what the audit row pins)."""
    return hashlib.sha256(case.model_dump_json().encode("utf-8")).hexdigest()


def prompt_hashes(case: Case) -> dict[str, str]:
    return {b.agent: b.prompt_sha256 for b in case.briefs}


def prompts_digest(case: Case) -> str:
    """One hash standing for every prompt used in the case (the audit's prompt_version)."""
    return hashlib.sha256(to_json(prompt_hashes(case)).encode("utf-8")).hexdigest()


def run_row(case: Case) -> dict[str, Any]:
    """The run that produced the case; it ended when the case was stored."""
    return {
        "run_id": f"{case.case_id}/run",
        "case_id": case.case_id,
        "model_sha256": case.model_sha256,
        "model_name": case.model_name,
        "prompt_sha256s": to_json(prompt_hashes(case)),
        "started_at": utc_iso(case.created_at, what="case created_at"),
        "ended_at": utc_iso(utc_now()),
        "timings": to_json(case.timings),
    }


CHILD_TABLES = {
    "briefs": brief_rows,
    "evidence": evidence_rows,
    "case_gates": gate_rows,
    "scorecards": scorecard_rows,
}
"""Tables filled from a case in `save_case`, beside the case row and the run row."""
