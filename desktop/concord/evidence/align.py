"""Deterministic alignment of an evidence extract to the patient record: what "verified"
means.

An extract is verified when its canonical tokens (`concord.evidence.canonical`: case,
whitespace and line wraps, bullets, dash and quote variants, NFKC forms, invisible
characters and a trailing full stop folded away) occur contiguously in a document's
canonical tokens, on whole words (a lab row's flag column may be left out:
`concord.evidence.lab_rows`), and the quote neither cuts off the words that govern its
meaning (`concord.evidence.context`) nor joins parts of different table rows. Nothing else
is forgiven: a different word, number, unit, sign or symbol is a different quote, however
similar the strings.

Outcome of `align_extract`:
  EXACT   verified, and equal to the record text after whitespace normalisation alone;
  FUZZY   verified, equal only once the other formatting is folded;
  FAILED  not verified. When record text close to the extract exists, its span, its
          similarity and `diff` (the words the extract changed) are kept, with flags
          saying what kind of change it is (number_mismatch, negation_mismatch,
          word_mismatch, context_cut, row_join); otherwise start/end are None.
Flags that only inform: negated (a negation governs the aligned text), unknown_source,
source_mismatch, empty_extract. Among several occurrences: verified > in the named (or
hinted) source > nearer the hinted line > earlier.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from concord.domain.evidence import (
    BLOCKING_FLAGS,
    Alignment,
    AlignmentFlag,
    AlignmentStatus,
    EvidenceLine,
    WordChange,
)
from concord.domain.record import Line, Record
from concord.evidence.canonical import TokenText
from concord.evidence.clauses import crosses_rows, line_end, line_start, whole_lines
from concord.evidence.context import QuoteCues, governors, negated
from concord.evidence.context_words import ContextKind
from concord.evidence.explain import SEED_POSITIONS_READ, Change, cuts_word, nearest
from concord.evidence.normalize import normalize_whitespace
from concord.evidence.numbers import is_unit
from concord.evidence.pack_file import read_evidence_jsonl
from concord.evidence.record_index import DocumentIndex, record_index

MAX_OCCURRENCES = 50
"""Occurrences of an extract looked at per document (the first ones)."""
SIGNS = frozenset("<>≤≥=%+-^/~±")
"""Symbols that change a quantity: a comparison, a sign, a ratio, an exponent."""

__all__ = ["align_extract", "align_span", "read_evidence_jsonl", "verify_lines"]

_LINE_ID = re.compile(r"\bL(\d+)\b")


@dataclass(frozen=True)
class _Found:
    """One place in one document where the extract was looked for."""

    doc: DocumentIndex
    order: int  # position of the document in the record
    start: int  # token range in the document
    end: int
    flags: tuple[AlignmentFlag, ...]
    diff: tuple[WordChange, ...]
    closeness: tuple[float, int] = (100.0, 0)  # token similarity, the quote's words kept

    @property
    def verified(self) -> bool:
        return not BLOCKING_FLAGS.intersection(self.flags)

    @property
    def span(self) -> tuple[int, int]:
        return self.doc.tokens.span(self.start, self.end)


def _query(quote: TokenText) -> list[str]:
    """The tokens to look for: the quote's, without a trailing full stop."""
    tokens = quote.tokens()
    if len(tokens) > 1 and tokens[-1] == "." and tokens[-2] != ".":
        tokens.pop()
    return tokens


def _occurrence(
    doc: DocumentIndex, order: int, start: int, end: int, quote: TokenText, cues: QuoteCues
) -> _Found:
    """An exact token match, judged for context and table rows."""
    tt = doc.tokens
    dropped_stop = end - start < len(quote)
    if dropped_stop and end < len(tt) and tt.token(end) == "." and tt.glued(end):
        end += 1  # the quote's full stop is the record's
    cut = governors(tt, start, end, cues)
    flags: list[AlignmentFlag] = []
    before = min((g.start for g in cut if g.end == start), default=start)
    after = max((g.end for g in cut if g.start == end), default=end)
    diff: list[WordChange | None] = [
        WordChange(record=tt.surface(before, start), quote="") if before < start else None,
        WordChange(record=tt.surface(end, after), quote="") if after > end else None,
    ]
    if cut:
        flags.append(AlignmentFlag.CONTEXT_CUT)
    if any(g.kind is ContextKind.NEGATION for g in cut):
        flags.append(AlignmentFlag.NEGATION_MISMATCH)
    if crosses_rows(tt, start, end) and not whole_lines(tt, start, end):
        flags.append(AlignmentFlag.ROW_JOIN)
        first, last = line_start(tt, start), line_end(tt, end - 1)
        diff += [
            WordChange(record=tt.surface(first, start), quote="") if first < start else None,
            WordChange(record=tt.surface(end, last), quote="") if end < last else None,
        ]
    if negated(tt, start, end) or AlignmentFlag.NEGATION_MISMATCH in flags:
        flags.append(AlignmentFlag.NEGATED)
    changes = tuple(c for c in diff if c is not None)
    return _Found(doc, order, start, end, tuple(flags), changes)


def _change_flags(tt: TokenText, quote: TokenText, changes: Sequence[Change]) -> set[AlignmentFlag]:
    flags: set[AlignmentFlag] = set()
    for change in changes:
        words = tt.tokens(change.record_start, change.record_end)
        words += quote.tokens(change.quote_start, change.quote_end)
        numeric = any(
            any(c.isdigit() for c in w) or w in SIGNS or (len(w) > 1 and is_unit(w)) for w in words
        )
        flags.add(AlignmentFlag.NUMBER_MISMATCH if numeric else AlignmentFlag.WORD_MISMATCH)
        record_negated = negated(tt, change.record_start, change.record_end)
        if record_negated != negated(quote, change.quote_start, change.quote_end):
            flags.add(AlignmentFlag.NEGATION_MISMATCH)
    return flags


def _explained(doc: DocumentIndex, order: int, quote: TokenText, query: list[str]) -> _Found | None:
    """The closest record text in `doc` when the extract is not there, with its diff."""
    found = nearest(doc.tokens, doc.positions(query, SEED_POSITIONS_READ + 1), query)
    if found is None:
        return None
    tt = doc.tokens
    changes = [
        WordChange(
            record=tt.surface(found.start + c.record_start, found.start + c.record_end),
            quote=quote.surface(c.quote_start, c.quote_end),
        )
        for c in found.changes
    ]
    shifted = [
        Change(found.start + c.record_start, found.start + c.record_end, c.quote_start, c.quote_end)
        for c in found.changes
    ]
    flags = sorted(_change_flags(tt, quote, shifted))
    if negated(tt, found.start, found.end):
        flags.append(AlignmentFlag.NEGATED)
    if not changes:  # the same tokens, but only as part of longer words
        flags.insert(0, AlignmentFlag.WORD_MISMATCH)
        changes = [
            WordChange(
                record=tt.surface(found.start, found.end), quote=quote.surface(0, len(quote))
            )
        ]
    closeness = (found.similarity, found.words)
    return _Found(doc, order, found.start, found.end, tuple(flags), tuple(changes), closeness)


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

    Guarantees: whenever start/end are set, 0 <= start <= end <= len(doc.text) and
    `record.document(source_id).text[start:end]` is the aligned record text; for EXACT it
    equals the extract after whitespace normalisation. `verified` is True exactly for
    EXACT and FUZZY. Never raises for any string input.
    """
    index = record_index(record)
    route: list[AlignmentFlag] = []
    named = source_id if source_id in index.documents else None
    if source_id is not None and named is None:
        route.append(AlignmentFlag.UNKNOWN_SOURCE)
    hint = _hint_line(record, line_hint)
    preferred = named or (hint.source_id if hint else None)
    quote = TokenText.of(extract)
    query = _query(quote)
    if not query:
        return Alignment(status=AlignmentStatus.FAILED, flags=(*route, AlignmentFlag.EMPTY_EXTRACT))

    docs = list(index.documents.values())

    def nearness(order: int, start: int) -> tuple[bool, int, int, int]:
        """Where an occurrence sits: in the preferred source, near the hinted line, early."""
        doc = docs[order]
        offset = doc.tokens.span(start, start + 1)[0]
        near = abs(offset - hint.start) if hint and hint.source_id == doc.document.source_id else 0
        return (doc.document.source_id != preferred, near, order, offset)

    places = sorted(
        (
            (order, start)
            for order, doc in enumerate(docs)
            for start in doc.tokens.find(query, MAX_OCCURRENCES)
            if not cuts_word(doc.tokens, start, start + len(query))
        ),
        key=lambda place: nearness(*place),
    )
    cues = QuoteCues.of(quote)
    found: list[_Found] = []
    for order, start in places:  # nearest first, until one is verified
        found.append(_occurrence(docs[order], order, start, start + len(query), quote, cues))
        if found[-1].verified:
            break
    if not any(f.verified for f in found):  # a lab row quoted without its flag column
        rows = sorted(
            (
                (order, start, end)
                for order, doc in enumerate(docs)
                if doc.flagless is not None
                for start, end in doc.flagless.find(query, MAX_OCCURRENCES)
                if not cuts_word(doc.tokens, start, end)
            ),
            key=lambda place: nearness(place[0], place[1]),
        )
        for order, start, end in rows:
            found.append(_occurrence(docs[order], order, start, end, quote, cues))
            if found[-1].verified:
                break
    if not found:
        found = [f for order, doc in enumerate(docs) if (f := _explained(doc, order, quote, query))]
    if not found:
        return Alignment(status=AlignmentStatus.FAILED, flags=tuple(route))

    def rank(f: _Found) -> tuple[bool, tuple[float, int], bool, int, int, int]:
        other_source, near, order, offset = nearness(f.order, f.start)
        return (f.verified, f.closeness, not other_source, -near, -order, -offset)

    best = max(found, key=rank)
    start, end = best.span
    source = best.doc.document.source_id
    text = best.doc.document.text[start:end]
    flags = list(route)
    if named is not None and source != named:
        flags.append(AlignmentFlag.SOURCE_MISMATCH)
    flags.extend(best.flags)
    if not best.verified:
        status = AlignmentStatus.FAILED
    elif normalize_whitespace(text) == normalize_whitespace(extract):
        status = AlignmentStatus.EXACT
    else:
        status = AlignmentStatus.FUZZY
    score = 100.0 if status is AlignmentStatus.EXACT else _similarity(extract, text)
    return _checked_against_ocr(
        record,
        Alignment(
            status=status,
            source_id=source,
            start=start,
            end=end,
            score=round(score, 2),
            flags=tuple(flags),
            diff=best.diff,
        ),
    )


def _checked_against_ocr(record: Record, alignment: Alignment) -> Alignment:
    """A verified alignment over a word the OCR read below its confidence threshold is not
    verified: FAILED with `ocr_uncertain`, so a person checks it against the page image."""
    if not alignment.verified or alignment.start is None or alignment.end is None:
        return alignment
    doc = record.document(alignment.source_id or "")
    if doc.ocr is None:
        return alignment
    start, end = alignment.start, alignment.end
    doubtful = any(
        s.source_id == doc.source_id and s.start < end and start < s.end
        for s in doc.ocr.uncertain_spans(doc.source_id, doc.text)
    )
    if not doubtful:
        return alignment
    return alignment.model_copy(
        update={
            "status": AlignmentStatus.FAILED,
            "flags": (*alignment.flags, AlignmentFlag.OCR_UNCERTAIN),
        }
    )


def _similarity(extract: str, text: str) -> float:
    """Character similarity (0..100) of the two texts, whitespace and case aside."""
    return float(
        fuzz.ratio(normalize_whitespace(extract).casefold(), normalize_whitespace(text).casefold())
    )


def align_span(record: Record, source_id: str, start: int, end: int) -> Alignment:
    """The alignment of the record's own text[start:end] as a quote of itself: EXACT at
    that very span unless its words are cut from their context (context_cut, row_join).
    For quotes that code takes from the record, where the place is known."""
    doc = record_index(record).documents[source_id]
    tt = doc.tokens
    first, last = tt.covering(start, end)
    quote = TokenText.of(doc.document.text[start:end])
    if first >= last:
        return Alignment(status=AlignmentStatus.FAILED, flags=(AlignmentFlag.EMPTY_EXTRACT,))
    found = _occurrence(doc, 0, first, last, quote, QuoteCues.of(quote))
    status = AlignmentStatus.EXACT if found.verified else AlignmentStatus.FAILED
    return _checked_against_ocr(
        record,
        Alignment(
            status=status,
            source_id=source_id,
            start=start,
            end=end,
            score=100.0,
            flags=found.flags,
            diff=found.diff,
        ),
    )


def verify_lines(record: Record, lines: Sequence[EvidenceLine]) -> list[Alignment]:
    """`align_extract` for each evidence line (its source_id and locator as hints), in order."""
    return [align_extract(record, ln.extract_text, ln.source_id, ln.locator) for ln in lines]
