"""Lines that made a screen regular expression try every split of a run of punctuation: a
grade read after a valve lesion across empty table cells ("| Aortic stenosis | -- | -- |")
took 31 s for ten cells and grew about threefold a cell, so a longer row never finished; a
hung screen gives no gates at all. Screened in a child process with a deadline far beyond
what a linear reading needs (milliseconds), so a return of the blow-up fails here instead
of hanging the suite."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

ROWS = [
    "| Aortic stenosis |" + " -- |" * 40,
    "Aortic regurgitation" + " | -" * 60,
    "Aortic stenosis " + "-" * 200,
    "Chest pain " + "- " * 100,
    "Pacemaker? " + "[ ] " * 400 + "[X] No",
    "Severe AS, Vmax 4.3 m/s" + " | -" * 60,
]


def test_rows_of_empty_cells_and_dashes_are_screened_at_once() -> None:
    script = textwrap.dedent(
        """
        import json, sys
        from concord.domain.record import Record, SourceDocument
        from concord.screen.record_screen import RecordScreen
        screen = RecordScreen.load()
        fired = []
        for i, row in enumerate(json.loads(sys.argv[1])):
            text = "Planned surgery date: 2026-12-01\\nDate: 2026-11-20\\n" + row + "\\n"
            document = SourceDocument(source_id="d", kind="txt", text=text)
            record = Record(name="row", documents=(document,))
            fired.append(sorted(h.gate_id for h in screen.screen(record)
                                if h.status.value == "triggered"))
        print(json.dumps(fired))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, json.dumps(ROWS)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    fired = json.loads(done.stdout)
    assert "severe_aortic_stenosis" in fired[-1]  # the last row is still read
