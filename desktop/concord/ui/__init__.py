"""The desktop application (PySide6). Only this package imports Qt.

Pages of the main window: Patients (worklist <-> case), QA review (ASTRID), Answer grading
(EVAL), Agreement. Single-letter review keys are window actions dispatched to the page
shown; blind mode is one window-wide state (see `main_window`).

Threads: the UI thread never touches SQLite or a model.
- `db.DbThread` owns the UI's Repository (its own SQLite connection) in a QThread; views
  ask it for data with `call(fn, on_ok, on_error)` and get the result back by signal. The
  functions it runs are Qt-free: `loaders` (patients), `qa_loaders`, `eval_loaders`.
- `workers.JobRunner` runs one model job at a time in another QThread with its OWN
  Services (own Repository, own runtime), and reports progress, the job's result,
  cancellation or the error by signal. `workers.PanelRunner` is the runner of
  `concord.pipeline.run_panel` (it saves the finished case there; the result is the case
  id). The QA review and answer grading pages share one more JobRunner for the jobs in
  `model_jobs` (Qt-free): an ASTRID judge run over a QA set, EVAL answer generation.
"""
