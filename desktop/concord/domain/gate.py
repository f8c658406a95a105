"""Result of the deterministic record screen."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from concord.domain._base import Frozen
from concord.domain.record import SpanText


class Severity(StrEnum):
    MINOR = "minor"
    MODERATE = "moderate"
    MAJOR = "major"

    @property
    def rank(self) -> int:
        """0 for the most severe: sort by this to put major findings first."""
        return (Severity.MAJOR, Severity.MODERATE, Severity.MINOR).index(self)


class GateStatus(StrEnum):
    TRIGGERED = "triggered"
    NEGATED = "negated"


class GateHit(Frozen):
    gate_id: str
    title: str = Field(default="", description="Human name of the gate")
    severity: Severity
    status: GateStatus
    specialty: str = Field(default="", description="Specialty that owns the gate")
    evidence: tuple[SpanText, ...] = Field(default=(), description="Spans that fired it")
    detail: str = Field(default="", description="e.g. 'K+ 6.3 mmol/L >= 6.0'")
