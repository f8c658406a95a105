"""Migration 1: the initial schema. Never edit once released; add a new migration instead."""

SQL = """
CREATE TABLE users (
    name             TEXT PRIMARY KEY NOT NULL CHECK (length(trim(name)) > 0),
    role             TEXT NOT NULL CHECK (role IN ('clinician', 'annotator', 'admin')),
    created_at       TEXT NOT NULL,
    cert_fingerprint TEXT
) STRICT;

CREATE TABLE records (
    record_id    TEXT PRIMARY KEY NOT NULL,
    content_hash TEXT NOT NULL UNIQUE,
    name         TEXT NOT NULL,
    json         TEXT NOT NULL,
    imported_at  TEXT NOT NULL,
    imported_by  TEXT NOT NULL
) STRICT;

CREATE TABLE cases (
    case_id        TEXT PRIMARY KEY NOT NULL,
    record_id      TEXT NOT NULL REFERENCES records (record_id),
    created_at     TEXT NOT NULL,
    status         TEXT NOT NULL,
    worst_grade    TEXT,
    human_review   INTEGER NOT NULL CHECK (human_review IN (0, 1)),
    model_sha256   TEXT NOT NULL,
    model_name     TEXT NOT NULL,
    config_version TEXT NOT NULL,
    json           TEXT NOT NULL
) STRICT;
CREATE INDEX cases_by_record ON cases (record_id, created_at);

CREATE TABLE briefs (
    case_id           TEXT NOT NULL REFERENCES cases (case_id),
    agent             TEXT NOT NULL,
    status            TEXT NOT NULL,
    failure_reason    TEXT NOT NULL,
    model_sha256      TEXT NOT NULL,
    prompt_sha256     TEXT NOT NULL,
    attempts          INTEGER NOT NULL,
    items             INTEGER NOT NULL,
    evidence          INTEGER NOT NULL,
    verified_evidence INTEGER NOT NULL,
    PRIMARY KEY (case_id, agent)
) STRICT;

CREATE TABLE evidence (
    case_id     TEXT NOT NULL REFERENCES cases (case_id),
    agent       TEXT NOT NULL,
    evidence_id TEXT NOT NULL,
    source_id   TEXT NOT NULL,
    locator     TEXT NOT NULL,
    tag         TEXT NOT NULL,
    extract     TEXT NOT NULL,
    status      TEXT NOT NULL,
    start       INTEGER,
    "end"       INTEGER,
    score       REAL NOT NULL,
    flags       TEXT NOT NULL,
    verified    INTEGER NOT NULL CHECK (verified IN (0, 1)),
    PRIMARY KEY (case_id, agent, evidence_id)
) STRICT;

CREATE TABLE case_gates (
    case_id   TEXT NOT NULL REFERENCES cases (case_id),
    gate_id   TEXT NOT NULL,
    severity  TEXT NOT NULL,
    status    TEXT NOT NULL,
    specialty TEXT NOT NULL,
    detail    TEXT NOT NULL
) STRICT;
CREATE INDEX case_gates_by_case ON case_gates (case_id, status);

CREATE TABLE scorecards (
    case_id        TEXT NOT NULL REFERENCES cases (case_id),
    specialist     TEXT NOT NULL,
    overall        REAL NOT NULL,
    grade          TEXT NOT NULL,
    human_review   INTEGER NOT NULL CHECK (human_review IN (0, 1)),
    capped         INTEGER NOT NULL CHECK (capped IN (0, 1)),
    config_version TEXT NOT NULL,
    judge_runs     INTEGER NOT NULL,
    judge_spread   REAL NOT NULL,
    PRIMARY KEY (case_id, specialist)
) STRICT;

CREATE TABLE runs (
    run_id         TEXT PRIMARY KEY NOT NULL,
    case_id        TEXT NOT NULL UNIQUE REFERENCES cases (case_id),
    model_sha256   TEXT NOT NULL,
    model_name     TEXT NOT NULL,
    prompt_sha256s TEXT NOT NULL,
    started_at     TEXT NOT NULL,
    ended_at       TEXT NOT NULL,
    timings        TEXT NOT NULL
) STRICT;

CREATE TABLE decisions (
    decision_id    TEXT PRIMARY KEY NOT NULL,
    case_id        TEXT NOT NULL,
    target_id      TEXT NOT NULL,
    target_kind    TEXT NOT NULL,
    action         TEXT NOT NULL CHECK (action IN ('accept', 'override')),
    original_value TEXT NOT NULL,
    new_value      TEXT NOT NULL,
    reason         TEXT NOT NULL,
    user           TEXT NOT NULL,
    at             TEXT NOT NULL,
    shown          TEXT NOT NULL,
    blind          INTEGER NOT NULL CHECK (blind IN (0, 1)),
    spans          TEXT NOT NULL
) STRICT;
CREATE INDEX decisions_by_case ON decisions (case_id);
CREATE INDEX decisions_by_target ON decisions (target_id);

CREATE TABLE signatures (
    signature_id    INTEGER PRIMARY KEY AUTOINCREMENT,
    case_id         TEXT NOT NULL REFERENCES cases (case_id),
    user            TEXT NOT NULL,
    signed_at       TEXT NOT NULL,
    meaning         TEXT NOT NULL,
    pdf_sha256      TEXT NOT NULL,
    path            TEXT NOT NULL,
    audit_head_seq  INTEGER NOT NULL,
    audit_head_hash TEXT NOT NULL
) STRICT;
CREATE INDEX signatures_by_case ON signatures (case_id);

CREATE TABLE audit (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    at             TEXT NOT NULL,
    user           TEXT NOT NULL,
    workstation    TEXT NOT NULL,
    action         TEXT NOT NULL,
    entity         TEXT NOT NULL,
    old_value      TEXT,
    new_value      TEXT,
    reason         TEXT NOT NULL,
    app_version    TEXT NOT NULL,
    model_sha256   TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    prev_hash      TEXT NOT NULL,
    hash           TEXT NOT NULL
) STRICT;

CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER decisions_no_update BEFORE UPDATE ON decisions
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER decisions_no_delete BEFORE DELETE ON decisions
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER signatures_no_update BEFORE UPDATE ON signatures
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER signatures_no_delete BEFORE DELETE ON signatures
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
"""
