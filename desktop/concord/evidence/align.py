"""Deterministic alignment of an evidence extract to the patient record.

Outcome of `align_extract`:
  EXACT   the extract occurs verbatim after whitespace normalisation; `doc.text[start:end]`
          is the original record text (newlines and all), score 100.
  FUZZY   rapidfuzz alignment (case-insensitive) scoring >= FUZZY_THRESHOLD; span and score
          of the aligned record text.
  FAILED  nothing usable. start/end are None when nothing similar was found. When the best
          candidate differs from the extract in numbers/units (`number_mismatch`) or in
          negation (`negation_mismatch`), the status is FAILED too, with that flag, and the
          candidate's span and score are kept so the clinician can see what the record says.
          Such an extract is therefore never verified, however similar the rest of it is.
Flags: unknown_source (the named source_id does not exist; all documents were searched),
source_mismatch (found in a document other than the named one), number_mismatch,
negation_mismatch, negated (a negation cue governs the aligned text in the record),
empty_extract.
Preference among candidates: clean (no mismatch) > exact > in the named (or hinted) source
> higher score > whole-word edges > nearer the hinted line > earlier.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from concord.domain import Alignment, AlignmentStatus, EvidenceLine, Line, Record
from concord.evidence.fuzzy import (
    FUZZY_MIN_CHARS,
    FUZZY_THRESHOLD,
    FuzzyMatch,
    fuzzy_matches,
    scan_matches,
)
from concord.evidence.negation import (
    negation_cue_after,
    negation_cue_before,
    negation_cue_leading,
    negation_cues_in,
)
from concord.evidence.normalize import fold_case, normalize_whitespace
from concord.evidence.numbers import numbers_differ, widen_to_numbers
from concord.evidence.pack_file import read_evidence_jsonl
from concord.evidence.record_index import DocumentIndex, record_index
from concord.evidence.skeleton import Skeleton

UNKNOWN_SOURCE = "unknown_source"
SOURCE_MISMATCH = "source_mismatch"
NUMBER_MISMATCH = "number_mismatch"
NEGATION_MISMATCH = "negation_mismatch"
NEGATED = "negated"
EMPTY_EXTRACT = "empty_extract"
BLOCKING_FLAGS = frozenset({NUMBER_MISMATCH, NEGATION_MISMATCH})
"""Flags that make an aligned extract FAILED (never verified)."""
MAX_EXACT_OCCURRENCES = 50

__all__ = [
    "FUZZY_MIN_CHARS",
    "FUZZY_THRESHOLD",
    "align_extract",
    "content_flags",
    "read_evidence_jsonl",
    "verify_lines",
]

_LINE_ID = re.compile(r"\bL(\d+)\b")


@dataclass(frozen=True)
class _Candidate:
    source_id: str
    order: int  # position of the document in the record
    start: int
    end: int
    score: float
    exact: bool
    flags: tuple[str, ...]

    @property
    def clean(self) -> bool:
        return not BLOCKING_FLAGS.intersection(self.flags)


def content_flags(text: str, start: int, end: int, extract: str) -> tuple[str, ...]:
    """number_mismatch / negation_mismatch / negated for `extract` aligned to
    text[start:end]. Numbers are compared on the span widened to whole numbers; negation
    differs when the cues inside differ, or a cue before the span governs it while the
    extract does not open with a cue of its own."""
    flags: list[str] = []
    wide_start, wide_end = widen_to_numbers(text, start, end)
    if numbers_differ(extract, text[wide_start:wide_end]):
        flags.append(NUMBER_MISMATCH)
    before = negation_cue_before(text, start)
    inside = negation_cues_in(text[start:end])
    dropped = before is not None and negation_cue_leading(extract) is None
    if dropped or negation_cues_in(extract) != inside:
        flags.append(NEGATION_MISMATCH)
    if before or inside or negation_cue_after(text, end):
        flags.append(NEGATED)
    return tuple(flags)


def _whole_words(text: str, start: int, end: int) -> bool:
    cuts_start = 0 < start < len(text) and text[start - 1].isalnum() and text[start].isalnum()
    cuts_end = 0 < end < len(text) and text[end - 1].isalnum() and text[end].isalnum()
    return not (cuts_start or cuts_end)


def _candidate(
    doc: DocumentIndex, order: int, nstart: int, nend: int, score: float, exact: bool, extract: str
) -> _Candidate:
    start, end = doc.normalized.span_to_original(nstart, nend)
    text = doc.document.text
    flags = content_flags(text, start, end, extract)
    return _Candidate(doc.document.source_id, order, start, end, score, exact, flags)


def _exact_candidates(doc: DocumentIndex, order: int, query: str, extract: str) -> list[_Candidate]:
    found: list[_Candidate] = []
    at = doc.normalized.text.find(query)
    while at >= 0 and len(found) < MAX_EXACT_OCCURRENCES:
        found.append(_candidate(doc, order, at, at + len(query), 100.0, True, extract))
        at = doc.normalized.text.find(query, at + 1)
    return found


def _fuzzy_candidates(doc: DocumentIndex, order: int, query: str, extract: str) -> list[_Candidate]:
    made: dict[FuzzyMatch, _Candidate] = {}

    def accept(match: FuzzyMatch) -> bool:
        made[match] = _candidate(doc, order, match.start, match.end, match.score, False, extract)
        return made[match].clean

    fuzzy_matches(doc, fold_case(query), accept)
    return list(made.values())


def _number_mismatch_candidates(
    doc: DocumentIndex, order: int, query: str, extract: str
) -> list[_Candidate]:
    """Where the extract aligns once numbers and units are replaced by placeholders, kept
    only where its numbers differ: explains a failure as number_mismatch ("K+ 3.6" or
    "K+ 6.3 mg/dL" against "K+ 6.3 mmol/L"). Scores are fuzz.ratio on the real text."""
    folded = fold_case(query)
    shape = Skeleton.of(folded).text
    if shape == folded:
        return []  # no numbers in the extract
    skeleton = doc.skeleton
    found: list[_Candidate] = []

    def keep(match: FuzzyMatch) -> bool:
        start, end = skeleton.to_source(match.start, match.end)
        score = fuzz.ratio(folded, doc.folded[start:end])
        made = _candidate(doc, order, start, end, score, False, extract)
        if NUMBER_MISMATCH in made.flags:
            found.append(made)
            return True
        return False

    at = skeleton.text.find(shape)
    while at >= 0 and len(found) < MAX_EXACT_OCCURRENCES:
        keep(FuzzyMatch(at, at + len(shape), 100.0))
        at = skeleton.text.find(shape, at + 1)
    if not found and len(query) >= FUZZY_MIN_CHARS:
        scan_matches(skeleton.text, shape, keep, [])
    return found


def _hint_line(record: Record, line_hint: str | None) -> Line | None:
    match = _LINE_ID.search(line_hint or "")
    return record.line_index.get(f"L{match.group(1)}") if match else None


def align_extract(
    record: Record,
    extract: str,
    source_id: str | None = None,
    line_hint: str | None = None,
) -> Alignment:
    """Align `extract` to `record` (see the module doc for statuses and flags).

    Guarantees: for EXACT and FUZZY, 0 <= start <= end <= len(doc.text) and
    `record.document(source_id).text[start:end]` is the aligned record text; for EXACT it
    equals the extract after whitespace normalisation. `verified` is True only for EXACT or
    FUZZY without number or negation mismatch. Never raises for any string input.
    """
    index = record_index(record)
    route_flags: list[str] = []
    named = source_id if source_id in index.documents else None
    if source_id is not None and named is None:
        route_flags.append(UNKNOWN_SOURCE)
    hint = _hint_line(record, line_hint)
    preferred = named or (hint.source_id if hint else None)
    query = normalize_whitespace(extract)
    if not query:
        return Alignment(status=AlignmentStatus.FAILED, flags=(*route_flags, EMPTY_EXTRACT))

    docs = list(index.documents.values())
    searched = sorted(range(len(docs)), key=lambda i: docs[i].document.source_id != preferred)
    candidates = [c for i in searched for c in _exact_candidates(docs[i], i, query, extract)]
    if not any(c.clean for c in candidates) and len(query) >= FUZZY_MIN_CHARS:
        for i in searched:
            found = _fuzzy_candidates(docs[i], i, query, extract)
            candidates.extend(found)
            if any(c.clean for c in found):
                break
    if not any(c.clean for c in candidates) and any(ch.isdigit() for ch in query):
        for i in searched:
            candidates.extend(_number_mismatch_candidates(docs[i], i, query, extract))
    if not candidates:
        return Alignment(status=AlignmentStatus.FAILED, flags=tuple(route_flags))

    def rank(c: _Candidate) -> tuple[bool, bool, bool, float, bool, int, int, int]:
        text = docs[c.order].document.text
        near = -abs(c.start - hint.start) if hint and hint.source_id == c.source_id else -(10**12)
        return (
            c.clean,
            c.exact,
            c.source_id == preferred,
            c.score,
            _whole_words(text, c.start, c.end),
            near,
            -c.order,
            -c.start,
        )

    best = max(candidates, key=rank)
    flags = list(route_flags)
    if named is not None and best.source_id != named:
        flags.append(SOURCE_MISMATCH)
    flags.extend(best.flags)
    if not best.clean:
        status = AlignmentStatus.FAILED
    else:
        status = AlignmentStatus.EXACT if best.exact else AlignmentStatus.FUZZY
    return Alignment(
        status=status,
        source_id=best.source_id,
        start=best.start,
        end=best.end,
        score=round(best.score, 2),
        flags=tuple(flags),
    )


def verify_lines(record: Record, lines: Sequence[EvidenceLine]) -> list[Alignment]:
    """`align_extract` for each evidence line (its source_id and locator as hints), in order."""
    return [align_extract(record, ln.extract_text, ln.source_id, ln.locator) for ln in lines]
