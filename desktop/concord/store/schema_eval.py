"""Migration 3 ("eval"): question sets, golden answers, generation configurations,
generated answers, cached embeddings, similarity scores, reward-model versions and their
predictions. Never edit once released; add a new migration instead.

Grades are not stored here: a clinician's grade is a `decisions` row (target_kind
`eval_grade`, target_id `eval/<answer_id>/grade`), like every other human judgement.
"""

SQL = """
CREATE TABLE eval_sets (
    set_id       TEXT PRIMARY KEY NOT NULL CHECK (set_id LIKE 'EV-%'),
    name         TEXT NOT NULL,
    source       TEXT NOT NULL,
    content_hash TEXT NOT NULL UNIQUE,
    imported_at  TEXT NOT NULL,
    imported_by  TEXT NOT NULL
) STRICT;

CREATE TABLE eval_questions (
    question_id TEXT PRIMARY KEY NOT NULL,
    set_id      TEXT NOT NULL REFERENCES eval_sets (set_id),
    position    INTEGER NOT NULL,
    label       TEXT NOT NULL,
    text        TEXT NOT NULL CHECK (length(trim(text)) > 0),
    context     TEXT NOT NULL,
    UNIQUE (set_id, position)
) STRICT;

CREATE TABLE eval_golden (
    golden_id   TEXT PRIMARY KEY NOT NULL,
    question_id TEXT NOT NULL REFERENCES eval_questions (question_id),
    expert      TEXT NOT NULL,
    text        TEXT NOT NULL CHECK (length(trim(text)) > 0)
) STRICT;
CREATE INDEX eval_golden_by_question ON eval_golden (question_id);

CREATE TABLE eval_configs (
    config_hash   TEXT PRIMARY KEY NOT NULL,
    model_name    TEXT NOT NULL,
    model_sha256  TEXT NOT NULL,
    temperature   REAL NOT NULL CHECK (temperature >= 0),
    use_context   INTEGER NOT NULL CHECK (use_context IN (0, 1)),
    max_tokens    INTEGER NOT NULL CHECK (max_tokens > 0),
    prompt_sha256 TEXT NOT NULL,
    json          TEXT NOT NULL,
    created_at    TEXT NOT NULL
) STRICT;

CREATE TABLE eval_answers (
    answer_id         TEXT PRIMARY KEY NOT NULL,
    question_id       TEXT NOT NULL REFERENCES eval_questions (question_id),
    config_hash       TEXT NOT NULL REFERENCES eval_configs (config_hash),
    sample            INTEGER NOT NULL CHECK (sample >= 0),
    seed              INTEGER NOT NULL,
    text              TEXT NOT NULL,
    completion_tokens INTEGER NOT NULL,
    seconds           REAL NOT NULL,
    finish_reason     TEXT NOT NULL,
    created_at        TEXT NOT NULL,
    UNIQUE (question_id, config_hash, sample)
) STRICT;
CREATE INDEX eval_answers_by_config ON eval_answers (config_hash);

CREATE TABLE eval_embeddings (
    text_sha256  TEXT NOT NULL,
    model_sha256 TEXT NOT NULL,
    n_tokens     INTEGER NOT NULL CHECK (n_tokens > 0),
    dim          INTEGER NOT NULL CHECK (dim > 0),
    vectors      BLOB NOT NULL,
    PRIMARY KEY (text_sha256, model_sha256)
) STRICT;

CREATE TABLE eval_similarity (
    answer_id    TEXT NOT NULL REFERENCES eval_answers (answer_id),
    model_sha256 TEXT NOT NULL,
    cosine_max   REAL NOT NULL,
    cosine_mean  REAL NOT NULL,
    maxsim_max   REAL NOT NULL,
    maxsim_mean  REAL NOT NULL,
    labels       INTEGER NOT NULL CHECK (labels > 0),
    computed_at  TEXT NOT NULL,
    PRIMARY KEY (answer_id, model_sha256)
) STRICT;

CREATE TABLE eval_reward_models (
    version      TEXT PRIMARY KEY NOT NULL,
    set_id       TEXT NOT NULL REFERENCES eval_sets (set_id),
    created_at   TEXT NOT NULL,
    created_by   TEXT NOT NULL,
    embed_sha256 TEXT NOT NULL,
    seed         INTEGER NOT NULL,
    n_train      INTEGER NOT NULL,
    n_test       INTEGER NOT NULL,
    params       TEXT NOT NULL,
    metrics      TEXT NOT NULL,
    train_ids    TEXT NOT NULL
) STRICT;

CREATE TABLE eval_predictions (
    answer_id    TEXT NOT NULL REFERENCES eval_answers (answer_id),
    version      TEXT NOT NULL REFERENCES eval_reward_models (version),
    score        REAL NOT NULL CHECK (score >= 0 AND score <= 1),
    grade        TEXT NOT NULL CHECK (grade IN ('good', 'bad')),
    predicted_at TEXT NOT NULL,
    PRIMARY KEY (answer_id, version)
) STRICT;

CREATE TRIGGER eval_reward_models_no_update BEFORE UPDATE ON eval_reward_models
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER eval_reward_models_no_delete BEFORE DELETE ON eval_reward_models
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER eval_predictions_no_update BEFORE UPDATE ON eval_predictions
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER eval_predictions_no_delete BEFORE DELETE ON eval_predictions
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER eval_answers_no_update BEFORE UPDATE ON eval_answers
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
"""
