"""`concord audit verify`: the hash chain, and every table, anchor and signed PDF checked
against it. See `verify.verify_installation`."""

from concord.integrity.report import IntegrityReport, Problem
from concord.integrity.verify import verify_installation

__all__ = ["IntegrityReport", "Problem", "verify_installation"]
