"""OCR accuracy and speed on synthetic scanned pages (`scan_pages`): what `concord bench`
reports for scans, and how the OCR engines were compared.

Per page and engine:

* CER, the character error rate: Levenshtein distance between the text read and the text
  printed, divided by the printed length, after collapsing every run of whitespace (line
  breaks included) to one space - layout is not scored, characters are.
* numeric-token accuracy: the share of the printed numeric tokens ("6.4", "10^9",
  "28/01/2027", "120,000") that appear among the tokens read, as a multiset.
* wrong numbers flagged: of the numeric words read that match no printed token (misreads),
  the share whose confidence is below the engine's threshold - those the record marks for a
  person to check. A misread number above the threshold is the dangerous case.
* correct numbers flagged: the share of correctly read numeric words below the threshold
  (the cost of the threshold in needless checks).
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Levenshtein

from concord.bench.scan_pages import PageSpec, render_page
from concord.records.ocr.engines import OcrEngine
from concord.records.ocr.layout import page_text

_NUMERIC = re.compile(r"\d+(?:[.,:/^]\d+)*")


def _squash(text: str) -> str:
    return " ".join(text.split())


def character_error_rate(printed: str, read: str) -> float:
    truth = _squash(printed)
    return Levenshtein.distance(truth, _squash(read)) / max(len(truth), 1)


def numeric_tokens(text: str) -> list[str]:
    return _NUMERIC.findall(text)


def numeric_accuracy(printed: str, read: str) -> float:
    truth = Counter(numeric_tokens(printed))
    found = Counter(numeric_tokens(read))
    total = sum(truth.values())
    return sum((truth & found).values()) / total if total else 1.0


@dataclass(frozen=True)
class PageResult:
    page: str
    engine: str
    seconds: float
    cer: float
    numeric_accuracy: float
    wrong_numbers: int
    wrong_numbers_flagged: int
    right_numbers: int
    right_numbers_flagged: int


def measure_page(spec: PageSpec, engine: OcrEngine) -> PageResult:
    image = render_page(spec)
    started = time.perf_counter()
    text = page_text(engine.read(image))
    seconds = time.perf_counter() - started
    printed = Counter(numeric_tokens(spec.text))
    wrong = wrong_flagged = right = right_flagged = 0
    for placed in text.words:
        tokens = numeric_tokens(placed.word.text)
        if not tokens:
            continue
        flagged = placed.word.confidence < engine.threshold
        if all(printed[t] > 0 for t in tokens):
            right += 1
            right_flagged += flagged
        else:
            wrong += 1
            wrong_flagged += flagged
    return PageResult(
        page=spec.name,
        engine=engine.name,
        seconds=seconds,
        cer=character_error_rate(spec.text, text.text),
        numeric_accuracy=numeric_accuracy(spec.text, text.text),
        wrong_numbers=wrong,
        wrong_numbers_flagged=wrong_flagged,
        right_numbers=right,
        right_numbers_flagged=right_flagged,
    )


@dataclass(frozen=True)
class EngineSummary:
    engine: str
    pages: int
    cer: float  # mean over pages
    numeric_accuracy: float  # mean over pages
    seconds_per_page: float
    wrong_numbers: int
    wrong_numbers_flagged: int
    right_numbers: int
    right_numbers_flagged: int
    worst_page: str


def summarise(results: Sequence[PageResult]) -> EngineSummary:
    count = len(results)
    worst = max(results, key=lambda r: r.cer)
    return EngineSummary(
        engine=results[0].engine,
        pages=count,
        cer=sum(r.cer for r in results) / count,
        numeric_accuracy=sum(r.numeric_accuracy for r in results) / count,
        seconds_per_page=sum(r.seconds for r in results) / count,
        wrong_numbers=sum(r.wrong_numbers for r in results),
        wrong_numbers_flagged=sum(r.wrong_numbers_flagged for r in results),
        right_numbers=sum(r.right_numbers for r in results),
        right_numbers_flagged=sum(r.right_numbers_flagged for r in results),
        worst_page=f"{worst.page} (CER {worst.cer:.3f})",
    )
