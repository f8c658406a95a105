"""One INSERT for the gateways that write rows as dicts (the repository, ASTRID, EVAL)."""

from __future__ import annotations

import sqlite3
from typing import Any


def insert_row(conn: sqlite3.Connection, table: str, row: dict[str, Any]) -> None:
    """INSERT one row; table and column names are the code's own, values are bound."""
    columns = ", ".join(f'"{c}"' for c in row)
    marks = ", ".join("?" for _ in row)
    conn.execute(f'INSERT INTO "{table}" ({columns}) VALUES ({marks})', tuple(row.values()))
