"""Per-record search structures for alignment, built once and cached by content hash.

For each document: its canonical tokens (`TokenText`), the positions of tokens, used to
find the record text closest to a quote that failed (an index built lazily, or a scan for
very long documents), and its tokens without lab flag cells (`FlaglessView`, built lazily).
"""

from __future__ import annotations

import threading
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from functools import cached_property

from concord.domain import Record, SourceDocument
from concord.evidence.canonical import TokenText
from concord.evidence.lab_rows import LAB_FLAGS, FlaglessView

MAX_CACHED_RECORDS = 8
MAX_INDEXED_TOKENS = 2_000_000
"""Documents with more tokens find a token's positions by scanning instead of an index."""


class DocumentIndex:
    """Search structures for one document (immutable once built)."""

    def __init__(self, document: SourceDocument) -> None:
        self.document = document
        self.tokens = TokenText.of(document.text)

    @cached_property
    def _positions(self) -> dict[str, list[int]]:
        """Canonical token -> its token indices, ascending (documents up to
        MAX_INDEXED_TOKENS tokens)."""
        found: defaultdict[str, list[int]] = defaultdict(list)
        for index, token in enumerate(self.tokens.tokens()):
            found[token].append(index)
        return dict(found)

    @cached_property
    def flagless(self) -> FlaglessView | None:
        """The document's tokens without lab flag cells, None when it has none."""
        return FlaglessView.of(self.tokens, self.positions(LAB_FLAGS, len(self.tokens)))

    def positions(self, tokens: Iterable[str], limit: int) -> dict[str, list[int]]:
        """For each of `tokens` found in the document, its first `limit` token indices
        (an index of every token for ordinary documents; a scan for very long ones, so
        memory stays proportional to the text)."""
        wanted = set(tokens)
        if len(self.tokens) <= MAX_INDEXED_TOKENS:
            return {t: self._positions[t][:limit] for t in wanted if t in self._positions}
        found = {t: list(self.tokens.find([t], limit)) for t in wanted}
        return {t: p for t, p in found.items() if p}


class RecordIndex:
    """DocumentIndex per source_id, in record order."""

    def __init__(self, record: Record) -> None:
        self.documents: dict[str, DocumentIndex] = {
            doc.source_id: DocumentIndex(doc) for doc in record.documents
        }


_cache: OrderedDict[str, RecordIndex] = OrderedDict()
_lock = threading.Lock()


def record_index(record: Record) -> RecordIndex:
    """The index of `record`, shared by every record with the same content hash (LRU of
    MAX_CACHED_RECORDS)."""
    key = record.content_hash
    with _lock:
        found = _cache.get(key)
        if found is not None:
            _cache.move_to_end(key)
            return found
    built = RecordIndex(record)
    with _lock:
        _cache[key] = built
        while len(_cache) > MAX_CACHED_RECORDS:
            _cache.popitem(last=False)
    return built
