"""Numbers written as words, as dictation writes them, read as the digits a clinician means.

A dictated note says "a potassium of six point two", "platelets of sixty-one thousand",
"satting eighty-eight percent", "an ejection fraction of twenty to twenty-five percent",
"troponin went from point zero four to point three one", "sodium of one twenty-one",
"blood pressure one ninety over one ten". `number_word_spans` finds each run of number
words and the digits it stands for:

* cardinals with their joins: "sixty-one", "one hundred and twenty", "a hundred and ten",
  "sixty-one thousand", "two thousand and nine";
* decimals: "six point two", "point four" (0.4), "point zero four" (0.04), "two point one
  five";
* the dictated hundreds: a digit word then a tens or teen word is a three-digit number
  ("one twenty-one" = 121, "one ninety" = 190, "two fifty" = 250, "one oh five" = 105);
* each number of a range or a pair stays its own number ("twenty to twenty-five" gives
  20 and 25; "one ninety over one ten" gives 190 and 110);
* decades and hundreds in the plural, as a clinician says a band of values: "sats in the
  eighties" (80s), "sugars in the high three hundreds" (high 300s);
* obstetric counts after gravida and para, "one" included: "gravida two para one" (G2 P1).

A lone small word is ordinary language more often than a value ("one of", "no one", "two
sons"): one from "two" to "nineteen" is read as a number only where a value is expected
(after "of", "was", "is", "at", "to", "from", "over", "=" or ":", after a stage, grade,
class or type word, or before a unit word such as "percent" or "units"); "one" alone
never is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

UNITS = {
    "zero": 0, "oh": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9,
}  # fmt: skip
TEENS = {
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
SCALES = {"hundred": 100, "thousand": 1000}
DECADES = {
    "twenties": 20, "thirties": 30, "forties": 40, "fifties": 50, "sixties": 60,
    "seventies": 70, "eighties": 80, "nineties": 90,
}  # fmt: skip
_BAND_BEFORE_RE = re.compile(
    r"(?<![A-Za-z])(?:the|high|low|mid|upper|lower|early|late)[ \t-]*$", re.IGNORECASE
)
"""What stands before a decade said as a band of values ("in the eighties", "high
nineties"); "in his sixties" is an age."""
_OBSTETRIC_BEFORE_RE = re.compile(r"(?:(?<![A-Za-z])(?i:gravida|para)|(?<![A-Za-z])[GP])[ \t]*$")
ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30,
}  # fmt: skip
_NUMBER_WORDS = sorted(
    {*UNITS, *TEENS, *TENS, *SCALES, *DECADES, *ORDINALS, "hundreds", "point", "and", "a"},
    key=len,
    reverse=True,
)
_MONTH_RE = re.compile(
    r"(?:jan(?:uary)?|feb(?:ruary)?|march|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)",
    re.IGNORECASE,
)
_MONTH_BEFORE_RE = re.compile(rf"(?<![A-Za-z]){_MONTH_RE.pattern}[ \t]+(?:the[ \t]+)?$", re.I)
_MONTH_AFTER_RE = re.compile(rf"[ \t]+of[ \t]+{_MONTH_RE.pattern}(?![A-Za-z])", re.I)
_WORD_RE = re.compile(
    r"(?<![A-Za-z0-9])(?:" + "|".join(_NUMBER_WORDS) + r")(?![A-Za-z0-9])", re.IGNORECASE
)
_JOIN_RE = re.compile(r"[ \t]*-[ \t]*|[ \t]+")  # what may stand between two words of a number
_VALUE_BEFORE_RE = re.compile(
    r"(?:(?<![A-Za-z])(?:of|was|is|are|were|at|to|from|over|about|around|approximately|"
    r"stage|grade|class|type|gold|nyha|asa|score|scored|x|factor|foot|feet|ft)|[=:~])[ \t]*$",
    re.IGNORECASE,
)
_UNIT_AFTER_RE = re.compile(
    r"[ \t]*(?:percent|per\s*cent|%|units?|mmol|mg|milligrams?|grams?|g/|kg|kilos?|"
    r"millimol|milliequivalents?|beats|breaths|litres?|liters?|l/min|mm|cm|metres?|meters?|"
    r"feet|foot|inches|pounds|lbs?|stones?|point|days?|weeks?|months?|years?|hours?|"
    r"minutes?|times|cycles?|puffs?|tablets?|litres|liters)(?![A-Za-z])",
    re.IGNORECASE,
)
_DIGIT_WORDS_AFTER_POINT = {**UNITS}


@dataclass(frozen=True)
class NumberWords:
    """A run of number words at text[start:end] and the digits it stands for."""

    start: int
    end: int
    digits: str


def number_word_spans(text: str) -> list[NumberWords]:
    """Every run of number words in `text` that stands for a value (module doc), in order."""
    if not _WORD_RE.search(text):
        return []
    words = [(m.start(), m.end(), m.group().lower()) for m in _WORD_RE.finditer(text)]
    out: list[NumberWords] = []
    i = 0
    while i < len(words):
        run = [words[i]]
        while i + len(run) < len(words):
            nxt = words[i + len(run)]
            if not _JOIN_RE.fullmatch(text, run[-1][1], nxt[0]):
                break
            run.append(nxt)
        day = _day_of_month(text, run)
        numbers = _numbers_in(text, run)
        if day is not None:
            numbers = [n for n in numbers if n.end <= day.start] + [day]
        out.extend(numbers)
        i += len(run)
    return out


def _day_of_month(text: str, run: list[tuple[int, int, str]]) -> NumberWords | None:
    """An ordinal day said beside a month: "September twenty-fifth", "the third of May"."""
    last = run[-1][2]
    if last not in ORDINALS:
        return None
    tens = run[-2][2] if len(run) > 1 and run[-2][2] in ("twenty", "thirty") else None
    day = (TENS[tens] if tens else 0) + ORDINALS[last]
    if not 1 <= day <= 31:
        return None
    start = run[-2][0] if tens else run[-1][0]
    end = run[-1][1]
    before = _MONTH_BEFORE_RE.search(text, max(0, start - 16), start)
    after = _MONTH_AFTER_RE.match(text, end)
    if before is None and after is None:
        return None
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(day % 10 if day not in (11, 12, 13) else 0, "th")
    return NumberWords(start, end, f"{day}{suffix}")


def _numbers_in(text: str, run: list[tuple[int, int, str]]) -> list[NumberWords]:
    """The numbers a run of adjacent number words holds (a run may hold several: "twenty
    to twenty-five" is cut at "to" before it gets here; "one ninety one ten" is not)."""
    out: list[NumberWords] = []
    k = 0
    while k < len(run):
        parsed = _parse(run, k)
        if parsed is None:
            k += 1
            continue
        end_index, value = parsed
        start, end = run[k][0], run[end_index - 1][1]
        if _stands_for_value(text, run, k, end_index, value):
            out.append(NumberWords(start, end, value))
        k = end_index
    return out


def _stands_for_value(
    text: str, run: list[tuple[int, int, str]], k: int, end_index: int, value: str
) -> bool:
    words = [w for _, _, w in run[k:end_index]]
    start, end = run[k][0], run[end_index - 1][1]
    before = text[max(0, start - 24) : start]
    if words[0] in DECADES or words[-1] == "hundreds":
        return bool(_BAND_BEFORE_RE.search(before))
    if len(words) > 1 or words[0] in TENS or words[0] in SCALES:
        return True
    word = words[0]
    if word in UNITS and word != "oh" and _OBSTETRIC_BEFORE_RE.search(before):
        return True  # "gravida two para one"
    if word in ("one", "a", "and", "point", "oh") or word not in UNITS and word not in TEENS:
        return False
    return bool(_VALUE_BEFORE_RE.search(before) or _UNIT_AFTER_RE.match(text, end))


def _parse(run: list[tuple[int, int, str]], k: int) -> tuple[int, str] | None:
    """The number starting at word k of the run: (index after its last word, digits)."""
    words = [w for _, _, w in run]
    n = len(words)
    if words[k] in ORDINALS:
        return None  # an ordinal is read only as a day of a month (`_day_of_month`)
    year = _year(words, k)
    if year is not None:
        return year
    if words[k] in ("and", "point") and not (words[k] == "point" and _digit_after(words, k)):
        return None
    if words[k] == "a" and not (k + 1 < n and words[k + 1] in SCALES):
        return None
    if words[k] == "oh":
        return None
    if words[k] in DECADES:
        return k + 1, f"{DECADES[words[k]]}s"
    if words[k] == "hundreds":
        return None
    j = k
    whole: int | None = None
    if words[j] != "point":
        # the dictated hundreds: "one twenty-one", "one ninety", "one oh five"
        if (
            words[j] in UNITS
            and words[j] not in ("zero", "oh")
            and j + 1 < n
            and (words[j + 1] in TENS or words[j + 1] in TEENS or words[j + 1] == "oh")
        ):
            hundreds = UNITS[words[j]] * 100
            j += 1
            if words[j] == "oh":
                if j + 1 < n and words[j + 1] in UNITS and words[j + 1] not in ("zero", "oh"):
                    whole, j = hundreds + UNITS[words[j + 1]], j + 2
                else:
                    return None
            elif words[j] in TEENS:
                whole, j = hundreds + TEENS[words[j]], j + 1
            else:
                whole, j = hundreds + TENS[words[j]], j + 1
                if j < n and words[j] in UNITS and words[j] not in ("zero", "oh"):
                    whole, j = whole + UNITS[words[j]], j + 1
        else:
            whole, j = _cardinal(words, j)
            if whole is None:
                return None
    if j < n and words[j] == "point" and _digit_after(words, j):
        j += 1
        decimals = ""
        while j < n and words[j] in _DIGIT_WORDS_AFTER_POINT:
            decimals += str(UNITS[words[j]])
            j += 1
        return j, f"{whole or 0}.{decimals}"
    if whole is None:
        return None
    if words[j - 1] == "hundreds":
        return j, f"{whole}s"  # "the three hundreds": the band 300-399
    return j, str(whole)


def _year(words: list[str], k: int) -> tuple[int, str] | None:
    """A year said in two halves: "nineteen eighty-five", "twenty nineteen", "twenty
    twenty-three", "twenty oh five" (the first half nineteen or twenty)."""
    n = len(words)
    if words[k] not in ("nineteen", "twenty") or k + 1 >= n:
        return None
    century = 19 if words[k] == "nineteen" else 20
    nxt = words[k + 1]
    if nxt == "oh" and k + 2 < n and words[k + 2] in UNITS and words[k + 2] not in ("oh", "zero"):
        return k + 3, str(century * 100 + UNITS[words[k + 2]])
    if nxt in TEENS:
        return k + 2, str(century * 100 + TEENS[nxt])
    if nxt in TENS:
        value, j = TENS[nxt], k + 2
        if j < n and words[j] in UNITS and words[j] not in ("oh", "zero"):
            value, j = value + UNITS[words[j]], j + 1
        return j, str(century * 100 + value)
    return None


def _digit_after(words: list[str], j: int) -> bool:
    return j + 1 < len(words) and words[j + 1] in UNITS


def _cardinal(words: list[str], j: int) -> tuple[int | None, int]:
    """A cardinal from word j: "sixty-one thousand", "one hundred and twenty"."""
    n = len(words)
    total = 0
    current = 0
    seen = False
    last: str | None = None  # the kind of the last word taken
    while j < n:
        w = words[j]
        if w == "a" and j + 1 < n and words[j + 1] in SCALES and not seen:
            current, seen, last = 1, True, "unit"
        elif w in UNITS and w != "oh" and last in (None, "tens", "scale", "and"):
            if last == "tens" and UNITS[w] == 0:
                break
            current += UNITS[w]
            seen, last = True, "unit"
        elif w in TEENS and last in (None, "scale", "and"):
            current += TEENS[w]
            seen, last = True, "teen"
        elif w in TENS and last in (None, "scale", "and"):
            current += TENS[w]
            seen, last = True, "tens"
        elif w == "hundred" and last in ("unit", "teen") and current % 100 == current:
            current *= 100
            last = "scale"
        elif w == "hundreds" and last == "unit" and total == 0:
            current *= 100
            j += 1
            break  # a band ends the number: "the three hundreds"
        elif w == "thousand" and seen and last in ("unit", "teen", "tens", "scale"):
            total += current * 1000
            current = 0
            last = "scale"
        elif (
            w == "and"
            and last == "scale"
            and j + 1 < n
            and words[j + 1]
            in (
                *UNITS,
                *TEENS,
                *TENS,
            )
        ):
            last = "and"
        else:
            break
        j += 1
    if not seen:
        return None, j
    if last == "and":
        j -= 1
    return total + current, j
