"""Migration 8 "astrid scores in long format": one row per run, repeat, item and score.

Never edit once released; add a new migration instead. A score's name is data, not a
column or a CHECK list, so a new ASTRID score (concord.astrid.scores) needs no migration.
Every score stored before (qa_scores' cf, cr, ra_refused, ra_correct columns, which stay
and are still written) is copied here, so old runs read the same through either table.
Append-only like every ASTRID table.
"""

SQL = """
CREATE TABLE qa_item_scores (
    run_id   TEXT NOT NULL REFERENCES qa_runs (run_id),
    repeat   INTEGER NOT NULL,
    item_id  TEXT NOT NULL,
    score    TEXT NOT NULL CHECK (length(score) > 0),
    value    REAL CHECK (value IS NULL OR value BETWEEN 0 AND 1),
    PRIMARY KEY (run_id, repeat, item_id, score)
) STRICT;

INSERT INTO qa_item_scores (run_id, repeat, item_id, score, value)
    SELECT run_id, repeat, item_id, 'cf', cf FROM qa_scores;
INSERT INTO qa_item_scores (run_id, repeat, item_id, score, value)
    SELECT run_id, repeat, item_id, 'cr', cr FROM qa_scores;
INSERT INTO qa_item_scores (run_id, repeat, item_id, score, value)
    SELECT run_id, repeat, item_id, 'ra_refused', ra_refused FROM qa_scores;
INSERT INTO qa_item_scores (run_id, repeat, item_id, score, value)
    SELECT run_id, repeat, item_id, 'ra_correct', ra_correct FROM qa_scores;

CREATE TRIGGER qa_item_scores_no_update BEFORE UPDATE ON qa_item_scores
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER qa_item_scores_no_delete BEFORE DELETE ON qa_item_scores
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
"""
