"""Saving and reading QA sets and judge runs. Each write is one transaction with its audit row."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from concord.astrid.items import HumanLabels, QaItem
from concord.astrid.questions import is_registered
from concord.astrid.results import ItemScore, QaRun, RepeatResult, Verdict
from concord.astrid.sentences import Sentence, split_sentences
from concord.errors import NotFoundError, StoreError
from concord.store import Repository, append_audit, write_transaction
from concord.store.codec import to_json, utc_iso, utc_now
from concord.store.sql import insert_row

NO_SENTENCE = -1
"""`sentence_index` stored for item-level verdicts (CR, RA)."""


def _flag(value: bool | None) -> int | None:
    return None if value is None else int(value)


def _bool(value: int | None) -> bool | None:
    return None if value is None else bool(value)


def set_content_sha256(items: Sequence[QaItem]) -> str:
    payload = [item.model_dump(mode="json") for item in items]
    return hashlib.sha256(to_json(payload).encode("utf-8")).hexdigest()


class AstridStore:
    """QA sets, items, runs, verdicts and scores, over the repository's database."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        self.db = repo.db

    # sets ------------------------------------------------------------------------------

    def save_set(
        self, items: Sequence[QaItem], *, name: str, source: str, user: str
    ) -> tuple[str, bool]:
        """Store a whole set at once. The same content again returns the stored set's id and
        False (audited as a duplicate import)."""
        digest = set_content_sha256(items)
        set_id = "QA-SET-" + digest[:12]
        with write_transaction(self.db):
            found = self.db.execute(
                "SELECT set_id FROM qa_sets WHERE content_sha256 = ?", [digest]
            ).fetchone()
            if found:
                set_id = found[0]
            else:
                self._insert_set(set_id, items, name=name, source=source, user=user, digest=digest)
            append_audit(
                self.db.conn,
                user=user,
                action="qa import" if not found else "qa import (duplicate)",
                entity=f"qa_set:{set_id}",
                new_value={"name": name, "items": len(items), "content_sha256": digest},
            )
        return set_id, not found

    def _insert_set(
        self,
        set_id: str,
        items: Sequence[QaItem],
        *,
        name: str,
        source: str,
        user: str,
        digest: str,
    ) -> None:
        conn = self.db.conn
        insert_row(
            conn,
            "qa_sets",
            {
                "set_id": set_id,
                "name": name,
                "source": source,
                "content_sha256": digest,
                "item_count": len(items),
                "imported_at": utc_iso(utc_now()),
                "imported_by": user,
            },
        )
        for position, item in enumerate(items):
            insert_row(
                conn,
                "qa_items",
                {
                    "set_id": set_id,
                    "item_id": item.item_id,
                    "position": position,
                    "question": item.question,
                    "context": to_json(list(item.context)),
                    "answer": item.answer,
                    "scope": None if item.scope is None else str(item.scope),
                    "labels": to_json(item.labels.model_dump(mode="json")),
                },
            )
            for s in split_sentences(item.answer):
                insert_row(
                    conn,
                    "qa_sentences",
                    {
                        "set_id": set_id,
                        "item_id": item.item_id,
                        "sentence_index": s.index,
                        "start": s.start,
                        "end": s.end,
                        "text": s.text,
                    },
                )

    def list_sets(self) -> list[dict[str, Any]]:
        return list(self.db.query("SELECT * FROM qa_sets ORDER BY imported_at, rowid"))

    def get_set(self, set_id: str) -> dict[str, Any]:
        rows = list(self.db.query("SELECT * FROM qa_sets WHERE set_id = ?", [set_id]))
        if not rows:
            raise NotFoundError("no such QA set", subject=set_id)
        return rows[0]

    def items(self, set_id: str) -> list[QaItem]:
        self.get_set(set_id)
        rows = self.db.query("SELECT * FROM qa_items WHERE set_id = ? ORDER BY position", [set_id])
        try:
            return [
                QaItem(
                    item_id=r["item_id"],
                    question=r["question"],
                    context=tuple(json.loads(r["context"])),
                    answer=r["answer"],
                    scope=r["scope"],
                    labels=HumanLabels.model_validate_json(r["labels"]),
                )
                for r in rows
            ]
        except (ValidationError, ValueError) as exc:
            raise StoreError(f"stored QA item is invalid: {exc}", subject=set_id) from exc

    def sentences(self, set_id: str, item_id: str) -> list[Sentence]:
        rows = self.db.query(
            'SELECT sentence_index, start, "end", text FROM qa_sentences '
            "WHERE set_id = ? AND item_id = ? ORDER BY sentence_index",
            [set_id, item_id],
        )
        return [Sentence(r["sentence_index"], r["start"], r["end"], r["text"]) for r in rows]

    # runs ------------------------------------------------------------------------------

    def save_run(self, run: QaRun, user: str) -> None:
        """The run with every verdict and score, and its audit row, in one transaction. A
        verdict of a question that is not registered is refused before anything is written
        (the check that replaced the SQL list of metrics, migration 9)."""
        unknown = sorted(
            {v.metric for r in run.repeats for v in r.verdicts if not is_registered(v.metric)}
        )
        if unknown:
            raise StoreError(
                "QA run cannot be stored: verdicts of judge questions that are not registered "
                f"({', '.join(unknown)})",
                subject=run.run_id,
            )
        with write_transaction(self.db):
            self.get_set(run.set_id)
            try:
                self._insert_run(run)
            except sqlite3.IntegrityError as exc:
                raise StoreError(f"QA run cannot be stored: {exc}", subject=run.run_id) from exc
            append_audit(
                self.db.conn,
                user=user,
                action="qa run",
                entity=f"qa_run:{run.run_id}",
                new_value={
                    "set_id": run.set_id,
                    "model": run.model_name,
                    "repeats": len(run.repeats),
                    "settings": run.settings,
                },
                model_sha256=run.model_sha256,
                prompt_version=run.prompt_sha256,
            )

    def _insert_run(self, run: QaRun) -> None:
        conn = self.db.conn
        insert_row(
            conn,
            "qa_runs",
            {
                "run_id": run.run_id,
                "set_id": run.set_id,
                "model_name": run.model_name,
                "model_sha256": run.model_sha256,
                "prompt_sha256": run.prompt_sha256,
                "started_at": utc_iso(run.started_at),
                "ended_at": utc_iso(run.ended_at),
                "repeats": len(run.repeats),
                "settings": to_json(run.settings),
            },
        )
        for rep in run.repeats:
            for v in rep.verdicts:
                insert_row(
                    conn,
                    "qa_verdicts",
                    {
                        "run_id": run.run_id,
                        "repeat": rep.repeat,
                        "item_id": v.item_id,
                        "metric": str(v.metric),
                        "sentence_index": NO_SENTENCE
                        if v.sentence_index is None
                        else v.sentence_index,
                        "value": _flag(v.value),
                        "reason": v.reason,
                        "attempts": v.attempts,
                        "status": str(v.status),
                        "error": v.error,
                        "raw": v.raw,
                    },
                )
            for s in rep.scores:
                insert_row(
                    conn,
                    "qa_scores",
                    {
                        "run_id": run.run_id,
                        "repeat": rep.repeat,
                        "item_id": s.item_id,
                        "seed": rep.seed,
                        "temperature": rep.temperature,
                        "cf": s.cf,
                        "n_informative": s.n_informative,
                        "n_grounded": s.n_grounded,
                        "n_ungrounded": s.n_ungrounded,
                        "cr": _flag(s.cr),
                        "ra_refused": _flag(s.ra_refused),
                        "ra_correct": _flag(s.ra_correct),
                        "complete": int(s.complete),
                    },
                )
                for name, value in s.values.items():
                    insert_row(
                        conn,
                        "qa_item_scores",
                        {
                            "run_id": run.run_id,
                            "repeat": rep.repeat,
                            "item_id": s.item_id,
                            "score": name,
                            "value": value,
                        },
                    )

    def run_ids(self, set_id: str | None = None) -> list[str]:
        sql = "SELECT run_id FROM qa_runs WHERE (:s IS NULL OR set_id = :s) ORDER BY started_at"
        return [r["run_id"] for r in self.db.query(sql, {"s": set_id})]

    def get_run(self, run_id: str) -> QaRun:
        rows = list(self.db.query("SELECT * FROM qa_runs WHERE run_id = ?", [run_id]))
        if not rows:
            raise NotFoundError("no such QA run", subject=run_id)
        head = rows[0]
        verdicts = list(
            self.db.query("SELECT * FROM qa_verdicts WHERE run_id = ? ORDER BY rowid", [run_id])
        )
        scores = list(
            self.db.query("SELECT * FROM qa_scores WHERE run_id = ? ORDER BY rowid", [run_id])
        )
        values: dict[tuple[int, str], dict[str, float | None]] = {}
        for row in self.db.query(
            "SELECT repeat, item_id, score, value FROM qa_item_scores WHERE run_id = ? "
            "ORDER BY rowid",
            [run_id],
        ):
            values.setdefault((row["repeat"], row["item_id"]), {})[row["score"]] = row["value"]
        repeats = []
        for rep in range(head["repeats"]):
            rep_scores = [s for s in scores if s["repeat"] == rep]
            seed, temperature = (
                (rep_scores[0]["seed"], rep_scores[0]["temperature"]) if rep_scores else (0, 0.0)
            )
            repeats.append(
                RepeatResult(
                    repeat=rep,
                    seed=seed,
                    temperature=temperature,
                    verdicts=tuple(
                        Verdict(
                            item_id=v["item_id"],
                            metric=v["metric"],
                            sentence_index=None
                            if v["sentence_index"] == NO_SENTENCE
                            else v["sentence_index"],
                            value=_bool(v["value"]),
                            reason=v["reason"],
                            attempts=v["attempts"],
                            status=v["status"],
                            error=v["error"],
                            raw=v["raw"],
                        )
                        for v in verdicts
                        if v["repeat"] == rep
                    ),
                    scores=tuple(
                        ItemScore(
                            item_id=s["item_id"],
                            repeat=rep,
                            cf=s["cf"],
                            n_informative=s["n_informative"],
                            n_grounded=s["n_grounded"],
                            n_ungrounded=s["n_ungrounded"],
                            cr=_bool(s["cr"]),
                            ra_refused=_bool(s["ra_refused"]),
                            ra_correct=_bool(s["ra_correct"]),
                            complete=bool(s["complete"]),
                            values=values.get((rep, s["item_id"]), {}),
                        )
                        for s in rep_scores
                    ),
                )
            )
        return QaRun(
            run_id=run_id,
            set_id=head["set_id"],
            model_name=head["model_name"],
            model_sha256=head["model_sha256"],
            prompt_sha256=head["prompt_sha256"],
            started_at=head["started_at"],
            ended_at=head["ended_at"],
            settings=json.loads(head["settings"]),
            repeats=tuple(repeats),
        )
