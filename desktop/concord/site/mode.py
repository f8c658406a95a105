"""Which mode a run gets: clinical where the site accepted exactly (model, resources);
demonstration for the embedded default model until the site accepts any model; silent for
everything else (see `domain.CaseMode`)."""

from __future__ import annotations

from dataclasses import dataclass

from concord.domain import Case, CaseMode, ResourceVersions
from concord.llm.default_model import DEFAULT_MODEL_NAME, DEFAULT_MODEL_SHA256
from concord.llm.scripted import SCRIPTED_SHA256
from concord.site.acceptance import Acceptance, acceptances
from concord.store import Repository

DEMONSTRATION_MODELS: dict[str, str] = {
    DEFAULT_MODEL_SHA256: f"{DEFAULT_MODEL_NAME} (the embedded default)",
    SCRIPTED_SHA256: "the scripted stand-in (tests and UI demonstrations without a model)",
}
"""Models accepted for demonstration only, until the site accepts a model of its own."""


def case_mode(
    repo: Repository, model_sha256: str, versions: ResourceVersions
) -> tuple[CaseMode, str]:
    """(mode, acceptance id) for a run of `model_sha256` with `versions`, now."""
    accepted = acceptances(repo)
    for acceptance in reversed(accepted):
        if acceptance.covers(model_sha256, versions):
            return CaseMode.CLINICAL, acceptance.acceptance_id
    if model_sha256 in DEMONSTRATION_MODELS and not accepted:
        return CaseMode.DEMONSTRATION, ""
    return CaseMode.SILENT, ""


@dataclass(frozen=True)
class AcceptanceState:
    """One acceptance against the installed resources."""

    acceptance: Acceptance
    stale_parts: tuple[str, ...]

    @property
    def current(self) -> bool:
        return not self.stale_parts

    def to_json(self) -> dict[str, object]:
        return {
            **self.acceptance.to_json(),
            "current": self.current,
            "stale_parts": list(self.stale_parts),
        }


def site_status(repo: Repository, installed: ResourceVersions) -> dict[str, object]:
    """What is accepted, and which acceptances the installed resources leave stale."""
    accepted = acceptances(repo)
    states = [AcceptanceState(a, a.versions.changed_parts(installed)) for a in accepted]
    return {
        "installed_resources": installed.as_dict(),
        "acceptances": [s.to_json() for s in states],
        "demonstration": None
        if accepted
        else {
            "models": list(DEMONSTRATION_MODELS.values()),
            "note": "accepted for demonstration only until the site accepts a model",
        },
        "current": [s.acceptance.acceptance_id for s in states if s.current],
    }


DEMONSTRATION_NOTE = (
    "DEMONSTRATION ONLY: the embedded default model is accepted for demonstration only; it "
    "is not clinically validated and this review is not for clinical use."
)


def site_note(repo: Repository, case: Case) -> str:
    """One sentence on what the case may be used for, for the PDF and the app."""
    if case.mode is CaseMode.CLINICAL:
        found = next((a for a in acceptances(repo) if a.acceptance_id == case.acceptance_id), None)
        if found is None:
            return f"Accepted for patients under {case.acceptance_id} (acceptance not found)."
        return (
            f"Accepted for patients ({found.acceptance_id}): {found.model_name} with these "
            f"resources, {found.line()}."
        )
    if case.mode is CaseMode.DEMONSTRATION:
        return DEMONSTRATION_NOTE
    if case.mode is CaseMode.SILENT:
        return "SILENT RUN: not accepted for patients; not for clinical review."
    return "Recorded before site validation: no acceptance covers this case."
