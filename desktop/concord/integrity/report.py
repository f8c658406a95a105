"""The result of `concord audit verify --json`."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Problem(BaseModel):
    """One thing that does not hold, with where it was found."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    check: str = Field(
        description="chain, decisions, users, records, cases, signatures, attribution, anchor, "
        "pdf, clock"
    )
    detail: str
    seq: int | None = Field(default=None, description="Audit row involved, if one is")
    subject: str = Field(default="", description="Decision, user, case, file ... involved")
    chain_damaged: bool = Field(
        default=False,
        description="The chain itself is altered or missing rows at `seq` (not only a table)",
    )


class IntegrityReport(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    ok: bool = Field(description="The chain recomputes and every cross-check holds")
    rows: int = Field(description="Rows present in the audit table")
    first_bad_seq: int | None = Field(
        description="First seq whose row is altered, missing or out of place, or that an "
        "anchor, signature or PDF no longer finds; None when none is known"
    )
    problems: list[Problem] = Field(default_factory=list)
    warnings: list[Problem] = Field(
        default_factory=list,
        description="Reported, not failing: clocks that ran backwards against the chain, "
        "unsigned rows of enrolled users, anchor files dropped from anchors.json",
    )
    checked: dict[str, int] = Field(
        default_factory=dict,
        description="How many of each were checked: decisions, users, cases, signatures, "
        "anchor_heads, pdfs",
    )
    anchors: list[str] = Field(default_factory=list, description="Anchor files read")
    legacy_decisions: int = Field(
        default=0, description="Decisions recorded before decisions were signed (not signed)"
    )
