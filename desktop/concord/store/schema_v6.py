"""Migration 6: versioned payloads and signed audit rows. Never edit once released; add a new
migration instead.

decisions: the version of the field list the decider's signature covers (rows stored before
           this migration were signed under version 1).
audit:     the row's version (1: rows written before this migration; see `store.audit`) and
           its actor's signature over the row; indexes to find a decision's or a case's rows
           (the chain position orders decisions) and the rows of one action.
"""

SQL = """
ALTER TABLE decisions ADD COLUMN payload_version INTEGER NOT NULL DEFAULT 1;

ALTER TABLE audit ADD COLUMN row_version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE audit ADD COLUMN signature TEXT NOT NULL DEFAULT '';
CREATE INDEX audit_by_entity ON audit (entity);
CREATE INDEX audit_by_action ON audit (action);
"""
