"""Dates and durations in clinical text, and the reference dates a record screen uses.

A written time is read as an interval of possible dates: "20/10/2026" is one day, "March
2026" is the whole month, "2019" the whole year, "6 weeks ago" (or "6/52 ago") is the
anchor date minus six weeks. UK order (day/month/year) is assumed for numeric dates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ],
        start=1,
    )
    for name in names
}
_MONTH = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"  # noqa: E501
_B = r"(?<![A-Za-z0-9])"
_A = r"(?![A-Za-z0-9])"
DATE_RE = re.compile(
    "|".join(
        [
            rf"{_B}(?P<iy>(?:19|20)\d\d)-(?P<im>\d{{1,2}})-(?P<id>\d{{1,2}}){_A}",
            rf"{_B}(?P<nd>\d{{1,2}})[/.\-](?P<nm>\d{{1,2}})[/.\-](?P<ny>(?:19|20)\d\d|\d\d){_A}",
            rf"{_B}(?P<td>\d{{1,2}})(?:st|nd|rd|th)?\s+(?P<tm>{_MONTH})\.?,?\s+(?P<ty>(?:19|20)\d\d){_A}",
            rf"{_B}(?P<um>{_MONTH})\.?\s+(?P<ud>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<uy>(?:19|20)\d\d){_A}",
            rf"{_B}(?P<mm>{_MONTH})\.?,?\s+(?P<my>(?:19|20)\d\d){_A}",
            rf"{_B}(?P<sm>\d{{1,2}})/(?P<sy>(?:19|20)\d\d){_A}",
            rf"{_B}(?P<yy>(?:19[5-9]|20\d)\d){_A}(?!\s*(?:mg|mcg|ml|mL|units|kg|g|%|mmol|x))",
        ]
    ),
    re.IGNORECASE,
)
_WORD_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "a couple of": 2,
    "couple of": 2,
    "two": 2,
    "a few": 2,
    "few": 2,
    "three": 3,
    "several": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}
_UNIT_DAYS = {"d": 1, "w": 7, "m": 30.44, "y": 365.25}
DURATION_RE = re.compile(
    rf"{_B}(?:(?P<n>\d+(?:\.\d+)?|a couple of|couple of|a few|few|several|an?|one|two|three|"
    r"four|five|six|seven|eight|nine|ten|eleven|twelve)\s*"
    r"(?P<u>days?|d|weeks?|wks?|w|months?|mths?|mo|years?|yrs?|y)\s*"
    r"(?:ago|prior|previously|earlier|before|back|post)"
    r"|(?P<fn>\d{1,2})\s*/\s*(?P<fu>52|7)(?:\s*(?:ago|prior|post))?"
    r"|(?P<mn>\d{1,2})\s*/\s*12\s*(?:ago|prior|post)"
    r"|(?P<last>yesterday|last\s+week|last\s+month|last\s+year|this\s+week|this\s+month|"
    r"today|recently|recent))"
    rf"{_A}",
    re.IGNORECASE,
)
_LAST_DAYS = {
    "today": 0,
    "yesterday": 1,
    "this week": 0,
    "this month": 0,
    "recently": 0,
    "recent": 0,
    "last week": 7,
    "last month": 30,
    "last year": 365,
}
_SURGERY_DATE_RE = re.compile(
    r"(?<![A-Za-z])(?:(?:planned|proposed|provisional|expected)[ \t]+)?"
    r"(?:date[ \t]+of[ \t]+(?:surgery|operation|procedure)|(?:surgery|operation|procedure|op|"
    r"theatre|TCI)(?:[ \t]+date)?(?:[ \t]+(?:is[ \t]+)?(?:planned|scheduled|booked|listed)"
    r"(?:[ \t]+(?:for|on))?)?)(?![A-Za-z])[ \t]*[:\-–]?[ \t]*(?:on[ \t]+|for[ \t]+)?",
    re.IGNORECASE,
)
_DOCUMENT_DATE_RE = re.compile(
    r"^[ \t]*(?:date(?:\s+of\s+(?:letter|clinic|report|review|assessment|test|study|issue|"
    r"appointment|scan|echo))?|clinic\s+date|report\s+date|letter\s+date|dictated|reported|"
    r"typed|seen\s+on|dated|collected|sample\s+date)[ \t]*[:\-–]?[ \t]*",
    re.IGNORECASE | re.MULTILINE,
)


@dataclass(frozen=True)
class TimeMention:
    """A written time: the span and the interval of dates it can mean (None = relative)."""

    start: int
    end: int
    earliest: date | None
    latest: date | None
    days_ago: tuple[float, float] | None  # relative: (fewest, most) days before the anchor

    def interval(self, anchor: date) -> tuple[date, date]:
        if self.days_ago is not None:
            fewest, most = self.days_ago
            return anchor - timedelta(days=round(most)), anchor - timedelta(days=round(fewest))
        assert self.earliest is not None and self.latest is not None
        return self.earliest, self.latest


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _month_end(year: int, month: int) -> date:
    following = date(year + (month == 12), month % 12 + 1, 1)
    return following - timedelta(days=1)


def _date_interval(m: re.Match[str]) -> tuple[date, date] | None:
    g = m.groupdict()
    if g["iy"]:
        day = _safe_date(int(g["iy"]), int(g["im"]), int(g["id"]))
        return (day, day) if day else None
    if g["nd"]:
        year = int(g["ny"])
        year = year + 2000 if year < 100 else year
        day = _safe_date(year, int(g["nm"]), int(g["nd"]))
        return (day, day) if day else None
    if g["td"]:
        day = _safe_date(int(g["ty"]), _MONTHS[g["tm"].lower()], int(g["td"]))
        return (day, day) if day else None
    if g["um"]:
        day = _safe_date(int(g["uy"]), _MONTHS[g["um"].lower()], int(g["ud"]))
        return (day, day) if day else None
    if g["mm"] or g["sm"]:
        year = int(g["my"] or g["sy"])
        month = _MONTHS[g["mm"].lower()] if g["mm"] else int(g["sm"])
        if not 1 <= month <= 12:
            return None
        return date(year, month, 1), _month_end(year, month)
    if g["yy"]:
        year = int(g["yy"])
        return date(year, 1, 1), date(year, 12, 31)
    return None


def dates_in(text: str, start: int = 0, end: int | None = None) -> list[TimeMention]:
    """Absolute dates written in text[start:end]."""
    out: list[TimeMention] = []
    for m in DATE_RE.finditer(text, start, len(text) if end is None else end):
        interval = _date_interval(m)
        if interval is not None:
            out.append(TimeMention(m.start(), m.end(), interval[0], interval[1], None))
    return out


def durations_in(text: str, start: int = 0, end: int | None = None) -> list[TimeMention]:
    """Relative times ("6 weeks ago", "6/52", "3/12 ago", "last month") in text[start:end]."""
    out: list[TimeMention] = []
    for m in DURATION_RE.finditer(text, start, len(text) if end is None else end):
        g = m.groupdict()
        if g["last"]:
            days = float(_LAST_DAYS[" ".join(g["last"].lower().split())])
            out.append(TimeMention(m.start(), m.end(), None, None, (days, days)))
            continue
        if g["fn"]:
            count, unit = float(g["fn"]), ("w" if g["fu"] == "52" else "d")
        elif g["mn"]:
            count, unit = float(g["mn"]), "m"
        else:
            word = " ".join(g["n"].lower().split())
            count = float(_WORD_NUMBERS[word]) if word in _WORD_NUMBERS else float(word)
            unit = g["u"].lower()[0]
        days = count * _UNIT_DAYS[unit]
        out.append(TimeMention(m.start(), m.end(), None, None, (days, days)))
    return out


def times_in(text: str, start: int = 0, end: int | None = None) -> list[TimeMention]:
    """Dates and durations, durations first where they overlap."""
    durations = durations_in(text, start, end)
    dates = [
        d
        for d in dates_in(text, start, end)
        if not any(d.start < r.end and r.start < d.end for r in durations)
    ]
    return sorted(durations + dates, key=lambda t: t.start)


def surgery_date(texts: list[str]) -> date | None:
    """The planned date of surgery, if any document states it ("Planned surgery date: ...")."""
    for text in texts:
        for label in _SURGERY_DATE_RE.finditer(text):
            found = dates_in(text, label.end(), min(len(text), label.end() + 40))
            if found and found[0].start - label.end() < 5 and found[0].earliest == found[0].latest:
                return found[0].latest
    return None


def document_date(text: str) -> date | None:
    """The date a document was written, from a "Date: ..." style line near its top."""
    for label in _DOCUMENT_DATE_RE.finditer(text):
        found = dates_in(text, label.end(), min(len(text), label.end() + 40))
        if found and found[0].start - label.end() < 5 and found[0].earliest == found[0].latest:
            return found[0].latest
    return None
