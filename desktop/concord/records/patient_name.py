"""The patient a record is about, when the record names them on a labelled line.

A record imported from a plain file is named after the file ("letter_0423.txt"). When the
text names the patient the way clinic paperwork does — "Patient: Jane Doe", "Name: DOE,
Jane", "Re: Jane DOE   DOB 01/02/1950" — the worklist shows that name (the file name stays
beside it). Only labelled lines near the top of a document count; a "Re:" line counts only
when an identifier (DOB, NHS, MRN, hospital number) follows the name, so "Re: pre-operative
assessment" is not a patient. A candidate with digits, one word only, a placeholder
("unknown", "redacted") or a lower-case word that is not a surname particle ("known to
cardiology") is refused: no name is better than a wrong one.
"""

from __future__ import annotations

import re
import unicodedata

from concord.domain import Record
from concord.records.load import record_suffixes

HEAD_LINES = 40  # a document's header is within its first lines
_WORD = r"[^\W\d_][\w'’.\-]*"  # a name word: starts with a letter (any script)
# one space between the words of a name; a wider gap separates fields ("Ann Early   MRN ...")
_NAME = rf"(?P<name>{_WORD}(?:(?:,[ \t]*|[ \t])(?![ \t]){_WORD}){{0,5}})"
_STOP = r"(?=$|[ \t]{2,}|[ \t]*[(\[|;/]|,?[ \t]+(?:dob|d\.o\.b|born|nhs|mrn|hosp|age|sex)\b)"
_LABELLED = re.compile(
    rf"^[ \t]*(?:patient(?:'s)?(?:[ \t]+name)?|name(?:[ \t]+of[ \t]+patient)?|pt(?:[ \t]+name)?"
    rf"|full[ \t]+name|surname,[ \t]*forenames?)[ \t]*[:\-–][ \t]*{_NAME}{_STOP}",
    re.IGNORECASE,
)
_REGARDING = re.compile(
    rf"^[ \t]*re[ \t]*:[ \t]*{_NAME},?[ \t]+(?:dob|d\.o\.b|born|nhs|mrn|hosp)",
    re.IGNORECASE,
)
_PLACEHOLDERS = frozenset(
    {"unknown", "redacted", "anonymous", "anonymised", "anonymized", "withheld", "not", "none"}
)
_TITLES = frozenset({"mr", "mrs", "ms", "miss", "mx", "master"})
_PARTICLES = frozenset(  # lower-case parts of surnames: van der Berg, de la Cruz, bin Ali
    {
        "van",
        "der",
        "den",
        "de",
        "la",
        "le",
        "da",
        "di",
        "del",
        "della",
        "dos",
        "das",
        "du",
        "von",
        "zu",
        "bin",
        "binti",
        "bint",
        "al",
        "el",
        "ter",
        "ten",
        "y",
        "e",
        "ibn",
        "ap",
    }
)


def _clean(candidate: str) -> str | None:
    words = candidate.replace(",", " , ").split()
    plain = [w for w in words if w != ","]
    if plain and plain[0].lower().rstrip(".") in _TITLES:
        plain = plain[1:]
    if not 2 <= len(plain) <= 5:
        return None
    if any(w.lower().strip(".'’-") in _PLACEHOLDERS for w in plain):
        return None
    if any(len(w.strip(".'’-")) == 0 for w in plain):
        return None
    if any(ch.isdigit() for w in plain for ch in w):
        return None  # an identifier, not a name
    if any(w[0].islower() and w.lower() not in _PARTICLES for w in plain):
        return None  # "Patient: known to cardiology" is a sentence, not a name
    text = " ".join(words).replace(" , ", ", ")
    if text.lower().startswith(tuple(t + " " for t in _TITLES)):
        text = text.split(" ", 1)[1]
    return text


def patient_name(record: Record) -> str | None:
    """The patient's name as the record writes it, or None when no labelled line names one."""
    for document in record.documents:
        for line in document.text.splitlines()[:HEAD_LINES]:
            line = unicodedata.normalize("NFKC", line)
            for pattern in (_LABELLED, _REGARDING):
                match = pattern.match(line)
                if match:
                    name = _clean(match.group("name"))
                    if name:
                        return name
    return None


def named_after_file(record: Record) -> bool:
    """Did the importer fall back to the file name (no name given in the record)?"""
    return record.name.lower().endswith(record_suffixes())


def display_name(record: Record) -> str:
    """What the worklist calls the record: the patient's name when the record was named after
    its file and the text names the patient, else the record's own name."""
    if named_after_file(record):
        name = patient_name(record)
        if name:
            return name
    return record.name


_DOB = re.compile(
    r"(?<![A-Za-z])(?:d\.?o\.?b\.?|date[ \t]+of[ \t]+birth|birth[ \t]*date|born)[ \t]*[:\-]?[ \t]*"
    r"(?P<date>\d{1,2}[/.\-]\d{1,2}[/.\-]\d{2,4}|\d{4}-\d{2}-\d{2}"
    r"|\d{1,2}[ \t]+[A-Za-z]{3,9}[ \t]+\d{4})",
    re.IGNORECASE,
)
_MRN = re.compile(
    r"(?<![A-Za-z])(?P<label>MRN|NHS(?:[ \t]+(?:no\.?|number))?|hosp(?:ital)?[ \t]+(?:no\.?|number)"
    r"|medical[ \t]+record[ \t]+(?:no\.?|number)|patient[ \t]+id)[ \t]*[:#]?[ \t]*"
    r"(?P<id>[A-Za-z]{0,4}[\-]?\d[\d \-]{2,14}\d|[A-Za-z]{1,4}-?\d{3,12})",
    re.IGNORECASE,
)


def _head_lines(record: Record) -> list[str]:
    return [
        unicodedata.normalize("NFKC", line)
        for document in record.documents
        for line in document.text.splitlines()[:HEAD_LINES]
    ]


def date_of_birth(record: Record) -> str | None:
    """The date of birth as the record writes it on a labelled line ("DOB 02/07/1954")."""
    for line in _head_lines(record):
        match = _DOB.search(line)
        if match:
            return match.group("date")
    return None


def record_number(record: Record) -> str | None:
    """The hospital or NHS number as the record writes it ("MRN KB-2280415")."""
    for line in _head_lines(record):
        match = _MRN.search(line)
        if match:
            label = match.group("label").split()[0].upper()
            return f"{label} {' '.join(match.group('id').split())}"
    return None


def identifies_patient(record: Record) -> bool:
    """Does the text say whose record it is (a labelled name, a date of birth or a hospital
    or NHS number)? A folder's loose text that does not (a README, notes about the
    folder) is not a patient record."""
    return bool(patient_name(record) or date_of_birth(record) or record_number(record))
