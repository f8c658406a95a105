"""The review record as JSON: the same content as the PDF, attached inside it."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from concord.report._format import iso_utc

if TYPE_CHECKING:
    from concord.report.sections import ReviewContext

SCHEMA = "concord.review-record/1"
ATTACHMENT_NAME = "review-record.json"


def review_record(review: ReviewContext) -> dict[str, Any]:
    """JSON-ready dict: case, record identity, decisions, signature manifestation, audit head."""
    case, record, history = review.case, review.record, review.history
    seq, head_hash = review.audit_head
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
            "printed_name": review.signer_name,
            "signed_at": iso_utc(review.signed_at),
            "meaning": review.meaning,
        },
        "audit_head": {"seq": seq, "hash": head_hash},
        "review": {
            "reviewed": review.reviewed,
            "not_reviewed": review.not_reviewed,
            **(
                {
                    "judgements": review.tally.total,
                    "one_by_one": review.tally.one_by_one,
                    "bulk_accepted": review.tally.bulk_accepted,
                }
                if review.tally is not None
                else {}
            ),
        },
        "supersedes": (
            {
                "signature_id": review.supersedes.signature_id,
                "signer": review.supersedes.signer,
                "signed_at": iso_utc(review.supersedes.signed_at),
                "pdf_sha256": review.supersedes.pdf_sha256,
                "amended_targets": sorted({d.target_id for d in review.amended_after}),
            }
            if review.supersedes is not None
            else None
        ),
    }


def to_bytes(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, ensure_ascii=False, indent=2, sort_keys=True).encode("utf-8")
