"""The OCR entry of `concord bench`: accuracy measures and figures against their targets."""

from __future__ import annotations

import pytest

from concord.bench.ocr_accuracy import character_error_rate, numeric_accuracy
from concord.bench.ocr_figures import ocr_figures


def test_character_error_rate_ignores_layout_not_characters() -> None:
    assert character_error_rate("K+ 6.4\nmmol/L", "K+  6.4 mmol/L") == 0.0
    assert character_error_rate("K+ 6.4 mmol/L", "K+ 6.1 mmol/L") == pytest.approx(1 / 13)


def test_numeric_accuracy_counts_each_printed_number() -> None:
    printed = "Na 136, K+ 5.9 mmol/L on 28/01/2027, platelets 132"
    assert numeric_accuracy(printed, printed) == 1.0
    assert numeric_accuracy(printed, "Na 136, K+ 3.9 mmol/L on 28/01/2027, platelets 132") == 0.75


def test_quick_ocr_figures_for_the_default_engine() -> None:
    figures = {f.name: f for f in ocr_figures(quick=True)}
    for name in ("ocr_cer", "ocr_numeric_accuracy", "ocr_misread_numbers_flagged"):
        figure = figures[name]
        assert figure.value is not None and 0.0 <= figure.value <= 1.0
        assert figure.target is not None
    assert figures["ocr_cer"].value < 0.2  # the lab printout, scanned and faxed
