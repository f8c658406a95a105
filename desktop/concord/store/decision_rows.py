"""A Decision to and from its row in `decisions`."""

from __future__ import annotations

from typing import Any

from concord.domain import Decision
from concord.store.codec import from_json, to_json, utc_iso

JSON_COLUMNS = ("original_value", "new_value", "shown", "spans")


def decision_row(decision: Decision) -> dict[str, Any]:
    data = decision.model_dump(mode="json")
    row = {key: to_json(data[key]) if key in JSON_COLUMNS else data[key] for key in data}
    row["at"] = utc_iso(decision.at, what="decision time")
    row["blind"] = int(decision.blind)
    return row


def decision_from_row(row: dict[str, Any]) -> Decision:
    """Validated on the way out of SQLite."""
    data = {key: from_json(row[key]) if key in JSON_COLUMNS else row[key] for key in row}
    data["blind"] = bool(row["blind"])
    return Decision.model_validate(data)


def same_content(a: Decision, b: Decision) -> bool:
    """Equal once both have been through the store's JSON (tuples vs lists, time zones)."""
    return decision_row(a) == decision_row(b)


def audited_content(row: dict[str, Any]) -> dict[str, Any]:
    """The whole decisions row as the audit trail keeps it (`audit verify` compares the
    table with this, column by column)."""
    return dict(row)
