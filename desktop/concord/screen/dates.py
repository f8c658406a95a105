"""Dates and durations in clinical text, and the reference dates a record screen uses.

A written time is read as an interval of possible dates: "20/10/2026" is one day, "March
2026" is the whole month, "2019" the whole year, "6 weeks ago" (or "6/52 ago") is the
anchor date minus six weeks, "in August" the last August up to the anchor. UK order
(day/month/year) is assumed for numeric dates unless the day cannot be a month ("10/14/2026"
is 14 October). A date with no year ("12/10") is read only beside a lab value
(`short_date_at`), where it takes the last such day up to the anchor.

`RecordClock` holds the dates a record states about itself: the planned surgery date, each
document's own date, and the record's present (the latest document date, else the latest
full date written anywhere, else today).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache

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
_MONTH_WORD = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|(?-i:May)|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"  # noqa: E501
_B = r"(?<![A-Za-z0-9])"
_A = r"(?![A-Za-z0-9])"
DATE_RE = re.compile(
    "|".join(
        [
            rf"{_B}(?P<iy>(?:19|20)\d\d)-(?P<im>\d{{1,2}})-(?P<id>\d{{1,2}}){_A}",
            rf"{_B}(?P<nd>\d{{1,2}})(?P<ns>[/.\-])(?P<nm>\d{{1,2}})(?P=ns)(?P<ny>(?:19|20)\d\d|\d\d){_A}",
            rf"{_B}(?P<hd>\d{{1,2}})[\-\s](?P<hm>{_MONTH})\.?[\-\s](?P<hy>(?:19|20)\d\d|\d\d){_A}",
            rf"{_B}(?P<td>\d{{1,2}})(?:st|nd|rd|th)?\s+(?P<tm>{_MONTH})\.?,?\s+(?P<ty>(?:19|20)\d\d){_A}",
            rf"{_B}(?P<um>{_MONTH})\.?\s+(?P<ud>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<uy>(?:19|20)\d\d){_A}",
            rf"{_B}(?P<mm>{_MONTH})\.?,?\s+(?P<my>(?:19|20)\d\d){_A}",
            rf"{_B}(?P<sm>\d{{1,2}})/(?P<sy>(?:19|20)\d\d){_A}",
            rf"{_B}(?P<yy>(?:19[5-9]|20\d)\d){_A}(?!\s*(?:mg|mcg|ml|mL|units|kg|g|%|mmol|x|IU|iu))",
            rf"(?<![A-Za-z0-9])(?:in|since|during|early|mid|late|end\s+of|beginning\s+of|start\s+of)"
            rf"\s+(?P<om>{_MONTH_WORD}){_A}(?!\.?,?\s*(?:\d|'\d))",
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
    r"appointment|scan|echo|visit|consultation|attendance))?|clinic\s+date|report\s+date|"
    r"letter\s+date|visit\s+date|dictated|reported|typed|seen\s+(?:in\s+clinic\s+)?on|dated|"
    r"collected|sample\s+date|clinic|date\s+seen|assessment\s+date|"
    r"(?:pre-?\s*operative|pre-?\s*op|anaesthetic|cardiology|respiratory|haematology|oncology|"
    r"renal|surgical|outpatient)\s+(?:assessment\s+)?(?:clinic|review|assessment|letter)"
    r"(?:\s+(?:on|date))?)[ \t]*[:\-–,]?[ \t]*",
    re.IGNORECASE | re.MULTILINE,
)
_PLANNED_FOR_RE = re.compile(
    r"(?<![A-Za-z])(?:planned|scheduled|booked|listed|provisionally\s+booked)\s+(?:for|on)\s+"
    r"(?:the\s+)?",
    re.IGNORECASE,
)
_OPERATION_RE = re.compile(
    r"(?<![A-Za-z])(?:surgery|operation|procedure|repair|replacement|resection|"
    r"[a-z]+(?:ectomy|otomy|ostomy|plasty|pexy|scopy))(?![A-Za-z])",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class TimeMention:
    """A written time: the span and the interval of dates it can mean.

    Absolute dates carry `earliest`/`latest`; relative times ("6 weeks ago") carry
    `days_ago`; a month with no year ("in August") carries `month`. The last two are
    resolved against an anchor date by `interval`."""

    start: int
    end: int
    earliest: date | None
    latest: date | None
    days_ago: tuple[float, float] | None  # relative: (fewest, most) days before the anchor
    month: int | None = None  # a month with no year: the last one up to the anchor
    likely: date | None = None  # a numeric date read both ways: the day-first reading

    def interval(self, anchor: date) -> tuple[date, date]:
        if self.days_ago is not None:
            fewest, most = self.days_ago
            return anchor - timedelta(days=round(most)), anchor - timedelta(days=round(fewest))
        if self.month is not None:
            year = anchor.year if self.month <= anchor.month else anchor.year - 1
            return date(year, self.month, 1), _month_end(year, self.month)
        assert self.earliest is not None and self.latest is not None
        return self.earliest, self.latest

    @property
    def exact_day(self) -> date | None:
        """The one day this time names, when it names one absolute day (a numeric date
        that can be read both ways: its likelier, day-first reading)."""
        if self.earliest is not None and self.earliest == self.latest:
            return self.earliest
        return self.likely


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _month_end(year: int, month: int) -> date:
    following = date(year + (month == 12), month % 12 + 1, 1)
    return following - timedelta(days=1)


def _numeric_days(
    year: int, first: int, second: int, convention: str | None
) -> tuple[date, date, date] | None:
    """The days "first/second/year" can mean: day/month, or month/day where the second
    field cannot be a month ("10/14/2026"). Where either field could be the month, the
    document's own convention decides (`date_convention`); a document that shows neither
    leaves both readings open, as an interval ("10/02/2026": 10 February or 2 October)."""
    if second > 12 >= first or convention == "mdy" and first <= 12:
        day = _safe_date(year, first, second)
        return (day, day, day) if day else None
    day_first = _safe_date(year, second, first)
    if convention == "dmy" or first > 12 or first == second or day_first is None:
        return (day_first, day_first, day_first) if day_first else None
    month_first = _safe_date(year, first, second)
    if month_first is None:
        return day_first, day_first, day_first
    return min(day_first, month_first), max(day_first, month_first), day_first


_NUMERIC_DATE_RE = re.compile(
    r"(?<![\d/.\-])(\d{1,2})([/.\-])(\d{1,2})\2(?:19|20)?\d\d(?![\d/.\-])"
)


@lru_cache(maxsize=64)
def date_convention(text: str) -> str | None:
    """How a document writes numeric dates: "dmy" when one of its dates can only be
    day/month ("14/10/2026"), "mdy" when one can only be month/day ("10/14/2026"), the
    more common where it shows both, None where none tells."""
    dmy = mdy = 0
    for m in _NUMERIC_DATE_RE.finditer(text):
        first, second = int(m.group(1)), int(m.group(3))
        dmy += first > 12 >= second
        mdy += second > 12 >= first
    if dmy == mdy:
        return None
    return "dmy" if dmy > mdy else "mdy"


def _year(written: str) -> int:
    year = int(written)
    return year + 2000 if year < 100 else year


def _date_interval(m: re.Match[str], convention: str | None) -> tuple[date, date, date] | None:
    """(earliest, latest, likeliest) day a written date can mean."""
    g = m.groupdict()
    day: date | None = None
    if g["iy"]:
        day = _safe_date(int(g["iy"]), int(g["im"]), int(g["id"]))
    elif g["nd"]:
        return _numeric_days(_year(g["ny"]), int(g["nd"]), int(g["nm"]), convention)
    elif g["hd"]:
        day = _safe_date(_year(g["hy"]), _MONTHS[g["hm"].lower()], int(g["hd"]))
    elif g["td"]:
        day = _safe_date(int(g["ty"]), _MONTHS[g["tm"].lower()], int(g["td"]))
    elif g["um"]:
        day = _safe_date(int(g["uy"]), _MONTHS[g["um"].lower()], int(g["ud"]))
    elif g["mm"] or g["sm"]:
        year = int(g["my"] or g["sy"])
        month = _MONTHS[g["mm"].lower()] if g["mm"] else int(g["sm"])
        if not 1 <= month <= 12:
            return None
        return date(year, month, 1), _month_end(year, month), date(year, month, 1)
    elif g["yy"]:
        year = int(g["yy"])
        return date(year, 1, 1), date(year, 12, 31), date(year, 1, 1)
    return (day, day, day) if day else None


def dates_in(text: str, start: int = 0, end: int | None = None) -> list[TimeMention]:
    """Absolute dates (and months with no year) written in text[start:end]."""
    out: list[TimeMention] = []
    convention = date_convention(text)
    for m in DATE_RE.finditer(text, start, len(text) if end is None else end):
        if m.group("om"):
            month = _MONTHS[m.group("om").lower()]
            out.append(TimeMention(m.start("om"), m.end(), None, None, None, month))
            continue
        interval = _date_interval(m, convention)
        if interval is not None:
            earliest, latest, likely = interval
            both = likely if earliest != latest and m.group("nd") else None
            out.append(TimeMention(m.start(), m.end(), earliest, latest, None, likely=both))
    return out


_SHORT_DATE_RE = re.compile(
    r"(?<![A-Za-z0-9./\-])(?P<d>\d{1,2})/(?P<m>\d{1,2})(?![\d.]|/\d)"
    r"(?!\s*(?:ago|prior|post|mg|ml|units|x|%|mmol))"
)


def short_date_at(text: str, start: int, end: int, anchor: date) -> TimeMention | None:
    """A day and month with no year ("12/10", "12.10") in text[start:end], read as the last
    such day up to `anchor`; None if there is none or it cannot be a date."""
    m = _SHORT_DATE_RE.search(text, start, end)
    if m is None:
        return None
    day, month = int(m.group("d")), int(m.group("m"))
    when = _safe_date(anchor.year, month, day)
    if when is None:
        return None
    if when > anchor:
        when = _safe_date(anchor.year - 1, month, day)
        if when is None:
            return None
    return TimeMention(m.start(), m.end(), when, when, None)


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


def _labelled_date(text: str, label_re: re.Pattern[str], reach: int = 40) -> date | None:
    for label in label_re.finditer(text):
        found = dates_in(text, label.end(), min(len(text), label.end() + reach))
        if found and found[0].start - label.end() < 5 and found[0].exact_day:
            return found[0].exact_day
    return None


def surgery_date(texts: list[str]) -> date | None:
    """The planned date of surgery, if any document states it: "Planned surgery date: ...",
    "TCI 24/03/2027", or a sentence naming the operation and "planned for <date>"."""
    for text in texts:
        found = _labelled_date(text, _SURGERY_DATE_RE)
        if found is not None:
            return found
    for text in texts:
        for m in _PLANNED_FOR_RE.finditer(text):
            sentence_start = max(
                text.rfind(". ", 0, m.start()), text.rfind("\n\n", 0, m.start()), 0
            )
            if not _OPERATION_RE.search(text, sentence_start, m.start()):
                continue
            found_dates = dates_in(text, m.end(), min(len(text), m.end() + 30))
            if found_dates and found_dates[0].start - m.end() < 3 and found_dates[0].exact_day:
                return found_dates[0].exact_day
    return None


def document_date(text: str) -> date | None:
    """The date a document was written: a "Date: ..." / "Clinic date: ..." style line, a
    clinic heading with its date ("Pre-operative assessment clinic - 09/03/2027"), or a line
    near the top that is only a date."""
    found = _labelled_date(text, _DOCUMENT_DATE_RE)
    if found is not None:
        return found
    for line in text[:600].split("\n")[:8]:
        dates = dates_in(line)
        if len(dates) == 1 and dates[0].exact_day is not None:
            rest = line[: dates[0].start] + line[dates[0].end :]
            if len(re.findall(r"[A-Za-z]+", rest)) <= 3:
                return dates[0].exact_day
    return None


_ENTRY_RE = re.compile(r"^[ \t]*(?:[#*>•\-]+[ \t]*)?(?=\d|[A-Za-z]{3,9}\.?\s+\d)", re.MULTILINE)


def entry_dates(text: str) -> list[tuple[int, date]]:
    """(position, date) of each line that starts with a full date: the entries of a running
    record ("12/10/2026 08:30 Ward round ..."), in order."""
    out: list[tuple[int, date]] = []
    convention = date_convention(text)
    for line in _ENTRY_RE.finditer(text):
        found = DATE_RE.match(text, line.end())
        if found is None:
            continue
        interval = _date_interval(found, convention) if found.group("om") is None else None
        if interval is not None and (interval[0] == interval[1] or found.group("nd")):
            out.append((line.start(), interval[2]))
    return out


@dataclass(frozen=True)
class RecordClock:
    """The dates a record states about itself."""

    surgery: date | None
    documents: tuple[date | None, ...]  # each document's own date, in record order
    present: date  # the record's today: latest document date, else latest date written

    @property
    def reference(self) -> date:
        """What recency is measured against: the planned surgery, else the record's present."""
        return self.surgery or self.present

    def anchor(self, index: int) -> date:
        """What "6 weeks ago" in document `index` counts back from."""
        return self.documents[index] or self.present


def record_clock(
    texts: list[str], today: date, documents: tuple[date | None, ...] | None = None
) -> RecordClock:
    """Surgery date, document dates and the record's present, from the texts themselves
    (`documents`: each text's own date, when already read)."""
    if documents is None:
        documents = tuple(document_date(text) for text in texts)
    dated = [d for d in documents if d is not None]
    if dated:
        present = max(dated)
    else:
        written = [
            t.exact_day
            for text in texts
            for t in dates_in(text)
            if t.exact_day is not None and t.exact_day <= today
        ]
        present = max(written) if written else today
    return RecordClock(surgery_date(texts), documents, present)
