"""The tables of migration 5 ("labels"): each decision's provenance, gold items, the roots of
trusted installations and the label packages merged from other workstations. Each write is
one transaction with its audit row; nothing here is ever updated or deleted."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from concord.domain import Decision, LabelProvenance
from concord.errors import StoreError
from concord.store.audit import append_audit
from concord.store.codec import to_json, utc_iso, utc_now
from concord.store.decision_rows import decision_from_row, decision_row
from concord.store.repository import Repository
from concord.store.sql import insert_row
from concord.store.transaction import write_transaction


def append_provenance(
    conn: sqlite3.Connection, decision: Decision, provenance: LabelProvenance
) -> None:
    """Write a decision's provenance and its audit row (inside the caller's transaction,
    the one that appends the decision)."""
    row = provenance.row(decision.decision_id)
    insert_row(conn, "label_provenance", row)
    append_audit(
        conn,
        user=decision.user,
        action="label provenance",
        entity=f"decision:{decision.decision_id}",
        new_value=row,
    )


@dataclass(frozen=True)
class MergedLabel:
    """A label merged from another workstation's package, as its annotator signed it."""

    decision: Decision
    provenance: LabelProvenance
    package_id: str
    rater: str  # the annotator as this installation names them (name@installation)
    installation: str  # their installation's root certificate fingerprint


class LabelStore:
    """Provenance, gold items, trusted roots and merged packages, over the repository."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        self.db = repo.db

    # provenance ------------------------------------------------------------------------

    def provenance(self, decision_ids: Iterable[str] | None = None) -> dict[str, LabelProvenance]:
        """decision id -> provenance, for every decision that has one (decisions recorded
        before migration 5 have none)."""
        rows = self.db.query("SELECT * FROM label_provenance")
        wanted = None if decision_ids is None else set(decision_ids)
        return {
            r["decision_id"]: LabelProvenance.from_row(r)
            for r in rows
            if wanted is None or r["decision_id"] in wanted
        }

    # gold ------------------------------------------------------------------------------

    def seed_gold(self, set_id: str, item_ids: Iterable[str], user: str) -> list[str]:
        """Mark items of a set as gold; returns those newly marked (others already were)."""
        added: list[str] = []
        with write_transaction(self.db):
            held = self.gold_items().get(set_id, {})
            for item_id in item_ids:
                if item_id in held or item_id in added:
                    continue
                insert_row(
                    self.db.conn,
                    "gold_items",
                    {
                        "set_id": set_id,
                        "item_id": item_id,
                        "seeded_by": user,
                        "seeded_at": utc_iso(utc_now()),
                    },
                )
                added.append(item_id)
            if added:
                append_audit(
                    self.db.conn,
                    user=user,
                    action="gold seed",
                    entity=f"qa_set:{set_id}",
                    new_value={"items": added},
                )
        return added

    def gold_items(self) -> dict[str, dict[str, str]]:
        """set id -> item id -> who seeded it."""
        out: dict[str, dict[str, str]] = {}
        for r in self.db.query("SELECT * FROM gold_items ORDER BY rowid"):
            out.setdefault(r["set_id"], {})[r["item_id"]] = r["seeded_by"]
        return out

    # trusted installations -------------------------------------------------------------

    def add_trusted_root(self, statement: dict[str, Any], signature: str) -> bool:
        """Record an admin's signed statement that an installation's root is trusted.
        False when that root is already trusted."""
        with write_transaction(self.db):
            found = self.db.execute(
                "SELECT 1 FROM trusted_roots WHERE fingerprint = ?", [statement["fingerprint"]]
            ).fetchone()
            if found:
                return False
            row = {**statement, "signature": signature}
            insert_row(self.db.conn, "trusted_roots", row)
            append_audit(
                self.db.conn,
                user=statement["added_by"],
                action="labels trust",
                entity=f"root:{statement['fingerprint']}",
                new_value=row,
            )
        return True

    def trusted_roots(self) -> list[dict[str, Any]]:
        return list(self.db.query("SELECT * FROM trusted_roots ORDER BY rowid"))

    # merged packages -------------------------------------------------------------------

    def package_by_sha256(self, sha256: str) -> dict[str, Any] | None:
        rows = list(self.db.query("SELECT * FROM label_packages WHERE sha256 = ?", [sha256]))
        return rows[0] if rows else None

    def package(self, package_id: str) -> dict[str, Any] | None:
        rows = list(
            self.db.query("SELECT * FROM label_packages WHERE package_id = ?", [package_id])
        )
        return rows[0] if rows else None

    def known_decision_ids(self, decision_ids: Iterable[str]) -> set[str]:
        """Those of `decision_ids` already held: merged before, or recorded here."""
        ids = list(decision_ids)
        found: set[str] = set()
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" for _ in chunk)
            for table in ("merged_labels", "decisions"):
                sql = f"SELECT decision_id FROM {table} WHERE decision_id IN ({marks})"
                found.update(r[0] for r in self.db.execute(sql, chunk).fetchall())
        return found

    def save_package(
        self,
        package: dict[str, Any],
        labels: list[tuple[Decision, LabelProvenance]],
    ) -> None:
        """The package row and its labels, with one audit row, in one transaction."""
        if not labels:
            raise StoreError("a package with no label to merge", subject=package["package_id"])
        with write_transaction(self.db):
            try:
                insert_row(self.db.conn, "label_packages", {**package, "labels": len(labels)})
                for decision, provenance in labels:
                    insert_row(
                        self.db.conn,
                        "merged_labels",
                        {
                            "decision_id": decision.decision_id,
                            "package_id": package["package_id"],
                            "decision": to_json(decision_row(decision)),
                            "provenance": to_json(provenance.model_dump(mode="json")),
                        },
                    )
            except sqlite3.IntegrityError as exc:
                raise StoreError(
                    f"the package cannot be merged: {exc}", subject=package["package_id"]
                ) from exc
            append_audit(
                self.db.conn,
                user=package["merged_by"],
                action="labels merge",
                entity=f"label_package:{package['package_id']}",
                new_value={
                    **{k: v for k, v in package.items() if k != "certificate"},
                    "labels": len(labels),
                    "decision_ids": [d.decision_id for d, _ in labels],
                },
            )

    def merged_labels(self) -> list[MergedLabel]:
        """Every merged label, in merge order."""
        sql = (
            "SELECT m.decision, m.provenance, m.package_id, p.rater, p.installation "
            "FROM merged_labels m JOIN label_packages p ON p.package_id = m.package_id "
            "ORDER BY m.rowid"
        )
        out = []
        for r in self.db.query(sql):
            out.append(
                MergedLabel(
                    decision=decision_from_row(json.loads(r["decision"])),
                    provenance=LabelProvenance.model_validate_json(r["provenance"]),
                    package_id=r["package_id"],
                    rater=r["rater"],
                    installation=r["installation"],
                )
            )
        return out

    def packages(self) -> list[dict[str, Any]]:
        return list(self.db.query("SELECT * FROM label_packages ORDER BY rowid"))
