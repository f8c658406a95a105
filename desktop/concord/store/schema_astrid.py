"""Migration 2 "astrid": QA sets, items, sentences, judge runs, verdicts and item scores.

Never edit once released; add a new migration instead. Every table is append-only: a new
import is a new set, a re-run is a new run, and human labels are decisions (table
`decisions`, case_id = the run id, target ids `astrid/<item_id>/...`).
"""

SQL = """
CREATE TABLE qa_sets (
    set_id          TEXT PRIMARY KEY NOT NULL,
    name            TEXT NOT NULL,
    source          TEXT NOT NULL,
    content_sha256  TEXT NOT NULL UNIQUE,
    item_count      INTEGER NOT NULL CHECK (item_count > 0),
    imported_at     TEXT NOT NULL,
    imported_by     TEXT NOT NULL
) STRICT;

CREATE TABLE qa_items (
    set_id    TEXT NOT NULL REFERENCES qa_sets (set_id),
    item_id   TEXT NOT NULL,
    position  INTEGER NOT NULL,
    question  TEXT NOT NULL,
    context   TEXT NOT NULL,
    answer    TEXT NOT NULL,
    scope     TEXT CHECK (scope IN ('in', 'out')),
    labels    TEXT NOT NULL,
    PRIMARY KEY (set_id, item_id)
) STRICT;

CREATE TABLE qa_sentences (
    set_id          TEXT NOT NULL,
    item_id         TEXT NOT NULL,
    sentence_index  INTEGER NOT NULL,
    start           INTEGER NOT NULL,
    "end"           INTEGER NOT NULL,
    text            TEXT NOT NULL,
    PRIMARY KEY (set_id, item_id, sentence_index),
    FOREIGN KEY (set_id, item_id) REFERENCES qa_items (set_id, item_id)
) STRICT;

CREATE TABLE qa_runs (
    run_id         TEXT PRIMARY KEY NOT NULL CHECK (run_id LIKE 'QA-%'),
    set_id         TEXT NOT NULL REFERENCES qa_sets (set_id),
    model_name     TEXT NOT NULL,
    model_sha256   TEXT NOT NULL,
    prompt_sha256  TEXT NOT NULL,
    started_at     TEXT NOT NULL,
    ended_at       TEXT NOT NULL,
    repeats        INTEGER NOT NULL CHECK (repeats > 0),
    settings       TEXT NOT NULL
) STRICT;
CREATE INDEX qa_runs_by_set ON qa_runs (set_id, started_at);

CREATE TABLE qa_verdicts (
    run_id          TEXT NOT NULL REFERENCES qa_runs (run_id),
    repeat          INTEGER NOT NULL,
    item_id         TEXT NOT NULL,
    metric          TEXT NOT NULL CHECK (metric IN ('cf_info', 'cf_grounded', 'cr', 'ra')),
    sentence_index  INTEGER NOT NULL,
    value           INTEGER CHECK (value IN (0, 1)),
    reason          TEXT NOT NULL,
    attempts        INTEGER NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    error           TEXT NOT NULL,
    raw             TEXT NOT NULL,
    PRIMARY KEY (run_id, repeat, item_id, metric, sentence_index)
) STRICT;

CREATE TABLE qa_scores (
    run_id        TEXT NOT NULL REFERENCES qa_runs (run_id),
    repeat        INTEGER NOT NULL,
    item_id       TEXT NOT NULL,
    seed          INTEGER NOT NULL,
    temperature   REAL NOT NULL,
    cf            REAL NOT NULL CHECK (cf BETWEEN 0 AND 1),
    n_informative INTEGER NOT NULL,
    n_grounded    INTEGER NOT NULL,
    n_ungrounded  INTEGER NOT NULL,
    cr            INTEGER CHECK (cr IN (0, 1)),
    ra_refused    INTEGER CHECK (ra_refused IN (0, 1)),
    ra_correct    INTEGER CHECK (ra_correct IN (0, 1)),
    complete      INTEGER NOT NULL CHECK (complete IN (0, 1)),
    PRIMARY KEY (run_id, repeat, item_id)
) STRICT;

CREATE TRIGGER qa_sets_no_update BEFORE UPDATE ON qa_sets
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER qa_sets_no_delete BEFORE DELETE ON qa_sets
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER qa_items_no_update BEFORE UPDATE ON qa_items
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER qa_items_no_delete BEFORE DELETE ON qa_items
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER qa_sentences_no_update BEFORE UPDATE ON qa_sentences
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER qa_sentences_no_delete BEFORE DELETE ON qa_sentences
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER qa_runs_no_update BEFORE UPDATE ON qa_runs
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER qa_runs_no_delete BEFORE DELETE ON qa_runs
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER qa_verdicts_no_update BEFORE UPDATE ON qa_verdicts
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER qa_verdicts_no_delete BEFORE DELETE ON qa_verdicts
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER qa_scores_no_update BEFORE UPDATE ON qa_scores
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER qa_scores_no_delete BEFORE DELETE ON qa_scores
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
"""
