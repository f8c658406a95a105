"""Migration 5 ("labels"): how each label was given, gold items, trusted installations and
label packages merged from other workstations. Never edit once released; add a new
migration instead. Every table is append-only.

label_provenance: one row per decision recorded since this migration: bulk or one by one,
                  golden answers shown, seconds on the item, the judge run it was compared
                  with, its QA/EVAL set and that set's content hash (NULL: not applicable).
gold_items:       QA items seeded as gold (honeypots): annotators' labels on them are scored
                  against the seeding lead's answers.
trusted_roots:    root certificates of other installations whose annotators' label packages
                  this one accepts, each added by an admin (a statement signed by the admin's
                  key, checked whenever the list is read).
label_packages:   every package merged: its annotator, their installation, their certificate,
                  the package's SHA-256, who merged it and when.
merged_labels:    the labels of merged packages, as their annotators signed them.
"""

SQL = """
CREATE TABLE label_provenance (
    decision_id     TEXT PRIMARY KEY NOT NULL,
    bulk            INTEGER CHECK (bulk IN (0, 1)),
    golden_shown    INTEGER CHECK (golden_shown IN (0, 1)),
    seconds_on_item REAL CHECK (seconds_on_item >= 0),
    judge_run       TEXT,
    set_id          TEXT,
    set_sha256      TEXT
) STRICT;

CREATE TABLE gold_items (
    set_id    TEXT NOT NULL,
    item_id   TEXT NOT NULL,
    seeded_by TEXT NOT NULL,
    seeded_at TEXT NOT NULL,
    PRIMARY KEY (set_id, item_id)
) STRICT;

CREATE TABLE trusted_roots (
    fingerprint TEXT PRIMARY KEY NOT NULL,
    name        TEXT NOT NULL,
    pem         TEXT NOT NULL,
    added_by    TEXT NOT NULL,
    added_at    TEXT NOT NULL,
    signature   TEXT NOT NULL
) STRICT;

CREATE TABLE label_packages (
    package_id   TEXT PRIMARY KEY NOT NULL,
    sha256       TEXT NOT NULL UNIQUE,
    annotator    TEXT NOT NULL,
    rater        TEXT NOT NULL,
    installation TEXT NOT NULL,
    certificate  TEXT NOT NULL,
    labels       INTEGER NOT NULL CHECK (labels > 0),
    merged_by    TEXT NOT NULL,
    merged_at    TEXT NOT NULL,
    file         TEXT NOT NULL
) STRICT;

CREATE TABLE merged_labels (
    decision_id TEXT PRIMARY KEY NOT NULL,
    package_id  TEXT NOT NULL REFERENCES label_packages (package_id),
    decision    TEXT NOT NULL,
    provenance  TEXT NOT NULL
) STRICT;
CREATE INDEX merged_labels_by_package ON merged_labels (package_id);

CREATE TRIGGER label_provenance_no_update BEFORE UPDATE ON label_provenance
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER label_provenance_no_delete BEFORE DELETE ON label_provenance
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER gold_items_no_update BEFORE UPDATE ON gold_items
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER gold_items_no_delete BEFORE DELETE ON gold_items
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER trusted_roots_no_update BEFORE UPDATE ON trusted_roots
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER trusted_roots_no_delete BEFORE DELETE ON trusted_roots
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER label_packages_no_update BEFORE UPDATE ON label_packages
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER label_packages_no_delete BEFORE DELETE ON label_packages
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER merged_labels_no_update BEFORE UPDATE ON merged_labels
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
CREATE TRIGGER merged_labels_no_delete BEFORE DELETE ON merged_labels
BEGIN SELECT RAISE(ABORT, 'append-only'); END;
"""
