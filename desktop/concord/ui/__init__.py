"""The desktop application (PySide6). Only this package imports Qt.

Pages of the main window (`main_window`): Patients (worklist <-> case, `patients_page`), QA
review (ASTRID, `qa_page`), Answer grading (EVAL, `grading_view`), Agreement
(`agreement_view`). The window talks to a page through one protocol (`commands.Page`):
which keyboard commands act on it now, and run this one. Blind mode is one window-wide
state.

Everything Qt-free the pages need — the worklist's triage, a case's bundle and review
queue, the ASTRID session, grading, agreement, evidence marks, model jobs — lives in
`concord.workbench`, under the core's import contract.

Threads: the UI thread never touches SQLite or a model. Two threads do, each with one
SQLite connection:
- `db.DbThread` owns the UI's Repository in a QThread for SHORT requests (reads, a
  decision); pages ask it with `call(fn, on_ok, on_error)` and get the result by signal.
- `workers.JobHost` is the window's one job thread with the window's one Services (one
  connection, the model loaded once): every long job (`workbench.model_jobs`) runs there,
  one at a time — the agent panel (`PanelRunner`), ASTRID judge runs and EVAL answers
  (the QA and grading pages' shared `JobRunner`), site validation, and the quick jobs,
  imports (OCR) and signing a PDF, which run at the next model call of a long job instead
  of waiting for it to end. Each page holds a `JobRunner` on the host and hears its own
  job's progress, result, cancellation or error by signal, and `waiting` when its job
  waits behind another page's.
"""
