"""Site validation's long jobs: a candidate model on the reference set (`model_run`), a
candidate resources folder against the clinicians' confirmations (`resources_check`), and
the reports as charts and PDF."""
