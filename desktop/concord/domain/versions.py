"""What a case was run with: the content hash of each part of the resources, and whether the
(model, resources) combination was accepted for patients (site validation)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from concord.domain._base import Frozen

RESOURCE_PARTS = ("gates", "lexicon", "prompts", "agents", "scoring")
"""The parts of `resources/` that shape a case, each hashed on its own."""


class ResourceVersions(Frozen):
    """SHA-256 of each part's files (relative path and bytes, in path order)."""

    gates: str = Field(description="resources/gates/ (gate files and code lists)")
    lexicon: str = Field(description="resources/lexicon/ (terms, units, context words)")
    prompts: str = Field(description="resources/prompts/")
    agents: str = Field(description="resources/agents/ (agent profiles)")
    scoring: str = Field(description="resources/scoring.json")

    def as_dict(self) -> dict[str, str]:
        return {part: getattr(self, part) for part in RESOURCE_PARTS}

    def changed_parts(self, other: ResourceVersions) -> tuple[str, ...]:
        """The parts whose hash differs from `other`'s, in RESOURCE_PARTS order."""
        return tuple(p for p in RESOURCE_PARTS if getattr(self, p) != getattr(other, p))

    def short(self) -> str:
        """'gates 1a2b3c4d, lexicon ...' for one line of text."""
        return ", ".join(f"{part} {digest[:8]}" for part, digest in self.as_dict().items())


class CaseMode(StrEnum):
    """What a case may be used for, fixed when it is run (site validation).

    clinical:      the (model, resources) combination is accepted by the site; the case
                   goes to the clinicians' review queue and may be signed.
    demonstration: the embedded default model (or the scripted stand-in of tests and UI
                   demos) before the site accepts any model: shown and signable, every
                   screen and PDF saying it is for demonstration only.
    silent:        anything else: stored and compared (validation, silent trials), never
                   in a review queue, never decided on, never in a PDF.
    """

    CLINICAL = "clinical"
    DEMONSTRATION = "demonstration"
    SILENT = "silent"

    @property
    def reviewable(self) -> bool:
        return self is not CaseMode.SILENT

    @property
    def label(self) -> str:
        """What a clinician reads wherever the case appears."""
        return _LABELS[self]


_LABELS = {
    CaseMode.CLINICAL: "accepted for patients",
    CaseMode.DEMONSTRATION: "DEMONSTRATION ONLY - the embedded model is not clinically validated",
    CaseMode.SILENT: "SILENT - model/resources not accepted; not for clinical review",
}
