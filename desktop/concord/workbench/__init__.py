"""The reviewer's workbench without Qt: what the desktop's pages read, queue and decide.

The patient worklist and its triage, a case's bundle and the clinician's review queue
(with failed quotes grouped and a bulk accept of what is optional), the ASTRID labelling
session (options, sentence verdicts, CF derived from them, undo), the EVAL grading state,
the agreement tables, where evidence sits in a record, and the model jobs the pages start.

Functions that take a `Repository` run in the UI's database thread (`ui.db.DbThread`);
model jobs run in its job thread (`ui.workers.JobRunner`); the rest is pure. Nothing here
imports Qt (an import-linter contract checks it), so all of it is tested headless.
"""
