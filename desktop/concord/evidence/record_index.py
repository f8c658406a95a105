"""Per-record search structures for alignment, built once and cached by content hash.

For each document: its whitespace-normalised text with the offset map back to the
original, a case-folded copy for fuzzy matching, and (built lazily) a word -> positions
index used to pick the few windows worth a fuzzy alignment.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict, defaultdict
from functools import cached_property

from concord.domain import Record, SourceDocument
from concord.evidence.normalize import NormalizedText, fold_case
from concord.evidence.skeleton import Skeleton

MAX_CACHED_RECORDS = 8
_WORD = re.compile(r"\w+")


class DocumentIndex:
    """Search structures for one document (immutable once built)."""

    def __init__(self, document: SourceDocument) -> None:
        self.document = document
        self.normalized = NormalizedText.of(document.text)
        self.folded = fold_case(self.normalized.text)

    @cached_property
    def skeleton(self) -> Skeleton:
        """`folded` with numbers and units replaced by placeholders (see evidence.skeleton)."""
        return Skeleton.of(self.folded)

    @cached_property
    def word_positions(self) -> dict[str, list[int]]:
        """Folded word -> its start offsets in the normalised text, ascending."""
        positions: defaultdict[str, list[int]] = defaultdict(list)
        for match in _WORD.finditer(self.folded):
            positions[match.group()].append(match.start())
        return dict(positions)


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
