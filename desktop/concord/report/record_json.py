"""The review record as JSON: the same content as the PDF, attached inside it."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from typing import Any

from concord.domain import Case, Decision, Record
from concord.report._format import decision_history, iso_utc

SCHEMA = "concord.review-record/1"
ATTACHMENT_NAME = "review-record.json"


def review_record(
    case: Case,
    record: Record,
    decisions: list[Decision],
    *,
    signer_name: str,
    meaning: str,
    signed_at: dt.datetime,
    audit_head: tuple[int, str],
) -> dict[str, Any]:
    """JSON-ready dict: case, record identity, decisions, signature manifestation, audit head."""
    history = decision_history(decisions)
    seq, head_hash = audit_head
    return {
        "schema": SCHEMA,
        "case": case.model_dump(mode="json"),
        "record": {
            "name": record.name,
            "record_id": record.record_id,
            "content_sha256": record.content_hash,
            "operation": record.operation,
            "documents": [
                {
                    "source_id": d.source_id,
                    "title": d.title,
                    "kind": d.kind,
                    "chars": len(d.text),
                    "sha256": hashlib.sha256(d.text.encode("utf-8")).hexdigest(),
                }
                for d in record.documents
            ],
        },
        "decisions": [d.model_dump(mode="json") for chain in history.values() for d in chain],
        "decisions_in_force": {target: chain[-1].decision_id for target, chain in history.items()},
        "signature": {
            "printed_name": signer_name,
            "signed_at": iso_utc(signed_at),
            "meaning": meaning,
        },
        "audit_head": {"seq": seq, "hash": head_hash},
    }


def to_bytes(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, ensure_ascii=False, indent=2, sort_keys=True).encode("utf-8")
