"""The eval tables behind the Repository's connection: every multi-row write is one
transaction with its audit row."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from concord.errors import NotFoundError, StoreError
from concord.eval.configs import GenerationConfig
from concord.eval.questions import QuestionSetIn
from concord.eval.rows import Answer, ConfigRow, EvalSet, Golden, Prediction, Question, Similarity
from concord.llm.runtime import Generation
from concord.store import Repository, append_audit, write_transaction
from concord.store.codec import from_json, to_json, utc_iso, utc_now
from concord.store.sql import insert_row


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def answer_id_for(question_id: str, config_hash: str, sample: int) -> str:
    digest = hashlib.sha256(f"{question_id}|{config_hash}|{sample}".encode()).hexdigest()
    return "EA-" + digest[:12]


_ANSWERS = """
SELECT a.*, c.temperature FROM eval_answers a
  JOIN eval_configs c ON c.config_hash = a.config_hash
  JOIN eval_questions q ON q.question_id = a.question_id
 WHERE (:set IS NULL OR q.set_id = :set)
   AND (:config IS NULL OR a.config_hash = :config)
 ORDER BY q.position, c.created_at, a.config_hash, a.sample
"""


class EvalStore:
    """Question sets, configurations, answers, embeddings, reward models, predictions."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        self.db = repo.db

    # question sets ---------------------------------------------------------------------

    def import_set(self, qset: QuestionSetIn, source: str, user: str) -> tuple[str, bool]:
        """Store a question set with its golden answers. Same content again: (id, False)."""
        set_id = qset.set_id
        with write_transaction(self.db):
            found = self.db.execute(
                "SELECT set_id FROM eval_sets WHERE content_hash = ?", [qset.content_hash]
            ).fetchone()
            if found:
                return found[0], False
            conn = self.db.conn
            insert_row(
                conn,
                "eval_sets",
                {
                    "set_id": set_id,
                    "name": qset.name,
                    "source": source,
                    "content_hash": qset.content_hash,
                    "imported_at": utc_iso(utc_now()),
                    "imported_by": user,
                },
            )
            for position, q in enumerate(qset.questions):
                question_id = f"{set_id}/{q.id}"
                insert_row(
                    conn,
                    "eval_questions",
                    {
                        "question_id": question_id,
                        "set_id": set_id,
                        "position": position,
                        "label": q.id,
                        "text": q.question,
                        "context": q.context,
                    },
                )
                for n, golden in enumerate(q.answers, start=1):
                    insert_row(
                        conn,
                        "eval_golden",
                        {
                            "golden_id": f"{question_id}/G{n}",
                            "question_id": question_id,
                            "expert": golden.expert,
                            "text": golden.text,
                        },
                    )
            append_audit(
                conn,
                user=user,
                action="eval import",
                entity=f"eval_set:{set_id}",
                new_value={
                    "name": qset.name,
                    "questions": len(qset.questions),
                    "content_hash": qset.content_hash,
                    "source": source,
                },
            )
        return set_id, True

    def sets(self) -> list[EvalSet]:
        rows = self.db.query("SELECT * FROM eval_sets ORDER BY imported_at, rowid")
        return [EvalSet.model_validate(r) for r in rows]

    def get_set(self, set_id: str) -> EvalSet:
        rows = list(self.db.query("SELECT * FROM eval_sets WHERE set_id = ?", [set_id]))
        if not rows:
            raise NotFoundError("no such question set (see `concord eval sets`)", subject=set_id)
        return EvalSet.model_validate(rows[0])

    def questions(self, set_id: str) -> list[Question]:
        self.get_set(set_id)
        golden: dict[str, list[Golden]] = {}
        for row in self.db.query(
            "SELECT g.* FROM eval_golden g JOIN eval_questions q USING (question_id)"
            " WHERE q.set_id = ? ORDER BY g.rowid",
            [set_id],
        ):
            golden.setdefault(row["question_id"], []).append(Golden.model_validate(row))
        rows = self.db.query(
            "SELECT * FROM eval_questions WHERE set_id = ? ORDER BY position", [set_id]
        )
        return [
            Question.model_validate({**r, "golden": golden.get(r["question_id"], [])}) for r in rows
        ]

    # configurations and answers --------------------------------------------------------

    def save_config(self, config: GenerationConfig) -> str:
        """Insert the configuration if new (idempotent); returns its hash."""
        with write_transaction(self.db):
            if not self.db.execute(
                "SELECT 1 FROM eval_configs WHERE config_hash = ?", [config.config_hash]
            ).fetchone():
                insert_row(
                    self.db.conn,
                    "eval_configs",
                    {
                        "config_hash": config.config_hash,
                        "model_name": config.model_name,
                        "model_sha256": config.model_sha256,
                        "temperature": config.temperature,
                        "use_context": int(config.use_context),
                        "max_tokens": config.max_tokens,
                        "prompt_sha256": config.prompt_sha256,
                        "json": to_json(config.identity()),
                        "created_at": utc_iso(utc_now()),
                    },
                )
        return config.config_hash

    def configs(self, set_id: str | None = None) -> list[ConfigRow]:
        sql = """SELECT DISTINCT c.* FROM eval_configs c
                   JOIN eval_answers a ON a.config_hash = c.config_hash
                   JOIN eval_questions q ON q.question_id = a.question_id
                  WHERE (:set IS NULL OR q.set_id = :set) ORDER BY c.created_at, c.rowid"""
        return [ConfigRow.model_validate(r) for r in self.db.query(sql, {"set": set_id})]

    def get_config(self, config_hash: str) -> ConfigRow:
        rows = list(
            self.db.query(
                "SELECT * FROM eval_configs WHERE config_hash = ? OR config_hash LIKE ?",
                [config_hash, config_hash + "%"],
            )
        )
        if len(rows) != 1:
            raise NotFoundError("no single configuration matches", subject=config_hash)
        return ConfigRow.model_validate(rows[0])

    def has_answer(self, answer_id: str) -> bool:
        return bool(
            self.db.execute(
                "SELECT 1 FROM eval_answers WHERE answer_id = ?", [answer_id]
            ).fetchone()
        )

    def save_answer(
        self,
        question_id: str,
        config: GenerationConfig,
        sample: int,
        seed: int,
        generation: Generation,
        user: str,
    ) -> str:
        answer_id = answer_id_for(question_id, config.config_hash, sample)
        with write_transaction(self.db):
            self.save_config(config)
            insert_row(
                self.db.conn,
                "eval_answers",
                {
                    "answer_id": answer_id,
                    "question_id": question_id,
                    "config_hash": config.config_hash,
                    "sample": sample,
                    "seed": seed,
                    "text": generation.text,
                    "completion_tokens": generation.completion_tokens,
                    "seconds": generation.seconds,
                    "finish_reason": generation.finish_reason,
                    "created_at": utc_iso(utc_now()),
                },
            )
            append_audit(
                self.db.conn,
                user=user,
                action="eval generate",
                entity=f"eval_answer:{answer_id}",
                new_value={
                    "question_id": question_id,
                    "config_hash": config.config_hash,
                    "sample": sample,
                    "seed": seed,
                    "text_sha256": text_sha256(generation.text),
                },
                model_sha256=config.model_sha256,
                prompt_version=config.prompt_sha256,
            )
        return answer_id

    def answers(self, set_id: str | None = None, config_hash: str | None = None) -> list[Answer]:
        rows = self.db.query(_ANSWERS, {"set": set_id, "config": config_hash})
        return [Answer.model_validate(r) for r in rows]

    def get_answer(self, answer_id: str) -> Answer:
        rows = list(
            self.db.query(
                "SELECT a.*, c.temperature FROM eval_answers a JOIN eval_configs c"
                " USING (config_hash) WHERE a.answer_id = ?",
                [answer_id],
            )
        )
        if not rows:
            raise NotFoundError("no such answer", subject=answer_id)
        return Answer.model_validate(rows[0])

    def question_of(self, answer_id: str) -> Question:
        answer = self.get_answer(answer_id)
        row = self.db.execute(
            "SELECT set_id FROM eval_questions WHERE question_id = ?", [answer.question_id]
        ).fetchone()
        return next(q for q in self.questions(row[0]) if q.question_id == answer.question_id)

    # embeddings and similarity ---------------------------------------------------------

    def cached_embedding(self, text: str, model_sha256: str) -> np.ndarray | None:
        row = self.db.execute(
            "SELECT n_tokens, dim, vectors FROM eval_embeddings"
            " WHERE text_sha256 = ? AND model_sha256 = ?",
            [text_sha256(text), model_sha256],
        ).fetchone()
        if row is None:
            return None
        n_tokens, dim, blob = row
        vectors = np.frombuffer(blob, dtype=np.float32)
        if vectors.size != n_tokens * dim:
            raise StoreError("cached embedding has the wrong size", subject=text_sha256(text))
        return vectors.reshape(n_tokens, dim)

    def cache_embedding(self, text: str, model_sha256: str, vectors: np.ndarray) -> None:
        array = np.ascontiguousarray(vectors, dtype=np.float32)
        with write_transaction(self.db):
            self.db.execute(
                "INSERT OR IGNORE INTO eval_embeddings VALUES (?, ?, ?, ?, ?)",
                [text_sha256(text), model_sha256, array.shape[0], array.shape[1], array.tobytes()],
            )

    def save_similarities(self, rows: list[Similarity], user: str) -> None:
        with write_transaction(self.db):
            now = utc_iso(utc_now())
            for s in rows:
                self.db.execute(
                    "INSERT OR REPLACE INTO eval_similarity VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        s.answer_id,
                        s.model_sha256,
                        s.cosine_max,
                        s.cosine_mean,
                        s.maxsim_max,
                        s.maxsim_mean,
                        s.labels,
                        now,
                    ],
                )
            if rows:
                append_audit(
                    self.db.conn,
                    user=user,
                    action="eval similarity",
                    entity=f"eval_similarity:{rows[0].model_sha256[:12]}",
                    new_value={"answers": len(rows)},
                    model_sha256=rows[0].model_sha256,
                )

    def similarities(self, model_sha256: str) -> dict[str, Similarity]:
        rows = self.db.query("SELECT * FROM eval_similarity WHERE model_sha256 = ?", [model_sha256])
        return {r["answer_id"]: Similarity.model_validate(r) for r in rows}

    # reward models and predictions -----------------------------------------------------

    def save_reward_model(self, row: dict[str, Any], user: str) -> bool:
        with write_transaction(self.db):
            if self.db.execute(
                "SELECT 1 FROM eval_reward_models WHERE version = ?", [row["version"]]
            ).fetchone():
                return False
            insert_row(self.db.conn, "eval_reward_models", row)
            append_audit(
                self.db.conn,
                user=user,
                action="eval train reward model",
                entity=f"reward_model:{row['version']}",
                new_value={
                    "set_id": row["set_id"],
                    "n_train": row["n_train"],
                    "n_test": row["n_test"],
                    "seed": row["seed"],
                },
                model_sha256=row["embed_sha256"],
            )
        return True

    def reward_model_row(self, set_id: str, version: str | None = None) -> dict[str, Any]:
        if version:
            rows = list(
                self.db.query("SELECT * FROM eval_reward_models WHERE version = ?", [version])
            )
        else:
            rows = list(
                self.db.query(
                    "SELECT * FROM eval_reward_models WHERE set_id = ?"
                    " ORDER BY created_at DESC, rowid DESC LIMIT 1",
                    [set_id],
                )
            )
        if not rows:
            raise NotFoundError(
                "no reward model (train one with `concord eval train-reward`)",
                subject=version or set_id,
            )
        row = dict(rows[0])
        for key in ("params", "metrics", "train_ids"):
            row[key] = from_json(row[key])
        return row

    def save_predictions(self, predictions: list[Prediction], user: str) -> int:
        """Append predictions not yet stored for their (answer, version); returns how many."""
        written = 0
        with write_transaction(self.db):
            for p in predictions:
                cursor = self.db.execute(
                    "INSERT OR IGNORE INTO eval_predictions VALUES (?, ?, ?, ?, ?)",
                    [p.answer_id, p.version, p.score, p.grade, p.predicted_at],
                )
                written += cursor.rowcount
            if written:
                append_audit(
                    self.db.conn,
                    user=user,
                    action="eval predict",
                    entity=f"reward_model:{predictions[0].version}",
                    new_value={"predictions": written},
                )
        return written

    def predictions(self, version: str) -> dict[str, Prediction]:
        rows = self.db.query("SELECT * FROM eval_predictions WHERE version = ?", [version])
        return {r["answer_id"]: Prediction.model_validate(r) for r in rows}

    def latest_prediction(self, answer_id: str) -> Prediction | None:
        rows = list(
            self.db.query(
                "SELECT * FROM eval_predictions WHERE answer_id = ?"
                " ORDER BY predicted_at DESC, rowid DESC LIMIT 1",
                [answer_id],
            )
        )
        return Prediction.model_validate(rows[0]) if rows else None
