"""Hypothesis strategies for clinical records written the way clinics write them, and the
formatting-only and meaning-changing edits the property tests make to quotes from them.

Every generated line is a whole clause or a whole table row, so quoting it whole never cuts
off its context.
"""

from __future__ import annotations

import re
import unicodedata

from hypothesis import strategies as st

from concord.domain import Record, SourceDocument

LAB_ROWS = [
    ("Potassium", "mmol/L", (3.5, 5.3)),
    ("Sodium", "mmol/L", (133, 146)),
    ("Haemoglobin", "g/L", (115, 165)),
    ("Platelets", "x10^9/L", (150, 400)),
    ("WCC", "×10⁹/L", (4.0, 11.0)),
    ("INR", "", (0.8, 1.2)),
    ("Creatinine", "µmol/L", (45, 84)),
    ("eGFR", "mL/min/1.73m²", (90, 120)),
    ("CRP", "mg/L", (0, 5)),
    ("Troponin T", "ng/L", (0, 14)),
    ("HbA1c", "mmol/mol", (20, 41)),
    ("Bilirubin", "µmol/L", (0, 21)),
]
DRUGS = [
    "metoprolol",
    "metformin",
    "methotrexate",
    "amlodipine",
    "apixaban",
    "ramipril",
    "bisoprolol",
    "atorvastatin",
    "clopidogrel",
    "warfarin",
    "levothyroxine",
    "prednisolone",
]
FREQUENCIES = ["once daily", "twice daily", "three times daily", "weekly", "nocte", "PRN", "mane"]
SIDES = ["Left", "Right"]
OPERATIONS = [
    "total hip replacement",
    "total knee replacement",
    "inguinal hernia repair",
    "carotid endarterectomy",
    "mastectomy",
]
NEGATED = [
    "No history of bleomycin exposure",
    "No known drug allergies",
    "Denies chest pain on exertion",
    "No evidence of pulmonary oedema",
    "Not on anticoagulants",
    "No previous anaesthetic problems",
]
PROSE = [
    "Seen in pre-assessment clinic today with her husband",
    "Walks the dog two miles daily without stopping",
    "Ex-smoker of 20 pack years, stopped in 2015",
    "Alcohol around 6 units per week",
    "Mallampati 2, mouth opening good, full dentition",
    "Sinus rhythm, rate 72 bpm, normal axis, QTc 428 ms",
    "Moderate aortic stenosis, peak velocity 3.4 m/s, mean gradient 28 mmHg",
    "LVEF 55-60% with normal regional wall motion",
    "Type 2 diabetes on diet control, last HbA1c 52 mmol/mol",
    "Plan: hold apixaban 48 hours before surgery",
]
CHANGES = {
    "left": "right",
    "right": "left",
    "once": "twice",
    "twice": "once",
    "daily": "weekly",
    "weekly": "daily",
    "moderate": "severe",
    "severe": "mild",
    "mild": "moderate",
    "aortic": "mitral",
    "normal": "abnormal",
    "metoprolol": "metformin",
    "metformin": "metoprolol",
    "methotrexate": "metoprolol",
    "hip": "knee",
    "knee": "hip",
    "her": "his",
    "husband": "wife",
    "good": "poor",
    "sinus": "junctional",
    "without": "with",
    "stopped": "started",
    "before": "after",
}
"""Single-word substitutions a careless copy could make (others are drawn at random)."""
FILLER_WORDS = ["patient", "stable", "reviewed", "bilateral", "chronic", "acute", "nocte"]
ZERO_WIDTH = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u200e", "\u202c"]
NEGATION_OPENERS = re.compile(r"^(No history of|No known|No evidence of|No|Not|Denies)\s+", re.I)


def _number(value: float, decimals: int) -> str:
    return f"{value:.{decimals}f}"


@st.composite
def lab_row(draw: st.DrawFn) -> str:
    label, unit, (low, high) = draw(st.sampled_from(LAB_ROWS))
    decimals = 1 if isinstance(low, float) else 0
    value = draw(st.floats(low / 3, high * 3, allow_nan=False)) if high else 0.0
    flag = "H" if value > high else "L" if value < low else ""
    gap = draw(st.sampled_from(["  ", "    ", "\t", "  |  "]))
    dash = draw(st.sampled_from(["-", "–"]))
    reference = f"({_number(low, decimals)}{dash}{_number(high, decimals)})"
    cells = [label, _number(value, decimals), flag, reference, unit]
    return gap.join(c for c in cells if c)


@st.composite
def medication(draw: st.DrawFn) -> str:
    drug = draw(st.sampled_from(DRUGS)).capitalize()
    dose = draw(st.sampled_from(["2.5", "5", "10", "20", "40", "50", "75", "100"]))
    return f"{drug} {dose} mg {draw(st.sampled_from(FREQUENCIES))}"


@st.composite
def history(draw: st.DrawFn) -> str:
    side = draw(st.sampled_from(SIDES))
    year = draw(st.integers(1995, 2025))
    return f"{side} {draw(st.sampled_from(OPERATIONS))} {year}"


record_line = st.one_of(
    lab_row(), medication(), history(), st.sampled_from(NEGATED), st.sampled_from(PROSE)
)


@st.composite
def clinical_record(draw: st.DrawFn) -> tuple[Record, list[str]]:
    """A one-document record and its lines (each a whole clause or row)."""
    lines = draw(st.lists(record_line, min_size=3, max_size=14, unique=True))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    bullet = draw(st.sampled_from(["", "- ", "• "]))
    stop = draw(st.sampled_from(["", "."]))
    body = newline.join(
        ln if re.search(r"\t|  ", ln) else bullet + ln + stop  # table rows stay bare
        for ln in lines
    )
    document = SourceDocument(source_id="note", kind="txt", text=body + newline)
    return Record(name="r", documents=(document,)), lines


def loose(text: str) -> str:
    """A looser form than Concord's canonical one (case, NFKC, invisible characters,
    dashes, whitespace, bullets, pipes and hyphens between letters removed): if a changed
    quote's loose form is not in the record's, the quote cannot be the record's words."""
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    text = unicodedata.normalize("NFKC", text).casefold()
    text = re.sub("[\u2010-\u2015\u2212]", "-", text).replace("×", "x")
    text = re.sub(r"(?<=[^\W\d_])-\s*(?=[^\W\d_])", "", text)
    return re.sub(r"[\s|•*]+", "", text)


# -- formatting-only edits ---------------------------------------------------------------


def _words(text: str) -> list[re.Match[str]]:
    return list(re.finditer(r"[^\W\d_]{6,}", text))


@st.composite
def reformatted(draw: st.DrawFn, line: str) -> str:
    """`line` with one to three edits that change its formatting, never its words."""
    text = line
    for _ in range(draw(st.integers(1, 3))):
        edit = draw(
            st.sampled_from(
                ["case", "space", "wrap", "hyphen_wrap", "dash", "invisible", "bullet", "stop"]
            )
        )
        text = _reformat(draw, text, edit)
    return text


def _reformat(draw: st.DrawFn, text: str, edit: str) -> str:
    if edit == "case":
        return draw(st.sampled_from([text.upper(), text.lower(), text.title(), text.swapcase()]))
    spaces = [m.start() for m in re.finditer(r" (?![-–•*] )", text)]
    if edit in ("space", "wrap") and spaces:
        at = draw(st.sampled_from(spaces))
        glue = draw(st.sampled_from(["  ", "\t", " \n ", "\n", "\r\n"]))
        return text[:at] + glue + text[at + 1 :]
    words = _words(text)
    if edit == "hyphen_wrap" and words:
        word = draw(st.sampled_from(words))
        cut = draw(st.integers(word.start() + 2, word.end() - 2))
        return text[:cut] + "-\n" + text[cut:]
    if edit == "dash":
        return re.sub(r"(?<=\d)[-–](?=\d)", draw(st.sampled_from(["-", "–", "—", "−", "‐"])), text)
    if edit == "invisible":
        inside = [i for i in range(1, len(text)) if text[i - 1].isalnum() and text[i].isalnum()]
        if inside:
            at = draw(st.sampled_from(inside))
            return text[:at] + draw(st.sampled_from(ZERO_WIDTH)) + text[at:]
    if edit == "bullet":
        return draw(st.sampled_from(["• ", "- ", "* ", "– "])) + text
    if edit == "stop" and not text.rstrip().endswith("."):
        return text.rstrip() + "."
    return unicodedata.normalize(draw(st.sampled_from(["NFKD", "NFC"])), text)


# -- meaning-changing edits ----------------------------------------------------------------


@st.composite
def substituted(draw: st.DrawFn, line: str) -> str:
    words = list(re.finditer(r"[^\W\d_]{2,}", line))
    word = draw(st.sampled_from(words))
    old = word.group()
    new = CHANGES.get(old.casefold()) or draw(
        st.sampled_from([w for w in FILLER_WORDS if w != old.casefold()])
    )
    new = new.capitalize() if old[0].isupper() else new
    return line[: word.start()] + new + line[word.end() :]


@st.composite
def digit_changed(draw: st.DrawFn, line: str) -> str:
    at = draw(st.sampled_from([m.start() for m in re.finditer(r"\d", line)]))
    new = draw(st.sampled_from([d for d in "0123456789" if d != line[at]]))
    return line[:at] + new + line[at + 1 :]


@st.composite
def sign_changed(draw: st.DrawFn, line: str) -> str:
    numbers = [m.start() for m in re.finditer(r"(?<![\d.,])\d", line)]
    at = draw(st.sampled_from(numbers))
    if at > 0 and line[at - 1] in "-–":
        return line[: at - 1] + line[at:]  # a minus (or a range dash) dropped
    return line[:at] + draw(st.sampled_from(["-", "<", ">", "≥", "≤", "+"])) + line[at:]


def negation_dropped(line: str) -> str:
    return NEGATION_OPENERS.sub("", line, count=1)
