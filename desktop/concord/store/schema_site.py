"""Migration 7: site validation. Never edit once released; add a new migration instead.

cases:              `mode` -- clinical, demonstration or silent, fixed when the case was run
                    (NULL: run before site validation existed); the worklist and the review
                    queue leave silent cases out.
resource_snapshots: the text of each version of each resource part a case was run with or a
                    validation read (gates, lexicon, prompts, agents, scoring), so a stored
                    case is read with its own versions; one row per (part, sha256).
validations:        each `concord validate model|resources` report, whole, as JSON.
Acceptances are signed statements in the audit chain (action 'site accept'), like
revocations: no table can hold one the chain does not.
"""

SQL = """
ALTER TABLE cases ADD COLUMN mode TEXT CHECK (mode IN ('clinical', 'demonstration', 'silent'));
CREATE INDEX cases_by_mode ON cases (mode);

CREATE TABLE resource_snapshots (
    part      TEXT NOT NULL CHECK (part IN ('gates', 'lexicon', 'prompts', 'agents', 'scoring')),
    sha256    TEXT NOT NULL,
    files     TEXT NOT NULL,
    stored_at TEXT NOT NULL,
    PRIMARY KEY (part, sha256)
) STRICT;

CREATE TABLE validations (
    validation_id TEXT PRIMARY KEY NOT NULL,
    kind          TEXT NOT NULL CHECK (kind IN ('model', 'resources')),
    created_at    TEXT NOT NULL,
    created_by    TEXT NOT NULL,
    model_sha256  TEXT NOT NULL,
    passed        INTEGER NOT NULL CHECK (passed IN (0, 1)),
    json          TEXT NOT NULL
) STRICT;

CREATE TRIGGER resource_snapshots_no_update BEFORE UPDATE ON resource_snapshots
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER resource_snapshots_no_delete BEFORE DELETE ON resource_snapshots
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER validations_no_update BEFORE UPDATE ON validations
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER validations_no_delete BEFORE DELETE ON validations
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
"""
