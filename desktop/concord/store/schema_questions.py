"""Migration 9 "astrid judge questions as a registry": `qa_verdicts.metric` takes any
registered judge question's name.

Never edit once released; add a new migration instead. Migration 2 listed the four built-in
questions in a CHECK; a judge question is now registered in code
(`concord.astrid.questions`), and `AstridStore.save_run` refuses a verdict whose question is
not registered, so the column only has to be a name. SQLite cannot drop a CHECK, so the table
is rebuilt: every row is copied with its rowid (the order verdicts are read back in), the old
table dropped (DROP TABLE fires no trigger), the new one renamed to `qa_verdicts` and its
append-only triggers made again.
"""

SQL = """
CREATE TABLE qa_verdicts_v9 (
    run_id          TEXT NOT NULL REFERENCES qa_runs (run_id),
    repeat          INTEGER NOT NULL,
    item_id         TEXT NOT NULL,
    metric          TEXT NOT NULL CHECK (length(metric) > 0),
    sentence_index  INTEGER NOT NULL,
    value           INTEGER CHECK (value IN (0, 1)),
    reason          TEXT NOT NULL,
    attempts        INTEGER NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    error           TEXT NOT NULL,
    raw             TEXT NOT NULL,
    PRIMARY KEY (run_id, repeat, item_id, metric, sentence_index)
) STRICT;
INSERT INTO qa_verdicts_v9 (
    rowid, run_id, repeat, item_id, metric, sentence_index, value, reason, attempts, status,
    error, raw
)
SELECT rowid, run_id, repeat, item_id, metric, sentence_index, value, reason, attempts, status,
    error, raw
FROM qa_verdicts ORDER BY rowid;
DROP TABLE qa_verdicts;
ALTER TABLE qa_verdicts_v9 RENAME TO qa_verdicts;
CREATE TRIGGER qa_verdicts_no_update BEFORE UPDATE ON qa_verdicts
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER qa_verdicts_no_delete BEFORE DELETE ON qa_verdicts
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
"""
