"""`concord bench` figures for scanned records: OCR accuracy and speed of the default engine
on synthetic scans (`scan_pages`: clinic letters and a lab printout at 200 dpi and as
100 dpi faxes), and of every other installed engine as a reference.

Targets (Concord's own, from what a clinician needs of a scan):
  - character error rate ≤ 0.05 on average: a page stays readable and quotable;
  - numeric-token accuracy ≥ 0.90: nine printed values in ten read exactly; the rest must
    be caught by the next target;
  - misread numbers flagged = 1: every numeric word read wrong is below the confidence
    threshold, so it is never verified evidence and a person checks it on the page image;
  - ≤ 5 s a page on this machine: a ten-page referral in under a minute.
"""

from __future__ import annotations

from collections.abc import Callable

from concord.bench.figures import Figure, Target
from concord.bench.ocr_accuracy import PageResult, measure_page, summarise
from concord.bench.scan_pages import benchmark_pages
from concord.errors import InputError
from concord.records.ocr.engines import DEFAULT_ENGINE, ENGINES, ocr_engine

CER_MAX = 0.05
NUMERIC_MIN = 0.90
FLAGGED_MIN = 1.0
SECONDS_PER_PAGE_MAX = 5.0


def ocr_figures(quick: bool = False, say: Callable[[str], None] = lambda _m: None) -> list[Figure]:
    pages = benchmark_pages()
    if quick:
        pages = pages[4:6]  # the lab printout, scanned and faxed
    figures: list[Figure] = []
    for name in [DEFAULT_ENGINE, *(n for n in ENGINES if n != DEFAULT_ENGINE)]:
        try:
            engine = ocr_engine(name)
        except InputError as exc:
            if name == DEFAULT_ENGINE:
                figures.append(
                    Figure("ocr_cer", None, "share", "default OCR engine", note=str(exc))
                )
            continue
        say(f"OCR: {engine.name} on {len(pages)} synthetic scanned pages")
        results = [measure_page(spec, engine) for spec in pages]
        figures.extend(_figures(name, results, default=name == DEFAULT_ENGINE))
    return figures


def _figures(name: str, results: list[PageResult], default: bool) -> list[Figure]:
    summary = summarise(results)
    prefix = "ocr" if default else f"ocr_{name}"
    pages = f"{summary.pages} pages ({', '.join(r.page for r in results)})"
    detail = {
        "engine": summary.engine,
        "pages": {
            r.page: {
                "cer": round(r.cer, 4),
                "numeric_accuracy": round(r.numeric_accuracy, 4),
                "seconds": round(r.seconds, 2),
            }
            for r in results
        },
        "worst_page": summary.worst_page,
    }
    flagged = (
        summary.wrong_numbers_flagged / summary.wrong_numbers if summary.wrong_numbers else 1.0
    )

    def target(op: str, value: float) -> Target | None:
        return Target(op, value) if default else None  # other engines are references

    return [
        Figure(
            f"{prefix}_cer",
            summary.cer,
            "share",
            f"{summary.engine}: character error rate, mean over {pages}",
            target("<=", CER_MAX),
            detail=detail,
        ),
        Figure(
            f"{prefix}_numeric_accuracy",
            summary.numeric_accuracy,
            "share",
            f"{summary.engine}: printed numeric tokens read exactly, mean over the pages",
            target(">=", NUMERIC_MIN),
        ),
        Figure(
            f"{prefix}_misread_numbers_flagged",
            flagged,
            "share",
            f"{summary.engine}: misread numeric words below the confidence threshold "
            f"({summary.wrong_numbers_flagged} of {summary.wrong_numbers}); correct numeric "
            f"words flagged too: {summary.right_numbers_flagged} of {summary.right_numbers}",
            target(">=", FLAGGED_MIN),
        ),
        Figure(
            f"{prefix}_seconds_per_page",
            summary.seconds_per_page,
            "s",
            f"{summary.engine}: OCR of one A4 page (layout included), mean",
            target("<=", SECONDS_PER_PAGE_MAX),
        ),
    ]
