"""Pydantic types for what the store hands back besides domain objects."""

from __future__ import annotations

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from concord.domain import CaseMode, CaseStatus, UserRole


class _Row(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class User(_Row):
    name: str = Field(description="Unique login / printed name")
    role: UserRole
    created_at: AwareDatetime
    cert_fingerprint: str | None = Field(
        default=None, description="SHA-256 fingerprint of the signing certificate, if any"
    )
    skeleton: str | None = Field(
        default=None, description="Confusable skeleton of the name (UTS #39), unique"
    )
    public_key: str | None = Field(
        default=None,
        description="Base64 Ed25519 public key of the user's credential; None for a user "
        "created before credentials existed (cannot sign in until re-enrolled)",
    )
    enrolled_by: str | None = Field(default=None, description="The admin who enrolled the user")

    @property
    def enrolled(self) -> bool:
        return self.public_key is not None


class RecordSummary(_Row):
    """One line of the worklist: a record and the state of its latest case."""

    record_id: str
    name: str
    imported_at: AwareDatetime
    latest_case_id: str | None = Field(
        default=None, description="Most recent case that is not silent, if any"
    )
    latest_status: CaseStatus | None = None
    worst_grade: str | None = Field(default=None, description="Of the latest case")
    human_review: bool | None = Field(default=None, description="Of the latest case")
    triggered_gates: int = Field(default=0, description="Gates triggered in the latest case")


class CaseSummary(_Row):
    case_id: str
    record_id: str
    record_name: str
    status: CaseStatus
    worst_grade: str | None
    human_review: bool
    created_at: AwareDatetime
    mode: CaseMode | None = Field(
        default=None,
        description="clinical, demonstration or silent (None: run before site validation)",
    )


class Signature(_Row):
    """A clinician's signature of a case's PDF review record."""

    signature_id: int
    case_id: str
    user: str
    signed_at: AwareDatetime
    meaning: str = Field(description="Meaning of the signature, e.g. 'reviewed and approved'")
    pdf_sha256: str
    path: str = Field(description="Where the signed PDF was written")
    audit_head_seq: int = Field(description="Audit head printed in the PDF")
    audit_head_hash: str
    certificate_sha256: str = Field(default="", description="The signer's certificate")
    supersedes: int | None = Field(
        default=None, description="signature_id of the earlier signature this one replaces"
    )
    reviewed: int = Field(default=0, description="Judgements a clinician had decided")
    not_reviewed: int = Field(default=0, description="Judgements no clinician had decided")


class ExportResult(_Row):
    path: str
    rows: int = Field(description="Decisions written")
    sha256: str = Field(description="SHA-256 of the file written")
