"""The desktop application (PySide6). Only this package imports Qt.

Threads: the UI thread never touches SQLite or a model.
- `db.DbThread` owns the UI's Repository (its own SQLite connection) in a QThread; views
  ask it for data with `call(fn, on_ok, on_error)` and get the result back by signal.
- `workers.PanelWorker` runs `concord.pipeline.run_panel` in another QThread with its OWN
  Services (own Repository, own runtime), saves the finished case there, and reports
  progress, the new case id, cancellation or the error by signal.
"""
