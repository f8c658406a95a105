"""A Decision to and from its row in `decisions`, and its content as the audit trail keeps it.

The audited content is versioned with the decision (`payload_version`, a column since
migration 5): content audited before that column existed is version 1 and is read as such
(`audited_decision`), so a row and its audited content compare equal column by column.
"""

from __future__ import annotations

from typing import Any

from concord.domain import Decision
from concord.store.codec import from_json, to_json, utc_iso

JSON_COLUMNS = ("original_value", "new_value", "shown", "spans")
NOT_STORED = frozenset({"seq"})
"""Decision fields that are not columns: the chain position is read from the audit trail."""


def decision_row(decision: Decision) -> dict[str, Any]:
    data = decision.model_dump(mode="json", exclude=set(NOT_STORED))
    row = {key: to_json(data[key]) if key in JSON_COLUMNS else data[key] for key in data}
    row["at"] = utc_iso(decision.at, what="decision time")
    row["blind"] = int(decision.blind)
    return row


def decision_from_row(row: dict[str, Any]) -> Decision:
    """Validated on the way out of SQLite (a `seq` column, when the query joined the audit
    trail, is the decision's chain position)."""
    data = {key: from_json(row[key]) if key in JSON_COLUMNS else row[key] for key in row}
    data["blind"] = bool(row["blind"])
    if data.get("payload_version") is None:
        data["payload_version"] = 1
    return Decision.model_validate(data)


def same_content(a: Decision, b: Decision) -> bool:
    """Equal once both have been through the store's JSON (tuples vs lists, time zones)."""
    return decision_row(a) == decision_row(b)


def audited_content(row: dict[str, Any]) -> dict[str, Any]:
    """The whole decisions row as the audit trail keeps it (`audit verify` compares the
    table with this, column by column)."""
    return dict(row)


def audited_decision(content: dict[str, Any]) -> dict[str, Any]:
    """Audited content read at the current format: before migration 5 it had no
    `payload_version` and was version 1."""
    if "payload_version" not in content:
        return {**content, "payload_version": 1}
    return content
