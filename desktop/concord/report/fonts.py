"""Fonts for the review PDF, and turning untrusted text into safe Paragraph markup.

DejaVu Sans is used when it can be found (it has ≥, µ, ², —, → and most clinical symbols).
Otherwise the PDF falls back to Helvetica, and text is folded to plain ASCII first
(≥ -> >=, µ -> u, ² -> 2, — -> -), so nothing is printed as a missing-glyph box.
"""

from __future__ import annotations

import functools
import os
import re
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

FONT_DIR_ENV = "CONCORD_FONT_DIR"

_DEJAVU_FILES = {
    "regular": "DejaVuSans.ttf",
    "bold": "DejaVuSans-Bold.ttf",
    "italic": "DejaVuSans-Oblique.ttf",
    "bold_italic": "DejaVuSans-BoldOblique.ttf",
    "mono": "DejaVuSansMono.ttf",
}

_ASCII_FALLBACK = {
    "≥": ">=",
    "≤": "<=",
    "≠": "!=",
    "±": "+/-",
    "µ": "u",
    "μ": "u",
    "²": "2",
    "³": "3",
    "°": " deg",
    "×": "x",
    "·": ".",
    "—": "-",
    "–": "-",
    "−": "-",
    "→": "->",
    "←": "<-",
    "‘": "'",
    "’": "'",
    "“": '"',
    "”": '"',
    "…": "...",
    "•": "*",
}

# Control characters break PDF text and can hide content; tabs and newlines are kept.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class FontSet:
    regular: str
    bold: str
    italic: str
    mono: str
    unicode: bool
    source: str

    def describe(self) -> str:
        if self.unicode:
            return f"DejaVu Sans from {self.source}"
        return "Helvetica (DejaVu Sans not found; text folded to ASCII)"


def _candidate_dirs() -> list[Path]:
    dirs: list[Path] = []
    env = os.environ.get(FONT_DIR_ENV)
    if env:
        dirs.append(Path(env))
    dirs += [
        Path("/usr/share/fonts/truetype/dejavu"),
        Path("/usr/share/fonts/dejavu"),
        Path("/usr/share/fonts/TTF"),
        Path("/usr/local/share/fonts"),
        Path.home() / ".local/share/fonts",
        Path(sys.prefix) / "share" / "concord" / "fonts",
    ]
    if sys.platform == "darwin":
        dirs += [Path("/Library/Fonts"), Path.home() / "Library/Fonts"]
    if sys.platform == "win32":
        windir = os.environ.get("WINDIR", r"C:\Windows")
        dirs.append(Path(windir) / "Fonts")
    return dirs


def _find_dejavu() -> Path | None:
    for folder in _candidate_dirs():
        if all((folder / f).is_file() for f in _DEJAVU_FILES.values()):
            return folder
    return None


@functools.cache
def font_set() -> FontSet:
    """Register the fonts with reportlab once per process and say which were used."""
    from reportlab.lib.fonts import addMapping
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFError, TTFont

    folder = _find_dejavu()
    if folder is not None:
        try:
            names = {}
            for style, file_name in _DEJAVU_FILES.items():
                name = "Concord-" + file_name.removesuffix(".ttf")
                pdfmetrics.registerFont(TTFont(name, str(folder / file_name)))
                names[style] = name
            family = "Concord-DejaVuSans"
            addMapping(family, 0, 0, names["regular"])
            addMapping(family, 1, 0, names["bold"])
            addMapping(family, 0, 1, names["italic"])
            addMapping(family, 1, 1, names["bold_italic"])
            # Paragraph markup <b>/<i> resolves through the regular font's family name.
            for name in (names["regular"], names["bold"], names["italic"]):
                addMapping(name, 0, 0, names["regular"])
                addMapping(name, 1, 0, names["bold"])
                addMapping(name, 0, 1, names["italic"])
                addMapping(name, 1, 1, names["bold_italic"])
            return FontSet(
                regular=names["regular"],
                bold=names["bold"],
                italic=names["italic"],
                mono=names["mono"],
                unicode=True,
                source=str(folder),
            )
        except TTFError:
            pass
    return FontSet(
        regular="Helvetica",
        bold="Helvetica-Bold",
        italic="Helvetica-Oblique",
        mono="Courier",
        unicode=False,
        source="built-in",
    )


def to_ascii(text: str) -> str:
    """Plain-ASCII rendering of `text` for fonts without Unicode coverage."""
    out = []
    for char in text:
        if char in _ASCII_FALLBACK:
            out.append(_ASCII_FALLBACK[char])
        elif ord(char) < 128:
            out.append(char)
        else:
            folded = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode()
            out.append(folded or "?")
    return "".join(out)


def clean(text: object) -> str:
    """Untrusted value -> printable text for the current font (no markup escaping)."""
    value = _CONTROL.sub("", str(text))
    return value if font_set().unicode else to_ascii(value)


def esc(text: object) -> str:
    """Untrusted value -> Paragraph markup that prints it literally (<b> stays "<b>")."""
    return escape(clean(text)).replace("\r\n", "\n").replace("\n", "<br/>")
