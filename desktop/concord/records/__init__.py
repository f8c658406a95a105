"""Record importers (.txt, .md, .json, .pdf) returning `concord.domain.Record`."""

from concord.records.files import MAX_RECORD_BYTES
from concord.records.load import load_record
from concord.records.locate import line_at, locator_for

__all__ = ["MAX_RECORD_BYTES", "line_at", "load_record", "locator_for"]
