"""Reading the value a clinic wrote for a quantity, wherever and however it wrote it.

`ValueReader.read` takes a mention of a measurable concept ("K+", "Platelets", "INR") and
finds its values, trying in turn:

1. A combined field: labels joined by slashes and values joined the same way ("PT/INR
   18.2/1.7", "Na/K 138/6.3", "Hb/WCC/Plt 98/4.1/45"): each label takes its own value.
2. A table row: the line split into cells (tabs, pipes, two or more spaces), the mention
   alone in its cell. The other cells are classified - value, flag (H, L, *, ↑), reference
   range ("3.5-5.3", "(150 - 400)"), unit, date - in any column order; a header row above
   ("Result | Flag | Range", or dates, or hours) says which column is which and when.
3. A column table: the mention in a header row of labels ("Hb  WCC  Plt  Na  K"), its
   values in the rows below, in the same column; rows dated in their first cell are
   ordered by date.
4. Prose: the first number after the mention within `max_gap` characters, skipping dates,
   flags, units in brackets and words like "was", "of", "level"; a number whose unit
   belongs to another quantity ("2 L/min") is passed over. A bracketed aside does not count
   toward the gap, its words do not end the search, and a number inside a remark ("(given
   2 pools)") is passed over when a value follows it. Then a series: values linked by
   "->", "then", "rising to", "has fallen to", commas ("14, 52, 230"), "(was 6.2 on
   admission)", a later value after a remark ("6.2 on a haemolysed sample; repeat 4.6"),
   each value dated by a date after it, bracketed or not ("5.2 (01/11) -> 6.1 (18/11)").

A value is a range of possible results in the gate's canonical unit: "25-30%" is 25 to 30,
"<30" is minus infinity to 30, "in the 40s" is 40 to 49, "45,000/µL" is 45 ×10⁹/L,
"0.8 lakh/cumm" is 80, "EF 0.30" is 30%. Each value knows its order in the series, the
words that place it in time ("repeat", "was", "on admission", "today") and its date, and
whether it is a target or a threshold rather than a result ("target INR 2-3", "aim K+ <
5.5", "transfuse if < 50", "INR < 1.5 required").
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date
from enum import IntEnum

from concord.screen.cues import Cues
from concord.screen.dates import DATE_RE, dates_in, short_date_at
from concord.screen.document import ReadDocument, split_cells
from concord.screen.lexicon import Mention
from concord.screen.units import TIME_UNITS, UnitForm, UnitTable

MAX_VALUE_CANDIDATES = 3  # numbers tried after a mention ("SpO2 on 2L O2 89%")
MAX_SERIES = 8
HEADER_LOOKUP_LINES = 12
COLUMN_TABLE_ROWS = 40

NUMBER = (
    r"\d{1,3}(?:,\d{3})+(?![\d,])|\d{1,2}(?:,\d{2})+,\d{3}(?![\d,])"
    r"|\d+\.\d+|\d+,\d{1,2}(?![\d,])|\d+"
)
_NUMBER_AT = re.compile(rf"(?<![A-Za-z0-9.,/^])(?<![A-Za-z]-)(?P<n>{NUMBER})")
_QUALIFIER_BEFORE = re.compile(
    r"(?P<q><=|>=|≤|≥|=<|<(?!-)|(?<![-=>])>|less\s+than|below|under|greater\s+than|more\s+than|"
    r"above|over|"
    r"at\s+least|at\s+most|up\s+to|~|≈|approx\.?|approximately|about|around|c\.|ca\.)\s*$",
    re.IGNORECASE,
)
_LOWER_BOUND = {">", ">=", "≥", "=>", "greater than", "more than", "above", "over", "at least"}
_UPPER_BOUND = {"<", "<=", "≤", "=<", "less than", "below", "under", "at most", "up to"}
_DECADE_RE = re.compile(r"(?P<where>high|low|mid|upper|lower)?[\s-]*$", re.IGNORECASE)
_PAIR_TAIL = re.compile(rf"[ \t]*(?:/|over)[ \t]*(?P<b>{NUMBER})(?![\d/])", re.IGNORECASE)
_RANGE_TAIL = re.compile(rf"\s*%?\s*(?:-|–|to)\s*(?P<b>{NUMBER})(?![\d/])")
_LINK_VERBS = (
    r"(?:rising|risen|rose|increasing|increased|climbing|climbed|going\s+up|gone\s+up|up|"
    r"falling|fallen|fell|dropped|dropping|decreased|decreasing|coming\s+down|come\s+down|down|"
    r"improved|improving|corrected|normalised|normalized|settled|recovered|peaked|peaking)"
)
_CHANGE_TO = re.compile(rf"(?<![A-Za-z]){_LINK_VERBS}\s+(?:further\s+)?(?:to|at)(?![A-Za-z])", re.I)
_SERIES_LINK = re.compile(
    r"\s*(?:(?:[,;]\s*)?(?:and\s+)?(?:then\s+|now\s+)?(?:(?:has|have|had)\s+)?(?:since\s+)?"
    rf"(?:{_LINK_VERBS}\s+(?:to|at)\b|->|→|=>|>>|>|followed\s+by\b|\bto\b)"
    r"|[,;]?\s*\bbut\s+(?:now\s+|then\s+)?"
    r"|[,;]\s*(?:and\s+|then\s+|now\s+)?|\band\s+(?:then\s+|now\s+)?|\bthen\b|\bnow\b)\s*",
    re.IGNORECASE,
)
_LATER_JUMP = re.compile(
    r"\s*[,;]?(?:(?![\d.])[^\n]){0,60}?(?<![A-Za-z])(?P<w>now|repeat(?:ed)?|rpt|re-?check(?:ed)?|"
    r"re-?tested|currently|today|latest|subsequently|since|post-?[a-z]+|after\s+[a-z\-]+)"
    r"(?![A-Za-z])(?:\s+(?:[A-Za-z][A-Za-z\-]*|\([^)\d]{0,20}\))){0,3}?\s*(?:[:=]\s*)?(?=\d)",
    re.IGNORECASE,
)
_PAREN_REMARK = re.compile(
    r"\s*[(\[](?!\s*(?:was|were|previously|prev|previous|last|initially|from|repeat|rpt|now|"
    r"today|latest|on\s+admission|baseline|\d))[^()\[\]\n]{0,60}[)\]]",
    re.IGNORECASE,
)
_CONDITION_WORDS = re.compile(
    r"\s*(?:\(\s*)?(?:on\s+(?:room\s+)?air|at\s+rest|on\s+exertion|on\s+walking|RA|r/a|"
    r"on\s+\d+(?:\.\d+)?\s*(?:L|l|lpm|litres?)(?:/min)?(?:\s+(?:O2|oxygen))?"
    r"(?:\s+via\s+[a-z ]{2,20})?|"
    r"on\s+(?:O2|oxygen))(?:\s*\))?(?![A-Za-z])",
    re.IGNORECASE,
)
_WEEKDAY = re.compile(
    r"\s*(?:on\s+)?(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?(?![A-Za-z])",
    re.IGNORECASE,
)
_YEAR_AFTER_WORD = re.compile(
    r"(?<![A-Za-z])(?:in|since|from|during|until|before|after|circa|c\.)\s*$", re.IGNORECASE
)
_FLAG_CELL = re.compile(
    r"^\(?\s*(?:HH|LL|H|L|HI|LO|High|Low|A|C|Crit|Critical|Abn|Abnormal|\*{1,2}|!{1,2}|↑|↓)\s*\)?$",
    re.IGNORECASE,
)
_FLAG_AFTER = re.compile(
    r"\s*(?:\(\s*(?:HH|LL|H|L|High|Low|A|C|Crit|Critical|\*|!)\s*\)|\*{1,2}|!{1,2}|↑|↓|"
    r"(?:HH|LL|H|L)(?![A-Za-z0-9]))",
)
_REF_RANGE = re.compile(
    rf"\s*[(\[]\s*(?:ref(?:erence)?\.?\s*(?:range)?[:\s]*|normal[:\s]*|N[:\s]+|RR[:\s]*)?"
    rf"(?:{NUMBER})?\s*(?:-|–|to)?\s*(?:[<>≤≥]\s*)?(?:{NUMBER})?\s*[^\d()\[\]\n]{{0,12}}[)\]]",
    re.IGNORECASE,
)
_RANGE_CELL = re.compile(
    rf"^[(\[]?\s*(?:ref(?:erence)?\.?\s*(?:range)?[:\s]*|normal[:\s]*|RR[:\s]*)?"
    rf"(?:(?:{NUMBER})\s*(?:-|–|to)\s*(?:{NUMBER})|[<>≤≥]\s*(?:{NUMBER}))\s*[)\]]?$",
    re.IGNORECASE,
)
_VALUE_CELL = re.compile(
    rf"^(?P<q>[<>≤≥~]|<=|>=)?\s*(?P<n>{NUMBER})(?P<rest>.*)$",
)
_HOURS_CELL = re.compile(r"^(?:T\s*=?\s*)?(?P<h>\d{1,3})\s*(?:h|hr|hrs|hours?)$", re.IGNORECASE)
_TIME_OF_DAY = re.compile(r"(?<![\d:])\d{1,2}:\d{2}(?![\d:])")
_EARLIER_PAREN = re.compile(
    r"\s*[(\[,;]?\s*(?:was|previously|prev\.?|previous|last|initially|from|on\s+admission|"
    r"admission|baseline|before)\s*:?\s*",
    re.IGNORECASE,
)
_OPEN_PAREN = re.compile(r"\s*\(\s*")
_OPEN_BRACKET = re.compile(r"\s*[(\[]\s*")
_CLOSE_BRACKET = re.compile(r"\s*[)\]]")
_ASIDE = re.compile(r"[(\[][^()\[\]\n]{0,80}[)\]]")
_CLOSE_PAREN = re.compile(r"\s*\)")
_SLASH = re.compile(r"\s*/\s*")
_SLASH_END = re.compile(r"/\s*$")
_COMBINED_LEAD = re.compile(r"(?:\s*(?:\([^()\n]{0,80}\)|:|=|-(?!\d)|of|was|is))*\s*")
_HOURS_IN = re.compile(r"(\d{1,3})\s*(?:h|hr|hrs|hours?)\b")
_HOURS_AT = re.compile(r"\s*(?:at\s+)?(?:T\s*=?\s*)?(\d{1,3})\s*(?:h|hr|hrs|hours?)(?![A-Za-z])")
_ON_DATED = re.compile(r"\s*(?:on|dated|at|from|in)?\s*")
_DAY_WORD = re.compile(
    r"\s*\(?\s*(?P<w>today|tonight|overnight|this\s+(?:morning|afternoon|evening|am|pm)|"
    r"yesterday|on\s+admission|at\s+admission|"
    r"admission|latest|repeat|baseline|pre-?op|post-?op|initially|previously|"
    r"last\s+(?:week|month|year|night)|\d+\s*(?:days?|d|weeks?|wks?|months?|mths?|years?|yrs?)"
    r"\s+ago|(?:a|one|two|three|four|few|several)\s+(?:days?|weeks?|months?)\s+ago)\s*\)?",
    re.IGNORECASE,
)
_DIRECTLY_AFTER = re.compile(r"[\s)\]]*(?P<w>[A-Za-z][A-Za-z \-]{0,24})")
_DIGIT = re.compile(r"\d")
_WEAK_TARGET_CUES = ("to be", "when", "once", "if", "until", "between")
_INSTRUCTION_AFTER = re.compile(
    r"[ \t]*(?:\([^()\n]{0,20}\)[ \t]*)?(?::|->|→|=>|then)[ \t]*(?:please[ \t]+)?"
    r"(?:give|treat|start|administer|call|contact|inform|stop|withhold|hold|consider|refer|"
    r"escalate|cancel|defer|postpone|transfuse|repeat\s+in|recheck\s+in|check)(?![A-Za-z])",
    re.IGNORECASE,
)
_FROM_BEFORE = re.compile(r"(?<![A-Za-z])from\s*$", re.IGNORECASE)
_DECIMAL_COMMA = re.compile(r"\d+,\d{1,2}")
_SENTENCE_END = re.compile(r"[.;!?](?:\s|$)")
LATER_REACH = 160  # characters after a value searched for a later one in its sentence
_LATER_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")
_LATER_GAP = re.compile(
    r"(?:[\s,:=]+|\s*\([^()\n\d]{0,30}\)\s*)*(?:[A-Za-z][A-Za-z'\-]*[\s,:=]+(?:\([^()\n\d]{0,30}\)"
    r"[\s,:=]*)?){0,5}?(?:[(\[]\s*)?(?=[<>~]?\s*\d)",
    re.IGNORECASE,
)
_TIME_OF_DAY_END = re.compile(r"(?<!\d)\d{1,2}:\d{2}$")
_LATER_AFTER = re.compile(r"(?P<space>[\s,(]*)(?P<word>[A-Za-z/%^0-9.]+)?[\s,(]*")
_GAP_STOP = re.compile(r"[.;!?](?:\s|$)|\n")


class Rank(IntEnum):
    """Where words place a value in time, against others of the same quantity."""

    EARLIER = 0
    PLAIN = 1
    LATER = 2


@dataclass(frozen=True)
class QuantitySpec:
    """What a numeric rule reads: the quantity's unit table id, plausible values and how to
    scale bare numbers."""

    concept: str
    quantity: str | None
    plausible: tuple[float, float]
    bare_scaling: tuple[tuple[str, float, float, float], ...] = ()
    """(">=" or "<", bound, factor, offset): how a number with no unit is scaled."""
    max_gap: int = 40
    pair: str | None = None  # "first" or "second": a value written as a pair ("190/110")


@dataclass(frozen=True)
class Value:
    low: float
    high: float
    start: int
    end: int
    qualified: bool  # written with <, >, "below" ...
    rank: Rank = Rank.PLAIN
    time: date | None = None
    hours: float | None = None  # "(3h)" in a troponin series

    def shown(self, text: str) -> str:
        return " ".join(text[self.start : self.end].split())


@dataclass(frozen=True)
class Reading:
    """The values read for one mention, in the order they were taken (if known)."""

    label_start: int
    label_end: int
    values: tuple[Value, ...]
    ordered: bool  # a series whose order is known (arrows, dates, hours, markers)
    layout: str  # "combined", "row", "column" or "prose"


class ValueReader:
    def __init__(self, units: UnitTable, cues: Cues) -> None:
        self.units = units
        self.cues = cues

    # -- entry point ----------------------------------------------------------------------

    def read(
        self,
        d: ReadDocument,
        mention: Mention,
        spec: QuantitySpec,
        is_other_label: Callable[[Mention], bool],
        anchor: date,
    ) -> Reading | None:
        """The values written for `mention`; `is_other_label` says whether a mention names
        another quantity (which ends the search for this one's value)."""
        return (
            self._combined(d, mention, spec, is_other_label)
            or self._row(d, mention, spec, is_other_label, anchor)
            or self._column(d, mention, spec, is_other_label, anchor)
            or self._prose(d, mention, spec, is_other_label, anchor)
        )

    # -- numbers --------------------------------------------------------------------------

    def _number(self, text: str, pos: int, end: int) -> re.Match[str] | None:
        return _NUMBER_AT.search(text, pos, end)

    def _value_at(
        self, text: str, m: re.Match[str], spec: QuantitySpec, before: str, limit: int
    ) -> Value | None:
        """The value starting with number `m`, or None if its unit is another quantity's or
        it is not plausible."""
        first = _to_float(m.group("n"))
        low = high = first
        end = m.end()
        start = m.start()
        decade = text[end : end + 1] == "s" and not text[end + 1 : end + 2].isalpha()
        pair = _PAIR_TAIL.match(text, end, limit) if spec.pair is not None else None
        if spec.pair == "second" and pair is None:
            return None  # "BP 190": no diastolic written
        if pair is not None:  # "190/110", "190 over 110": the part the rule reads
            if spec.pair == "second":
                first = low = high = _to_float(pair.group("b"))
                start = pair.start("b")
            end = pair.end()
        elif decade and first >= 10 and first % 10 == 0:
            where = _DECADE_RE.search(before)
            word = (where.group("where") or "").lower() if where else ""
            step = 100 if first >= 100 and first % 100 == 0 else 10  # the 40s, the 300s
            low, high = {
                "high": (first + 0.6 * step, first + 0.99 * step),
                "upper": (first + 0.6 * step, first + 0.99 * step),
                "low": (first, first + 0.39 * step),
                "lower": (first, first + 0.39 * step),
                "mid": (first + 0.3 * step, first + 0.7 * step),
            }.get(word, (first, first + 0.99 * step))
            end += 1
        elif not _FROM_BEFORE.search(before):  # "from 20 to 85" is a series, not a range
            tail = _RANGE_TAIL.match(text, end, limit)
            if tail is not None:
                second = _to_float(tail.group("b"))
                low, high = min(first, second), max(first, second)
                end = tail.end()
        unit, unit_end = self.units.unit_at(text, end, spec.quantity)
        if unit is None:
            paren = _OPEN_PAREN.match(text, end, limit)
            flag = _FLAG_AFTER.match(text, end, limit)
            if paren is not None and flag is None:
                unit, inner_end = self.units.unit_at(text, paren.end(), spec.quantity)
                close = _CLOSE_PAREN.match(text, inner_end, limit) if unit else None
                unit_end = close.end() if close else unit_end
                if close is None:
                    unit = None
        if unit is not None and unit.quantity != spec.quantity:
            flag = _FLAG_AFTER.match(text, end, limit)
            if flag is None or flag.end() != unit_end:
                return None
            unit = None  # "Plt 82 L": a low flag, not litres
        factor, offset = (unit.factor, unit.offset) if unit is not None else _bare(spec, low)
        if unit is not None:
            end = unit_end
        low, high = low * factor + offset, high * factor + offset
        plausible_low, plausible_high = spec.plausible
        if not (plausible_low <= low and high <= plausible_high):
            return None
        qualifier = _QUALIFIER_BEFORE.search(before)
        qualified = False
        if qualifier is not None:
            word = " ".join(qualifier.group("q").lower().split())
            if word in _LOWER_BOUND:
                high, qualified = math.inf, True
            elif word in _UPPER_BOUND:
                low, qualified = -math.inf, True
        flag = _FLAG_AFTER.match(text, end, limit)
        if flag is not None and not text[flag.end() : flag.end() + 1].isalnum():
            end = flag.end()
        return Value(low=low, high=high, start=start, end=end, qualified=qualified)

    # -- 1. combined fields ---------------------------------------------------------------

    def _combined(
        self,
        d: ReadDocument,
        mention: Mention,
        spec: QuantitySpec,
        is_other: Callable[[Mention], bool],
    ) -> Reading | None:
        text = d.text
        line_start, line_end = d.line_bounds(mention.start)
        labels = [mention]
        pos = mention.end
        while True:  # labels after ours: "INR/APTT"
            slash = _SLASH.match(text, pos, line_end)
            if slash is None:
                break
            following = d.starting_in(slash.end(), slash.end() + 1)
            if not following:
                break
            labels.append(following[0])
            pos = following[0].end
        group_end = pos
        pos = mention.start
        while True:  # labels before ours: "PT/INR"
            slash = _SLASH_END.search(text, max(line_start, pos - 3), pos)
            if slash is None:
                break
            before = [m for m in d.starting_in(max(line_start, pos - 30), pos) if m.end <= pos - 1]
            if not before or not _SLASH.fullmatch(text, before[-1].end, pos):
                break
            labels.insert(0, before[-1])
            pos = before[-1].start
        if len(labels) < 2:
            return None
        index = next(i for i, m in enumerate(labels) if m.start == mention.start)
        lead = _COMBINED_LEAD.match(text, group_end, line_end)
        start = lead.end() if lead else group_end
        values = _slash_values(text, start, line_end)
        if len(values) != len(labels):
            return None
        v_start, v_end = values[index]
        m = _NUMBER_HERE.match(text, v_start)
        if m is None:
            return None
        value = self._value_at(text, m, spec, "", v_end)
        if value is None:
            return None
        return Reading(mention.start, mention.end, (value,), True, "combined")

    # -- 2. table rows --------------------------------------------------------------------

    def _row(
        self,
        d: ReadDocument,
        mention: Mention,
        spec: QuantitySpec,
        is_other: Callable[[Mention], bool],
        anchor: date,
    ) -> Reading | None:
        text = d.text
        line_start, line_end = d.line_bounds(mention.start)
        cells = d.cells(line_start, line_end)
        if len(cells) < 2:
            return None
        own_index = next((i for i, c in enumerate(cells) if c[0] <= mention.start < c[1]), None)
        if own_index is None or not self._label_only(text, cells[own_index], mention):
            return None
        own = cells[own_index]
        if any(
            is_other(m) for i, c in enumerate(cells) if i != own_index for m in d.starting_in(*c)
        ):
            return None  # a row of several labels: a header, not this label's row
        header = self._header_above(d, line_start)
        roles = header.roles(text, line_start, cells) if header else [None] * len(cells)
        unit = self._label_unit(text, own, mention, spec)
        flags: list[int] = []
        for i, (c0, c1) in enumerate(cells):
            cell = text[c0:c1].strip()
            if i == own_index:
                continue
            role = roles[i]
            if (role is not None and role.role == "unit") or (
                role is None and self.units.is_unit(cell.strip("()[] "))
            ):
                unit = self.units.is_unit(cell.strip("()[] "), spec.quantity) or unit
            if _FLAG_CELL.match(cell):
                flags.append(i)
        if unit is not None and unit.quantity != spec.quantity:
            return None
        values: list[Value] = []
        row_when, row_hours = None, None  # a date cell with no header: the row's date
        for i, (c0, c1) in enumerate(cells):
            role = roles[i]
            if i == own_index or i in flags or role is not None and role.role != "when":
                continue
            stamp = _stamp_cell(text[c0:c1].strip())
            if stamp is not None:
                row_when, row_hours = stamp
                flags.append(i)  # not a value
        for i, (c0, c1) in enumerate(cells):
            if i == own_index or i in flags:
                continue
            cell = text[c0:c1].strip()
            role = roles[i]
            if role is not None and role.role != "value":
                continue
            if role is None and (
                _RANGE_CELL.match(cell) or self.units.is_unit(cell.strip("()[] "))
            ):
                continue
            value = self._cell_value(text, c0, c1, spec, unit)
            if value is None:
                continue
            when = role.when if role else None
            hours = role.hours if role else None
            if when is None:
                dated = short_date_at(text, value.end, c1, anchor)
                when = dated.exact_day if dated else None
            if when is None and row_when is not None:
                when, hours = row_when, hours if hours is not None else row_hours
            values.append(replace(value, time=when, hours=hours))
        if not values:
            return None
        if row_when is not None:
            flags = [f for f in flags if _FLAG_CELL.match(text[cells[f][0] : cells[f][1]].strip())]
        if len(values) > 1 and header is None and flags:
            flagged = [
                v
                for v in values
                if any(
                    abs(cells[f][0] - v.end) < 12 or abs(v.start - cells[f][1]) < 12 for f in flags
                )
            ]
            values = flagged or values
        ordered = len(values) > 1 and all(v.time or v.hours is not None for v in values)
        if ordered:
            values.sort(key=lambda v: (v.time or date.min, v.hours or 0.0))
        return Reading(mention.start, mention.end, tuple(values), ordered, "row")

    def _label_only(self, text: str, cell: tuple[int, int], mention: Mention) -> bool:
        """The mention's cell holds the label and nothing but units, brackets, a colon."""
        rest = text[cell[0] : mention.start] + " " + text[mention.end : cell[1]]
        rest = re.sub(r"\([^)]*\)|\[[^\]]*\]", " ", rest)
        rest = re.sub(r"[:\-–=*#•>]", " ", rest)
        return all(self.units.is_unit(w) or w.lower() in _LABEL_WORDS for w in rest.split())

    def _label_unit(
        self, text: str, cell: tuple[int, int], mention: Mention, spec: QuantitySpec
    ) -> UnitForm | None:
        m = re.search(r"[(\[]\s*([^()\[\]]+?)\s*[)\]]", text[mention.end : cell[1]])
        return self.units.is_unit(m.group(1), spec.quantity) if m else None

    def _cell_value(
        self, text: str, start: int, end: int, spec: QuantitySpec, unit: UnitForm | None
    ) -> Value | None:
        cell = text[start:end]
        stripped = cell.strip()
        m = _VALUE_CELL.match(stripped)
        if m is None:
            return None
        offset = start + (len(cell) - len(cell.lstrip())) + m.start("n")
        number = _NUMBER_AT.match(text, offset)
        if number is None:
            return None
        value = self._value_at(text, number, spec, stripped[: m.start("n")], end)
        if value is None:
            return None
        if unit is not None and self.units.unit_at(text, number.end(), spec.quantity)[0] is None:
            factor, shift = _bare(spec, _to_float(number.group("n")))
            low = unit.to_canonical((value.low - shift) / factor)
            high = unit.to_canonical((value.high - shift) / factor)
            plausible_low, plausible_high = spec.plausible
            if not (plausible_low <= low and high <= plausible_high):
                return None
            value = replace(value, low=low, high=high)
        return value

    def _header_above(self, d: ReadDocument, line_start: int) -> _Header | None:
        """The header row of the table a row is in (searched once per row)."""
        key = ("header", line_start)
        if key not in d.memo:
            d.memo[key] = self._find_header(d, line_start)
        found = d.memo[key]
        return found if isinstance(found, _Header) else None

    def _find_header(self, d: ReadDocument, line_start: int) -> _Header | None:
        number = d.line_number(line_start)
        for back in range(1, HEADER_LOOKUP_LINES + 1):
            bounds = d.line_at(number - back)
            if bounds is None:
                return None
            start, end = bounds
            if not d.text[start:end].strip():
                return None
            header = _Header.parse(d.text, start, end, self.cues)
            if header is not None:
                return header
        return None

    # -- 3. column tables -----------------------------------------------------------------

    def _column(
        self,
        d: ReadDocument,
        mention: Mention,
        spec: QuantitySpec,
        is_other: Callable[[Mention], bool],
        anchor: date,
    ) -> Reading | None:
        text = d.text
        line_start, line_end = d.line_bounds(mention.start)
        cells = d.cells(line_start, line_end)
        if len(cells) < 2:
            return None
        labelled = [bool(d.starting_in(c0, c1)) for c0, c1 in cells]
        if sum(labelled) < 2 or not all(
            lab or _is_header_cell(text[c0:c1], self.cues) or not _DIGIT.search(text, c0, c1)
            for lab, (c0, c1) in zip(labelled, cells, strict=True)
        ):
            return None
        own_index = next((i for i, c in enumerate(cells) if c[0] <= mention.start < c[1]), None)
        if own_index is None:
            return None
        label_unit = self._label_unit(text, cells[own_index], mention, spec)
        values: list[Value] = []
        number = d.line_number(line_start)
        for below in range(1, COLUMN_TABLE_ROWS + 1):
            bounds = d.line_at(number + below)
            if bounds is None:
                break
            row_start, row_end = bounds
            if not text[row_start:row_end].strip():
                break
            row = _cells(text, row_start, row_end)
            if len(row) < 2 or d.starting_in(row_start, row_end):
                break
            cell = _aligned(text, line_start, cells, own_index, row_start, row)
            if cell is None:
                continue
            value = self._cell_value(text, cell[0], cell[1], spec, label_unit)
            if value is None:
                continue
            first = text[row[0][0] : row[0][1]]
            found = _dates(first)
            when = found[0] if found else None
            if when is None:
                dated = short_date_at(text, row[0][0], row[0][1], anchor)
                when = dated.exact_day if dated else None
            values.append(replace(value, time=when))
        if not values:
            return None
        ordered = len(values) > 1 and all(v.time for v in values)
        if ordered:
            values.sort(key=lambda v: v.time or date.min)
        return Reading(mention.start, mention.end, tuple(values), ordered, "column")

    # -- 4. prose -------------------------------------------------------------------------

    def _prose(
        self,
        d: ReadDocument,
        mention: Mention,
        spec: QuantitySpec,
        is_other: Callable[[Mention], bool],
        anchor: date,
    ) -> Reading | None:
        text = d.text
        _, line_end = d.line_bounds(mention.start)
        limit = _gap_limit(text, mention.end, line_end, spec.max_gap)
        remarks = _remarks(text, mention.end, limit)
        pos = mention.end
        first: Value | None = None
        for _ in range(MAX_VALUE_CANDIDATES):
            m = self._number(text, pos, limit)
            if m is None:
                return None
            inside = next((r for r in remarks if r[0] < m.start() < r[1]), None)
            if inside is not None and next_number(text, inside[1], limit) is not None:
                pos = inside[1]  # "Platelets (given 2 pools) 145": the count is a remark's
                continue
            gap = text[mention.end : m.start()]
            told = _ASIDE.sub(" ", gap)  # what a bracketed aside says does not end the search
            if (
                _GAP_STOP.search(told)
                or self.cues.terminators.search(told)
                and not self.cues.earlier.search(gap)
                and not self.cues.later.search(gap)
                and not _CHANGE_TO.search(gap)
            ):
                return None
            if any(is_other(o) for o in d.starting_in(mention.end, m.start())):
                return None
            score = _out_of(text, m, spec)
            if score is not None:  # "STOP-BANG 6/8": a score over its scale's maximum
                first = score
                break
            if _in_date_or_time(text, m):
                pos = _skip_date_or_time(text, m)
                continue
            unit, _ = self.units.unit_at(text, m.end())
            if unit is not None and unit.quantity is None and unit.form in TIME_UNITS:
                pos = m.end()
                continue
            value = self._value_at(text, m, spec, gap, min(len(text), line_end))
            if value is not None:
                first = value
                break
            pos = m.end()
        if first is None:
            return None
        series = [first]
        ordered = False
        end = first.end
        while len(series) < MAX_SERIES:
            end = self._annotations(text, end, line_end, series, anchor)
            link = _SERIES_LINK.match(text, end, line_end)
            m = _NUMBER_AT.match(text, link.end()) if link is not None else None
            earlier = None
            if m is None:
                earlier = _EARLIER_PAREN.match(text, end, line_end)
                m = _NUMBER_AT.match(text, earlier.end()) if earlier is not None else None
                link = None if m is None else link
            jump = None
            if m is None:
                jump = _LATER_JUMP.match(text, end, line_end)
                m = _NUMBER_AT.match(text, jump.end()) if jump is not None else None
            cont = link or earlier or jump
            if m is None or cont is None or _in_date_or_time(text, m):
                break
            if any(is_other(o) for o in d.starting_in(end, m.start())):
                break
            unit, _ = self.units.unit_at(text, m.end())
            if unit is not None and unit.quantity is None:
                break
            value = self._value_at(text, m, spec, text[cont.end() : m.start()], line_end)
            if value is None:
                break
            word = cont.group().strip(" ,;").lower()
            if jump is not None:
                series.append(replace(value, rank=Rank.LATER))
                ordered = True
                end = value.end
                continue
            if earlier is not None or self.cues.earlier.fullmatch(word or "-"):
                series.insert(len(series) - 1, replace(value, rank=Rank.EARLIER))
                ordered = True
            else:
                rank = Rank.LATER if self.cues.later.search(word) else Rank.PLAIN
                series.append(replace(value, rank=rank))
                ordered = ordered or bool(word and word != ",")
            end = value.end
        end = self._annotations(text, end, line_end, series, anchor)
        later = self._later_in_sentence(d, spec, is_other, end, line_end)
        if later is not None:
            series.append(later)
            ordered = True
        if len(series) > 1 and not ordered:
            ordered = True  # "14, 52, 230": a list of results is written in the order taken
        if any(v.hours is not None for v in series) and all(v.hours is not None for v in series):
            series.sort(key=lambda v: v.hours or 0.0)
        return Reading(mention.start, mention.end, tuple(series), ordered, "prose")

    def _later_in_sentence(
        self,
        d: ReadDocument,
        spec: QuantitySpec,
        is_other: Callable[[Mention], bool],
        start: int,
        line_end: int,
    ) -> Value | None:
        """A later value of the same quantity further on in the sentence, with no label of
        its own: after a word that places it later ("sodium 121 on admission, corrected
        with 3% saline; today 134", "an artefactual SpO2 of 84%, repeated at 97%"), or
        before one ("188/102 on arrival, 142/84 after analgesia")."""
        text = d.text
        stop = _LATER_SENTENCE_END.search(text, start, min(line_end, start + LATER_REACH))
        end = stop.start() if stop is not None else min(line_end, start + LATER_REACH)
        if any(is_other(o) for o in d.starting_in(start, end)):
            end = min(o.start for o in d.starting_in(start, end) if is_other(o))
        for cue in self.cues.later.finditer(text, start, end):
            gap = _LATER_GAP.match(text, cue.end(), end)
            number = _NUMBER_AT.match(text, gap.end()) if gap is not None else None
            if number is None or _in_date_or_time(text, number):
                continue
            value = self._value_at(text, number, spec, "", end)
            if value is not None:
                return replace(value, rank=Rank.LATER)
        for number in _NUMBER_AT.finditer(text, start, end):
            if _in_date_or_time(text, number) or _TIME_OF_DAY_END.search(
                text, max(0, number.start() - 3), number.end()
            ):
                continue  # "07:30": a time, not a value
            value = self._value_at(text, number, spec, "", end)
            if value is None:
                continue
            if _FROM_BEFORE.search(text, max(start, number.start() - 12), number.start()):
                continue  # "up from 140": the earlier value of a change
            after = _LATER_AFTER.match(text, value.end, end)
            if after is None:
                continue
            for pos in (after.end("space"), after.end() if after.group("word") else -1):
                if pos >= 0 and self._later_at(text, pos, end):
                    return replace(value, rank=Rank.LATER)
        return None

    def _later_at(self, text: str, pos: int, end: int) -> bool:
        """Whether a word at `pos` places what precedes it later ("... after analgesia",
        "... on repeat"), and is not the start of an earlier time ("last month")."""
        later = self.cues.later.match(text, pos, end)
        if later is None:
            return False
        earlier = self.cues.earlier.match(text, pos, end) or _DAY_WORD.match(text, pos, end)
        return earlier is None or earlier.end() < later.end()

    def _annotations(
        self, text: str, pos: int, limit: int, series: list[Value], anchor: date
    ) -> int:
        """Skip what may follow a value: a reference range, a flag, a time ("(3h)", "at 6
        h"), a date ("on 12/10/2026"), day words ("today"); attach times to the last value."""
        while True:
            ahead = text[pos : min(limit, pos + 3)].lstrip()[:1]
            if not ahead or ahead in ",;.":
                return pos  # nothing that annotates a value starts with these
            ref = _REF_RANGE.match(text, pos, limit)
            if ref is not None:
                inner = text[ref.start() : ref.end()]
                hours = _HOURS_IN.search(inner)
                if hours and series:
                    series[-1] = replace(series[-1], hours=float(hours.group(1)))
                pos = ref.end()
                continue
            hours = _HOURS_AT.match(text, pos, limit)
            if hours is not None and series:
                series[-1] = replace(series[-1], hours=float(hours.group(1)))
                pos = hours.end()
                continue
            bracketed = self._bracketed_date(text, pos, limit, series, anchor)
            if bracketed is not None:
                pos = bracketed
                continue
            when = _ON_DATED.match(text, pos, limit)
            after_words = when.end() if when else pos
            date_match = DATE_RE.match(text, after_words)
            if date_match is not None and date_match.group("om") is None and series:
                found = [t for t in _dates(date_match.group())]
                if found:
                    series[-1] = replace(series[-1], time=found[0])
                pos = date_match.end()
                continue
            short = short_date_at(text, after_words, min(limit, after_words + 6), anchor)
            if short is not None and short.start == after_words and series:
                series[-1] = replace(series[-1], time=short.exact_day)
                pos = short.end
                continue
            day_word = _DAY_WORD.match(text, pos, limit)
            if day_word is not None and series:
                word = " ".join(day_word.group("w").lower().split())
                if self.cues.later.fullmatch(word):
                    rank = Rank.LATER
                elif self.cues.earlier.fullmatch(word) or word.endswith(" ago"):
                    rank = Rank.EARLIER
                else:
                    rank = series[-1].rank
                series[-1] = replace(series[-1], rank=rank)
                pos = day_word.end()
                continue
            flag = _FLAG_AFTER.match(text, pos, limit)
            if (
                flag is not None
                and not text[flag.end() : flag.end() + 1].isalnum()
                and flag.end() > pos
            ):
                pos = flag.end()
                continue
            skip = (
                _PAREN_REMARK.match(text, pos, limit)
                or _CONDITION_WORDS.match(text, pos, limit)
                or _WEEKDAY.match(text, pos, limit)
            )
            if skip is not None and skip.end() > pos:
                pos = skip.end()
                continue
            return pos

    def _bracketed_date(
        self, text: str, pos: int, limit: int, series: list[Value], anchor: date
    ) -> int | None:
        """Past a date in brackets after a value ("6.1 (18/11)", "[03/02/2026]"), which dates
        it; None if none starts at `pos`."""
        paren = _OPEN_BRACKET.match(text, pos, limit)
        if paren is None or not series:
            return None
        inner = paren.end()
        found: date | None = None
        date_match = DATE_RE.match(text, inner)
        if date_match is not None and date_match.group("om") is None:
            days = _dates(date_match.group())
            found, inner = (days[0] if days else None), date_match.end()
        else:
            short = short_date_at(text, inner, min(limit, inner + 6), anchor)
            if short is None or short.start != inner:
                return None
            found, inner = short.exact_day, short.end
        close = _CLOSE_BRACKET.match(text, inner, limit)
        if close is None:
            return None
        if found is not None:
            series[-1] = replace(series[-1], time=found)
        return close.end()

    def rank(self, d: ReadDocument, reading: Reading, index: int) -> Rank:
        """Where words place value `index` of a reading in time: its series rank, or for the
        first value of a prose reading the words around its label ("repeat K+ 4.1", "K+
        was 6.3")."""
        value = reading.values[index]
        if value.rank is not Rank.PLAIN or reading.layout != "prose" or index > 0:
            return value.rank
        return self._rank_before(d.text, reading.label_start, reading.label_end, value.start)

    def _rank_before(self, text: str, label_start: int, label_end: int, value_start: int) -> Rank:
        line_start = text.rfind("\n", 0, label_start) + 1
        before = text[max(line_start, label_start - 30) : label_start]
        between = text[label_end:value_start]
        window = before + " " + between
        later = [m for m in self.cues.later.finditer(window)]
        earlier = [
            m
            for m in self.cues.earlier.finditer(window)
            if not any(x.start() <= m.start() < x.end() for x in later)
        ]  # "back to baseline": the later phrase holds the earlier word
        if later and (not earlier or later[-1].start() > earlier[-1].start()):
            return Rank.LATER
        if earlier:
            return Rank.EARLIER
        return Rank.PLAIN

    # -- targets --------------------------------------------------------------------------

    def is_target(self, d: ReadDocument, reading: Reading, value: Value) -> bool:
        """A target, threshold or condition, not a result: "target INR 2-3", "aim K+ < 5.5",
        "transfuse if < 50", "INR < 1.5 required"."""
        text = d.text
        line_start, _ = d.line_bounds(reading.label_start)
        base = clause_start = max(line_start, reading.label_start - 80)
        for m in _SENTENCE_END.finditer(text, base, reading.label_start):
            clause_start = m.end()
        before_label = text[max(clause_start, reading.label_start - 25) : reading.label_start]
        between = text[reading.label_end : value.start]
        after = text[value.end : min(len(text), value.end + 30)]
        directly_after = _DIRECTLY_AFTER.match(after)
        whole = text[clause_start : value.start]
        if value.qualified or _QUALIFIER_BEFORE.search(between):
            if self.cues.target_before.search(whole):
                return True
        elif value.low < value.high:  # a range: "for SpO2 88-92%", "keep ... INR 2-3"
            cue = self.cues.target_before.search(whole)
            if cue is not None and cue.group().lower() not in _WEAK_TARGET_CUES:
                return True
        if self.cues.target_before.search(before_label) or self.cues.target_before.search(between):
            cue = self.cues.target_before.search(between) or self.cues.target_before.search(
                before_label
            )
            if cue is not None and cue.group().lower() not in ("to be", "when", "once"):
                return True
        if _INSTRUCTION_AFTER.match(text, value.end, min(len(text), value.end + 40)):
            return True  # "K+ 6.0-6.5: give insulin-dextrose": a protocol's criterion
        if directly_after is not None:
            words = directly_after.group("w").strip()
            cue = self.cues.target_after.match(words)
            if cue is not None:
                return True
        return False


# -- helpers ----------------------------------------------------------------------------------


def _gap_limit(text: str, start: int, line_end: int, max_gap: int) -> int:
    """Where the search for a value after a label at `start` ends: `max_gap` characters
    on, not counting bracketed asides ("Potassium (repeated on a fresh sample, not
    haemolysed) 6.3"), within the line."""
    limit = start + max_gap + 1
    for aside in _ASIDE.finditer(text, start, line_end):
        if aside.start() >= limit:
            break
        limit += aside.end() - aside.start()
    return min(line_end, limit)


def _remarks(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The bracketed remarks in text[start:end] that start with a word ("(given 2 pools)",
    "(on warfarin 5 mg)"), as (start, end)."""
    return [
        (a.start(), a.end())
        for a in _ASIDE.finditer(text, start, end)
        if text[a.start() + 1 : a.end()].lstrip()[:1].isalpha()
    ]


def next_number(text: str, start: int, end: int) -> int | None:
    """Where the next free-standing number in text[start:end] starts, if any."""
    m = _NUMBER_AT.search(text, start, end)
    return m.start() if m is not None else None


def _to_float(written: str) -> float:
    if _DECIMAL_COMMA.fullmatch(written):
        return float(written.replace(",", "."))
    return float(written.replace(",", ""))


def _bare(spec: QuantitySpec, value: float) -> tuple[float, float]:
    """(factor, offset) that turn a number written with no unit into the canonical unit."""
    for comparator, bound, factor, offset in spec.bare_scaling:
        if (comparator == ">=" and value >= bound) or (comparator == "<" and value < bound):
            return factor, offset
    return 1.0, 0.0


def _cells(text: str, start: int, end: int) -> list[tuple[int, int]]:
    return split_cells(text, start, end)


def _aligned(
    text: str,
    header_start: int,
    header: list[tuple[int, int]],
    index: int,
    row_start: int,
    row: list[tuple[int, int]],
) -> tuple[int, int] | None:
    """The cell of `row` in the column of header cell `index`: by position when the row has
    as many cells (or one more, a leading date), else the cell under it on the page."""
    if len(row) == len(header):
        return row[index]
    if len(row) == len(header) + 1:
        return row[index + 1]
    own = (header[index][0] - header_start, header[index][1] - header_start)
    best, overlap = None, 0
    for cell in row:
        rel = (cell[0] - row_start, cell[1] - row_start)
        shared = min(rel[1], own[1] + 2) - max(rel[0], own[0] - 2)
        if shared > overlap:
            best, overlap = cell, shared
    return best


_SLASH_GROUP = re.compile(
    rf"(?:{NUMBER})(?:\s*[A-Za-z%^0-9*μ]{{0,8}}?)?(?:\s*/\s*(?:{NUMBER})(?:\s*[A-Za-z%^0-9*μ]{{0,8}})?)+"
)
_NUMBER_HERE = re.compile(rf"(?P<n>{NUMBER})")


def _slash_values(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """(start, limit) of each value in a slash group ("18.2/1.7", "98/4.1/45")."""
    group = _SLASH_GROUP.match(text, start, end)
    if group is None:
        return []
    parts = [(m.start(), m.end()) for m in _NUMBER_HERE.finditer(text, start, group.end())]
    return [
        (p_start, parts[i + 1][0] if i + 1 < len(parts) else group.end())
        for i, (p_start, _) in enumerate(parts)
    ]


_DAY_MONTH = re.compile(r"(\d{1,2})/(\d{1,2})(?![\d.])")
_DAY_MONTH_TIMES = re.compile(r"\d{1,2}/\d{1,2}\s*(?:x|×)")


def _in_date_or_time(text: str, m: re.Match[str]) -> bool:
    """Whether the number starts a date or a time of day (not a value), or is a year after a
    preposition ("in 2019")."""
    at = m.start()
    if (
        m.group("n").isdigit()
        and len(m.group("n")) == 4
        and 1950 <= int(m.group("n")) <= 2039
        and _YEAR_AFTER_WORD.search(text, max(0, at - 12), at)
    ):
        return True
    date_match = DATE_RE.match(text, at)
    if date_match is not None and date_match.group("om") is None and date_match.group("yy") is None:
        return True
    if _TIME_OF_DAY.match(text, at):
        return True
    day_month = _DAY_MONTH.match(text, at)
    return (
        day_month is not None
        and _could_be_day_month(int(day_month.group(1)), int(day_month.group(2)))
        and not _DAY_MONTH_TIMES.match(text, at)
    )


_STAMP_TIME = re.compile(
    r"^(?:(?:at|@)\s*)?(?P<h>\d{1,2}):(?P<m>\d{2})(?::\d{2})?\s*(?P<ap>am|pm)?$", re.I
)


_OUT_OF = re.compile(r"(?P<n>\d{1,2})[ \t]*/[ \t]*(?P<of>\d{1,3})(?![\d/.])")


def _out_of(text: str, m: re.Match[str], spec: QuantitySpec) -> Value | None:
    """A score written over the maximum of its scale ("STOP-BANG 6/8", "GCS 14/15"): the
    denominator is the rule's highest plausible value, so it is no date."""
    found = _OUT_OF.match(text, m.start())
    if spec.quantity is not None or found is None or float(found.group("of")) != spec.plausible[1]:
        return None
    n = float(found.group("n"))
    if not spec.plausible[0] <= n <= spec.plausible[1]:
        return None
    return Value(low=n, high=n, start=m.start(), end=found.end(), qualified=False)


def _stamp_cell(cell: str) -> tuple[date, float | None] | None:
    """A table cell that is a date, with a time of day or not ("2026-11-19", "19/11/2026
    14:00", "11/19/2026 05:55"): the day and the hour, for a row with no header."""
    m = DATE_RE.match(cell)
    if m is None or m.group("om") is not None or m.group("yy") is not None:
        return None
    days = _dates(m.group())
    if not days:
        return None
    rest = cell[m.end() :].strip(" ,")
    if not rest:
        return days[0], None
    clock = _STAMP_TIME.match(rest)
    if clock is None:
        return None
    hour = int(clock.group("h")) % 12 if clock.group("ap") else int(clock.group("h"))
    if (clock.group("ap") or "").lower() == "pm":
        hour += 12
    return days[0], hour + int(clock.group("m")) / 60


def _could_be_day_month(first: int, second: int) -> bool:
    """Whether "first/second" can be a day and a month, either way round ("12/10", "10/14");
    "78/40" (a blood pressure) or "80/12" cannot."""
    return (1 <= first <= 31 and 1 <= second <= 12) or (1 <= first <= 12 and 1 <= second <= 31)


def _skip_date_or_time(text: str, m: re.Match[str]) -> int:
    at = m.start()
    found = (
        DATE_RE.match(text, at)
        or _TIME_OF_DAY.match(text, at)
        or _DAY_MONTH.match(text, at)
        or _NUMBER_AT.match(text, at)
    )
    return found.end() if found is not None else m.end()


def _dates(written: str) -> list[date]:
    return [t.exact_day for t in dates_in(written) if t.exact_day is not None]


def _is_header_cell(cell: str, cues: Cues) -> bool:
    words = cell.strip().lower()
    return words in cues.header_words or bool(_dates(cell)) or bool(_HOURS_CELL.match(cell.strip()))


@dataclass(frozen=True)
class _Column:
    role: str  # value, range, unit, flag, skip, label, other
    when: date | None = None
    hours: float | None = None


_VALUE_HEADERS = frozenset({"result", "results", "value", "values", "latest", "current", "today"})
_RANGE_HEADERS = frozenset(
    {
        "range",
        "ref",
        "reference",
        "ref range",
        "reference range",
        "reference interval",
        "normal range",
        "normal",
        "rr",
        "ref. range",
        "ref interval",
    }
)
_ROLE_HEADERS = {
    "unit": "unit",
    "units": "unit",
    "flag": "flag",
    "flags": "flag",
    "previous": "skip",
    "prev": "skip",
    "last": "skip",
    "comment": "skip",
    "comments": "skip",
    "date": "when",
    "time": "when",
    "date/time": "when",
    "date time": "when",
    "collected": "when",
    "collection date": "when",
    "collection time": "when",
    "specimen date": "when",
    "taken": "when",
    "drawn": "when",
    "resulted": "when",
    "result date": "when",
}
_LABEL_WORDS = frozenset({"level", "count", "serum", "plasma", "total", "whole", "blood"})


@dataclass(frozen=True)
class _Header:
    """A header row above a table row: each column's role and, for dates or hours, when."""

    start: int
    cells: tuple[tuple[int, int], ...]
    columns: tuple[_Column, ...]

    @classmethod
    def parse(cls, text: str, start: int, end: int, cues: Cues) -> _Header | None:
        cells = _cells(text, start, end)
        if len(cells) < 2:
            return None
        columns: list[_Column] = []
        known = 0
        for c0, c1 in cells:
            cell = text[c0:c1].strip()
            lower = " ".join(cell.lower().split())
            found = _dates(cell)
            hours = _HOURS_CELL.match(cell)
            if found:
                columns.append(_Column("value", when=found[0]))
            elif hours:
                columns.append(_Column("value", hours=float(hours.group("h"))))
            elif lower in _VALUE_HEADERS:
                columns.append(_Column("value"))
            elif lower in _RANGE_HEADERS:
                columns.append(_Column("range"))
            elif lower in _ROLE_HEADERS:
                columns.append(_Column(_ROLE_HEADERS[lower]))
            elif lower in cues.header_words:
                columns.append(_Column("label"))
            else:
                columns.append(_Column("other"))
                continue
            known += 1
        if known < 2 or known < len(cells) - 1 or not any(c.role == "value" for c in columns):
            return None
        return cls(start, tuple(cells), tuple(columns))

    def roles(self, text: str, row_start: int, row: list[tuple[int, int]]) -> list[_Column | None]:
        """The header column of each row cell (None where none fits): by position when the
        counts match (or differ by a leading label cell), else the column above on the page."""
        count, cells = len(row), len(self.cells)
        if count == cells:
            return list(self.columns)
        if count == cells + 1:
            return [None, *self.columns]
        if cells == count + 1:
            return list(self.columns[1:])
        out: list[_Column | None] = []
        for c0, c1 in row:
            rel = (c0 - row_start, c1 - row_start)
            best, overlap = None, 0
            for (h0, h1), column in zip(self.cells, self.columns, strict=True):
                shared = min(rel[1], h1 - self.start + 2) - max(rel[0], h0 - self.start - 2)
                if shared > overlap:
                    best, overlap = column, shared
            out.append(best)
        return out
