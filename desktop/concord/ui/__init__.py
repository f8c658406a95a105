"""The desktop application (PySide6). Only this package imports Qt.

Pages of the main window: Patients (worklist <-> case), QA review (ASTRID), Answer grading
(EVAL), Agreement. Single-letter review keys are window actions dispatched to the page
shown; blind mode is one window-wide state (see `main_window`).

Threads: the UI thread never touches SQLite or a model.
- `db.DbThread` owns the UI's Repository (its own SQLite connection) in a QThread; views
  ask it for data with `call(fn, on_ok, on_error)` and get the result back by signal. The
  functions it runs are Qt-free: `loaders` (patients), `qa_loaders`, `eval_loaders`.
- `workers.PanelWorker` runs `concord.pipeline.run_panel` in another QThread with its OWN
  Services (own Repository, own runtime), saves the finished case there, and reports
  progress, the new case id, cancellation or the error by signal.
"""
