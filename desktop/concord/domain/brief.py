"""An agent's risk brief, structured as in the cardiology example of Clegg et al. (2025)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from concord.domain._base import Frozen
from concord.domain.evidence import VerifiedEvidence


class BriefSection(StrEnum):
    TOP_RISKS = "top_risks"
    ACTIONS = "actions"
    TRIGGERS = "triggers"
    MONITORING = "monitoring"
    RISK_SCORES = "risk_scores"

    @property
    def heading(self) -> str:
        """How the section is headed for a clinician, on screen and on paper."""
        return _SECTION_TITLES[self]

    @property
    def noun(self) -> str:
        """One of its bullets, in a sentence: "risk 2", "action 1"."""
        return _SECTION_NOUNS[self]


_SECTION_NOUNS = {
    BriefSection.TOP_RISKS: "risk",
    BriefSection.ACTIONS: "action",
    BriefSection.TRIGGERS: "trigger",
    BriefSection.MONITORING: "monitoring",
    BriefSection.RISK_SCORES: "risk score",
}
_SECTION_TITLES = {
    BriefSection.TOP_RISKS: "Top risks (ranked)",
    BriefSection.ACTIONS: "Immediate actions / optimisation",
    BriefSection.TRIGGERS: "Go / delay triggers",
    BriefSection.MONITORING: "Monitoring / adjuncts",
    BriefSection.RISK_SCORES: "Risk scores",
}


def agent_title(agent: str) -> str:
    """How an agent's profile id reads for a clinician: 'renal_medicine' -> 'Renal medicine'."""
    return agent.replace("_", " ").strip().capitalize() or agent


class BriefItem(Frozen):
    item_id: str = Field(description="Stable id within the brief, e.g. top_risks.1")
    section: BriefSection
    rank: int = Field(ge=1, description="1 = highest priority within the section")
    text: str
    cites: tuple[str, ...] = Field(default=(), description="Evidence ids (E1..) it rests on")
    gate_ids: tuple[str, ...] = Field(
        default=(), description="Gates the agent tagged the item with (a claim, not a check)"
    )
    supported: bool | None = Field(
        default=None,
        description="Code's verdict: the cited evidence carries what the bullet asserts (its "
        "values and comparisons, its clinical concepts). None: not checked (a case stored "
        "before claims were checked is read by its old rule)",
    )
    support_reason: str = Field(default="", description="Why it is (not) supported, in words")
    addresses: tuple[str, ...] | None = Field(
        default=None,
        description="Triggered gates the bullet addresses: it is supported, names the gate and "
        "cites that gate's own finding. None: not checked",
    )


class BriefStatus(StrEnum):
    OK = "ok"
    FAILED = "failed"


class Brief(Frozen):
    agent: str = Field(description="Profile id: surgeon, anaesthetist, cardiology ...")
    status: BriefStatus = BriefStatus.OK
    failure_reason: str = ""
    items: tuple[BriefItem, ...] = ()
    evidence: tuple[VerifiedEvidence, ...] = ()
    consult: tuple[str, ...] = Field(default=(), description="Anaesthetist: ranked specialists")
    operation: str = Field(default="", description="Surgeon: proposed operation")
    raw_output: str = Field(default="", description="The model's last raw output")
    attempts: int = 1
    model_sha256: str = ""
    prompt_sha256: str = ""

    def section(self, section: BriefSection) -> tuple[BriefItem, ...]:
        return tuple(sorted((i for i in self.items if i.section == section), key=lambda i: i.rank))

    def evidence_by_id(self) -> dict[str, VerifiedEvidence]:
        return {e.evidence_id: e for e in self.evidence}

    def unsupported_items(self) -> tuple[BriefItem, ...]:
        """Bullets whose cited evidence does not carry what they assert (code's check,
        `concord.adjudication.support`); for a brief stored before that check, the bullets
        that cite no verified evidence."""
        verified = {e.evidence_id for e in self.evidence if e.alignment.verified}
        return tuple(
            i
            for i in self.items
            if (not i.supported if i.supported is not None else not verified.intersection(i.cites))
        )
