"""The Site validation page: a validation run from the app with its progress bar, the report
with the models side by side (table and chart with intervals), and the silent runs listed as
such. The window runs the stand-in models (conftest)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from pathlib import Path

from concord.services import Services
from concord.store import Repository
from tests.ui.helpers import idle
from tests.validation.conftest import reviewed_case


def test_a_validation_from_the_app(site: Repository, run, make_window, qtbot, tmp_path: Path):
    case_id, _ = reviewed_case(run)
    window = make_window(runtime_factory=lambda svc, name: Services.runtime(svc, name))
    window.open_case(case_id)
    idle(qtbot, window, until=lambda: window.case_view.bundle is not None)
    assert "DEMONSTRATION ONLY" in window.case_view.banner.text()  # the case page says so
    from concord.ui.main_window import PAGE_VALIDATION

    page = window.validation_page
    window.show_page(PAGE_VALIDATION)
    idle(qtbot, window)
    assert "demonstration only" in page.status.text()
    page.model.setCurrentText("good")
    page.start()
    seen: list[int] = []
    page.progress.valueChanged.connect(seen.append)
    qtbot.waitUntil(lambda: "stored" in page.progress_text.text(), timeout=180_000)
    idle(qtbot, window, until=lambda: page.reports.rowCount() == 1 and bool(page.chart.bars))
    assert seen and max(seen) >= 1  # the bar moved
    headers = [
        page.figures.horizontalHeaderItem(c).text() for c in range(page.figures.columnCount())
    ]
    assert headers[1] == "good (candidate)" and headers[2].endswith("(demonstration)")
    assert {b.figure for b in page.chart.bars} == {
        "valid outputs", "verified evidence", "gates addressed", "judge kappa"
    }  # fmt: skip
    assert any(b.low is not None and b.high is not None for b in page.chart.bars)
    assert page.silent.rowCount() == 1 and "SILENT" in page.silent.item(0, 4).text()
    assert page.checks.rowCount() >= 5
    shot = Path(os.environ.get("CONCORD_SCREENSHOT_DIR", tmp_path)) / "validation_page.png"
    page.grab().save(str(shot))
    assert shot.stat().st_size > 10_000
    window.validation_jobs.shutdown(wait_ms=10_000)
