"""The signed statements of enrolment and revocation, versioned (STYLE rule 14).

A statement is stored whole in its audit row and signed as canonical JSON of its fields
(`credentials.statement_bytes`). Each kind has a frozen field list per version; a statement
without `version` is version 1. A statement whose fields are not exactly its version's list
(an unsigned field riding along, a field missing) is not accepted, whatever its signature.
A new field is a new version with a new list; never edit a released one.
"""

from __future__ import annotations

from typing import Any

STATEMENT_FIELDS: dict[str, dict[int, tuple[str, ...]]] = {
    "enrolment": {
        1: ("name", "role", "skeleton", "public_key", "cert_fingerprint", "enrolled_by", "at"),
    },
    "renewal": {
        1: (
            "name",
            "role",
            "skeleton",
            "public_key",
            "cert_fingerprint",
            "enrolled_by",
            "renews",
            "at",
        ),
    },
    "revocation": {
        1: ("name", "revoked_by", "reason", "at"),
    },
    "setting": {
        1: ("key", "value", "set_by", "at"),
    },
    "acceptance": {  # site validation: a clinician and an admin accept (model, resources)
        1: (
            "acceptance_id",
            "validation_id",
            "validation_kind",
            "report_sha256",
            "model_sha256",
            "model_name",
            "resources",
            "policy_sha256",
            "clinician",
            "admin",
            "reason",
            "at",
        ),
    },
    "resources sign-off": {  # a clinician lets a change of resources drop confirmed findings
        1: ("kind", "validation_id", "candidate", "dropped", "user", "reason", "at"),
    },
}


def statement_version(statement: dict[str, Any]) -> int:
    version = statement.get("version", 1)
    return version if isinstance(version, int) and not isinstance(version, bool) else -1


def enrolment_kind(statement: dict[str, Any]) -> str:
    """An enrolment, or the renewal of one (a password change: new keys, `renews` the old)."""
    return "renewal" if "renews" in statement else "enrolment"


def statement_problem(kind: str, statement: dict[str, Any]) -> str | None:
    """Why `statement` is not a well-formed `kind` statement of a known version (None: it is)."""
    version = statement_version(statement)
    fields = STATEMENT_FIELDS[kind].get(version)
    if fields is None:
        return f"the {kind} statement is of unknown version {statement.get('version')!r}"
    present = set(statement) - {"version"}
    if present != set(fields):
        extra = sorted(present - set(fields))
        missing = sorted(set(fields) - present)
        return (
            f"the {kind} statement does not have version {version}'s fields"
            + (f" (extra: {', '.join(extra)})" if extra else "")
            + (f" (missing: {', '.join(missing)})" if missing else "")
        )
    return None
