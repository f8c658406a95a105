"""Numbers and units in clinical text, normalised for comparing thresholds.

Two briefs state the same threshold when `quantities` gives the same (number, unit) pair:
  numbers   3.6, 45000 (from 45,000), -2.5 (a sign only where it cannot be a range dash),
            3.6 == 3.60; 25-30 gives 25 and 30
  units     following a number: mmol/l, mg/dl, %, mmhg, cm^2 (cm2, cm²), x10^9/l (×10⁹/L),
            /ul (/µL), days, weeks ...; unknown words after a number are not units
  labels    words containing digits (spo2, hba1c, t2dm) are names, not quantities
`is_unit` tells evidence verification whether a changed word is a unit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from concord.text.characters import MINUS_SIGNS, MULTIPLICATION_SIGNS, SUPERSCRIPT_DIGITS

_SUPERSCRIPTS = str.maketrans(SUPERSCRIPT_DIGITS)
_SUPERSCRIPT_RUN = re.compile(f"[{''.join(SUPERSCRIPT_DIGITS)}]+")
_CHAR_MAP = str.maketrans(
    {
        "µ": "u",
        "μ": "u",
        **dict.fromkeys(MULTIPLICATION_SIGNS, "x"),
        **dict.fromkeys(MINUS_SIGNS, "-"),
        "\u00a0": " ",
    }
)
_SCI = re.compile(r"[x*]\s*10\s*(?:\^|\*\*|e)\s*(\d+)")

_UNIT_PARTS = frozenset(
    """% mol mmol umol nmol pmol meq mg g kg ug mcg ng pg l ml dl ul fl nl mm cm m km
    mm^2 cm^2 m^2 mm^3 cm^3 m^3 mmhg cmh2o kpa pa iu u miu mu units unit bpm min mins s sec
    secs ms h hr hrs hour hours d day days wk wks week weeks mo mos month months y yr yrs
    year years c °c f kcal cal breaths beats hpf gy mosm osm mv""".split()  # noqa: SIM905
)
_UNIT_PART_PATTERN = re.compile(r"x10\^\d+|\d+(?:\.\d+)?m\^2")

_TOKENS = re.compile(
    r"""
    (?P<sci>x10\^\d+(?:/[a-z]+)?)
  | (?P<label>[^\W\d_]+\d(?:[\w.^]*\w)?)
  | (?<![\w.])(?P<sign>[-+])?
    (?P<num>\d{1,3}(?:,\d{3})+(?![\d,])(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)
    (?P<unit>\s{0,2}(?:%|x10\^\d+(?:/[a-z]+\d?)?|/[a-z]+\d?|[a-z°][\w°^]*(?:/(?:\d+\.\d+)?[\w°^]+)*))?
    """,
    re.VERBOSE,
)
_UNIT_EXPONENT = re.compile(r"(?<=[a-z])([23])$")


def canonical(text: str) -> str:
    """Lower case with unit spellings unified (µ->u, ×->x, superscripts -> ^n, x10e9 ->
    x10^9). Used only for comparison: offsets into it mean nothing."""
    text = _SUPERSCRIPT_RUN.sub(lambda m: "^" + m.group().translate(_SUPERSCRIPTS), text)
    text = text.translate(_CHAR_MAP).lower()
    return _SCI.sub(r"x10^\1", text)


def _number(raw: str) -> str:
    try:
        value = Decimal(raw.replace(",", ""))
    except InvalidOperation:
        return raw
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "0") else text


def _unit(raw: str) -> str | None:
    """Canonical unit, or None if `raw` is not a unit Concord knows."""
    unit = raw.replace(" ", "").strip()
    parts = [_UNIT_EXPONENT.sub(r"^\1", part) for part in unit.split("/")]
    for index, part in enumerate(parts):
        if part in _UNIT_PARTS:
            continue
        if (index == 0 and part == "") or _UNIT_PART_PATTERN.fullmatch(part):
            continue
        return None
    return "/".join(parts)


def is_unit(raw: str) -> bool:
    """Whether `raw` (e.g. "mmol/L", " cm²", "/µL", "days") is a unit Concord knows."""
    return _unit(canonical(raw)) is not None


def _sign_allowed(text: str, at: int) -> bool:
    """A '-' at `at` is a minus sign unless it follows a number (then it is a range)."""
    before = text[:at].rstrip()
    return not before or not (before[-1].isdigit() or before[-1] == "%")


def _signed_number(text: str, match: re.Match[str]) -> str:
    """The normalised number of a `_TOKENS` match, with its sign where it is a minus sign."""
    sign = match.group("sign") or ""
    if sign == "+" or (sign == "-" and not _sign_allowed(text, match.start("sign"))):
        sign = ""
    return _number(sign + match.group("num"))


@dataclass(frozen=True)
class QuantityAt:
    """One number written in a text, with its unit ("" if none), where it stands in the
    text's `canonical` form (offsets into the original text mean nothing here)."""

    number: str
    unit: str
    start: int
    end: int

    @property
    def value(self) -> Decimal:
        return Decimal(self.number)


def quantities_at(text: str) -> tuple[str, tuple[QuantityAt, ...]]:
    """`canonical(text)` and every number in it, in order, with its unit and place."""
    text = canonical(text)
    found: list[QuantityAt] = []
    for match in _TOKENS.finditer(text):
        if match.group("num"):
            unit_text = match.group("unit")
            unit = _unit(unit_text) if unit_text else None
            end = match.end() if unit else match.end("num")
            found.append(QuantityAt(_signed_number(text, match), unit or "", match.start(), end))
    return text, tuple(found)


def quantities(text: str) -> frozenset[tuple[str, str]]:
    """The distinct (number, unit) pairs written in `text`, unit "" where none follows:
    "K+ >= 6.0 mmol/L" gives ("6", "mmol/l"), as does "potassium 6 mmol/l". Words with
    digits ("SpO2") are names, not quantities."""
    return frozenset((q.number, q.unit) for q in quantities_at(text)[1])
