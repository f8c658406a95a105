"""The review record as JSON: the same content as the PDF, attached inside it.

Versioned (STYLE rule 14): `version` says which shape a record has, and `read_review_record`
reads every version this Concord knows into the current one.

* 1 -- ``"schema": "concord.review-record/1"``, no `version` field; decisions without
  `payload_version` (signed under decision payload version 1) and without chain positions;
  `decisions_in_force` chosen by the decisions' clock times.
* 2 -- `version`: 2; every decision carries its `payload_version` and its chain position
  `seq`, and the decision in force on a target is the last in chain order.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from concord.report._format import iso_utc

if TYPE_CHECKING:
    from concord.report.sections import ReviewContext

VERSION = 2
SCHEMA = f"concord.review-record/{VERSION}"
ATTACHMENT_NAME = "review-record.json"
_SCHEMA_PREFIX = "concord.review-record/"


def review_record(review: ReviewContext) -> dict[str, Any]:
    """JSON-ready dict: case, record identity, decisions, signature manifestation, audit head."""
    case, record, history = review.case, review.record, review.history
    seq, head_hash = review.audit_head
    return {
        "schema": SCHEMA,
        "version": VERSION,
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


def record_version(payload: dict[str, Any]) -> int:
    """The version of an attached record: its `version`, else the one its schema names."""
    version = payload.get("version")
    if isinstance(version, int) and not isinstance(version, bool):
        return version
    schema = str(payload.get("schema", ""))
    if schema.startswith(_SCHEMA_PREFIX) and schema[len(_SCHEMA_PREFIX) :].isdigit():
        return int(schema[len(_SCHEMA_PREFIX) :])
    raise ValueError("the attached review record names no version")


def read_review_record(payload: dict[str, Any]) -> dict[str, Any]:
    """An attached review record in the current shape, whichever version wrote it. A newer
    version than this Concord knows is refused (ValueError), never half read."""
    version = record_version(payload)
    if version > VERSION or version < 1:
        raise ValueError(
            f"the attached review record is version {version}; this Concord reads 1 to {VERSION}"
        )
    if version == 1:
        # decisions signed under payload version 1, positions unknown (read as None)
        decisions = [
            {**d, "payload_version": d.get("payload_version", 1)} if isinstance(d, dict) else d
            for d in payload.get("decisions", [])
        ]
        payload = {**payload, "version": 1, "decisions": decisions}
    return payload
