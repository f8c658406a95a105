"""Pydantic types shared by every layer. No I/O here."""

from concord.domain.brief import Brief, BriefItem, BriefSection, BriefStatus
from concord.domain.case import (
    UNVERIFIED_MODEL_SHA256,
    BatchProvenance,
    BatchRequest,
    Case,
    CaseStatus,
    InjectionFinding,
    Target,
)
from concord.domain.decision import Decision, DecisionAction, Disposition
from concord.domain.evidence import (
    Alignment,
    AlignmentStatus,
    EvidenceLine,
    VerifiedEvidence,
)
from concord.domain.gate import GateHit, GateStatus, Severity
from concord.domain.provenance import LabelProvenance
from concord.domain.record import DocumentKind, Line, Record, SourceDocument, Span, SpanText
from concord.domain.scorecard import (
    Disagreement,
    DisagreementKind,
    ItemMatch,
    MatchMethod,
    Scorecard,
    SubScore,
    Trace,
)
from concord.domain.target import TargetKind, TargetRef, TargetRefError
from concord.domain.user import UserRole
from concord.domain.versions import RESOURCE_PARTS, CaseMode, ResourceVersions

__all__ = [
    "Alignment",
    "BatchProvenance",
    "UNVERIFIED_MODEL_SHA256",
    "BatchRequest",
    "AlignmentStatus",
    "Brief",
    "BriefItem",
    "BriefSection",
    "BriefStatus",
    "Case",
    "CaseMode",
    "CaseStatus",
    "Decision",
    "DecisionAction",
    "Disposition",
    "DocumentKind",
    "Disagreement",
    "DisagreementKind",
    "EvidenceLine",
    "GateHit",
    "GateStatus",
    "InjectionFinding",
    "ItemMatch",
    "LabelProvenance",
    "Line",
    "MatchMethod",
    "RESOURCE_PARTS",
    "Record",
    "ResourceVersions",
    "Scorecard",
    "Severity",
    "SourceDocument",
    "Span",
    "SpanText",
    "SubScore",
    "Target",
    "TargetKind",
    "TargetRef",
    "TargetRefError",
    "Trace",
    "UserRole",
    "VerifiedEvidence",
]
