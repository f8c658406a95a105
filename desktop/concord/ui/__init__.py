"""The desktop application (PySide6). Only this package imports Qt.

Pages of the main window (`main_window`): Patients (worklist <-> case, `patients_page`), QA
review (ASTRID, `qa_page`), Answer grading (EVAL, `grading_view`), Agreement
(`agreement_view`). The window talks to a page through one protocol (`commands.Page`):
which keyboard commands act on it now, and run this one. Blind mode is one window-wide
state.

Everything Qt-free the pages need — the worklist's triage, a case's bundle and review
queue, the ASTRID session, grading, agreement, evidence marks, model jobs — lives in
`concord.workbench`, under the core's import contract.

Threads: the UI thread never touches SQLite or a model.
- `db.DbThread` owns the UI's Repository (its own SQLite connection) in a QThread; pages
  ask it with `call(fn, on_ok, on_error)` and get the result back by signal.
- `workers.JobRunner` runs one model job (`workbench.model_jobs`) at a time in another
  QThread with its OWN Services, and reports progress, the result, cancellation or the
  error by signal. `workers.PanelRunner` runs the agent panel; the QA review and answer
  grading pages share one more JobRunner (ASTRID judge runs, EVAL answer generation).
"""
