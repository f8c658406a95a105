"""Hand-built, small but realistic case for the report tests (used by conftest.py).

Two specialists (cardiology, respiratory), triggered and negated gates, a mutual omission,
a FAILED extract, and decisions including an override with a history. Record and brief text
deliberately contain markup-like text (<b>, <img src=x>, &) that must print literally.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from concord.domain import (
    AlignmentStatus,
    Brief,
    BriefSection,
    Case,
    Decision,
    DecisionAction,
    Disagreement,
    DisagreementKind,
    GateHit,
    GateStatus,
    ItemMatch,
    MatchMethod,
    Record,
    Scorecard,
    Severity,
    SourceDocument,
    SubScore,
    UserRole,
)
from concord.pki.credentials import Credential
from tests.factories import decision, evidence, gate, item, span, subscore, trace

UTC = dt.UTC
R, A, T = BriefSection.TOP_RISKS, BriefSection.ACTIONS, BriefSection.TRIGGERS
M, S = BriefSection.MONITORING, BriefSection.RISK_SCORES
SIGNER = "Dr Anna Müller"
PASSWORD = "correct horse battery"
LETTER, ECHO = "clinic_letter", "echo_report"
CONFIG_VERSION = "scoring-2025.03"
MODEL_SHA = "9f2c4e1b7a55d0c3e8f61a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c0d"

CLINIC_LETTER = (
    "Pre-assessment clinic letter 12/03/2025\n"
    "Patient: J. Doe, 67 y. Planned: elective right hemicolectomy.\n"
    "PMH: Hodgkin lymphoma 2019, treated with ABVD <b>x4</b> & radiotherapy.\n"
    "Renal: CKD 3b. Bloods today: K+ 6.3 mmol/L, creatinine 198 µmol/L, Plt 85 x10^9/L.\n"
    "Note from GP: <img src=x> see attached & scanned letter.\n"
    "No history of chest pain. SpO2 95% on room air.\n"
)
ECHO_REPORT = (
    "Transthoracic echo 02/03/2025\n"
    "LVEF 30-35%. AVA 0.9 cm², mean gradient 42 mmHg: severe AS. Moderate MR.\n"
)

COVERAGE = "matched / specialist_items"
CORRECTNESS = "1 − (unsupported + 2·contradicted + 0.5·vague) / claims"
ACTIONABILITY = "(1·same_threshold + 0.5·concept_only) / specialist_actions"


def _card(specialist: str, subs: tuple[SubScore, ...], **fields: Any) -> Scorecard:
    """A scorecard whose overall is 100 · Σ weight · sub-score over `subs`."""
    total = round(100 * sum(s.weight * s.value for s in subs), 1)
    inputs = {s.name: {"weight": s.weight, "value": s.value} for s in subs}
    return Scorecard(
        specialist=specialist,
        subscores=subs,
        overall=total,
        overall_trace=trace(inputs, "100 · Σ weight · sub-score", total),
        config_version=CONFIG_VERSION,
        **fields,
    )


def build_record() -> Record:
    return Record(
        name="J. Doe <b>test</b> & co",
        documents=(
            SourceDocument(
                source_id=LETTER,
                title="Clinic letter 12/03",
                kind="txt",
                text=CLINIC_LETTER,
            ),
            SourceDocument(source_id=ECHO, title="Echo report 02/03", kind="txt", text=ECHO_REPORT),
        ),
        operation="Elective right hemicolectomy",
    )


def _gates(record: Record) -> tuple[GateHit, ...]:
    return (
        gate(
            "bleomycin_exposure",
            "respiratory",
            span(record, LETTER, "ABVD <b>x4</b> & radiotherapy"),
            title="Bleomycin exposure",
            detail="ABVD regimen implies bleomycin",
        ),
        gate(
            "hyperkalaemia",
            "renal",
            span(record, LETTER, "K+ 6.3 mmol/L"),
            title="Hyperkalaemia",
            detail="K+ 6.3 mmol/L ≥ 6.0",
        ),
        gate(
            "thrombocytopenia",
            "haematology",
            span(record, LETTER, "Plt 85 x10^9/L"),
            title="Thrombocytopenia",
            detail="platelets 85 ×10^9/L < 100",
        ),
        gate(
            "severe_aortic_stenosis",
            "cardiology",
            span(record, ECHO, "AVA 0.9 cm²"),
            span(record, ECHO, "mean gradient 42 mmHg"),
            title="Severe aortic stenosis",
            detail="AVA 0.9 cm² < 1.0; mean gradient 42 mmHg ≥ 40",
        ),
        gate(
            "low_lvef",
            "cardiology",
            span(record, ECHO, "LVEF 30-35%"),
            title="Low LV ejection fraction",
            detail="LVEF 30-35% ≤ 35%",
        ),
        gate(
            "active_ischaemia",
            "cardiology",
            span(record, LETTER, "No history of chest pain"),
            title="Active ischaemia",
            status=GateStatus.NEGATED,
            detail="negated: 'No history of'",
        ),
    )


def _anaesthetist(record: Record) -> Brief:
    return Brief(
        agent="anaesthetist",
        items=(
            item(
                R,
                1,
                "Severe aortic stenosis (AVA 0.9 cm²): haemodynamic collapse on induction",
                ("E1",),
                ("severe_aortic_stenosis",),
            ),
            item(
                R, 2, "Hyperkalaemia K+ 6.3 mmol/L — arrhythmia risk", ("E2",), ("hyperkalaemia",)
            ),
            item(A, 1, "Correct potassium to < 5.5 mmol/L before theatre", ("E2",)),
            item(T, 1, "Delay if K+ ≥ 6.0 mmol/L on the morning of surgery", ("E2",)),
            item(M, 1, "Arterial line before induction; avoid tachycardia"),
            item(S, 1, "RCRI 3 (creatinine > 177 µmol/L)", ("E3",)),
        ),
        evidence=(
            evidence(
                record, "E1", ECHO, "line 2", "AVA 0.9 cm²", "valve", comment="severe AS by area"
            ),
            evidence(
                record,
                "E2",
                LETTER,
                "line 4",
                "K+ 6.3 mmol/L",
                "electrolytes",
                comment="hyperkalaemia",
            ),
            evidence(
                record,
                "E3",
                LETTER,
                "line 4",
                "creatinine 310 µmol/L",
                "renal",
                comment="renal impairment",
                status=AlignmentStatus.FAILED,
                score=78.0,
                flags=("number_mismatch",),
            ),
        ),
        consult=("cardiology", "respiratory"),
        model_sha256=MODEL_SHA,
        prompt_sha256="ab" * 32,
    )


def _cardiology(record: Record) -> Brief:
    return Brief(
        agent="cardiology",
        items=(
            item(
                R,
                1,
                "Severe AS with <b>low-flow</b> pattern & LVEF 30-35%",
                ("E1", "E2"),
                ("severe_aortic_stenosis", "low_lvef"),
            ),
            item(R, 2, "Reduced LV systolic function (<img src=x>)", ("E1",), ("low_lvef",)),
            item(A, 1, "Heart-team review for TAVI before elective surgery", ("E2",)),
            item(T, 1, "Delay if mean gradient ≥ 40 mmHg with symptoms", ("E2",)),
            item(M, 1, "Invasive BP monitoring; maintain sinus rhythm", ("E3",)),
        ),
        evidence=(
            evidence(
                record,
                "E1",
                ECHO,
                "line 2",
                "LVEF 30–35%",
                "lv_function",
                comment="reduced EF",
                status=AlignmentStatus.FUZZY,
                score=91.5,
                needle="LVEF 30-35%",
            ),
            evidence(
                record,
                "E2",
                ECHO,
                "line 2",
                "AVA 0.9 cm², mean gradient 42 mmHg",
                "valve",
                comment="severe AS",
            ),
            evidence(
                record,
                "E3",
                ECHO,
                "line 2",
                "LVEF 45%",
                "lv_function",
                comment="EF mildly reduced",
                status=AlignmentStatus.FAILED,
                score=80.0,
                flags=("number_mismatch",),
            ),
        ),
        model_sha256=MODEL_SHA,
    )


def _respiratory(record: Record) -> Brief:
    return Brief(
        agent="respiratory",
        items=(
            item(R, 1, "Borderline oxygenation (SpO2 95% on air)", ("E1",)),
            item(A, 1, "Spirometry if time allows"),
        ),
        evidence=(evidence(record, "E1", LETTER, "line 6", "SpO2 95% on room air", "oxygenation"),),
        model_sha256=MODEL_SHA,
    )


def _cardiology_card(record: Record) -> Scorecard:
    cardio_subs = (
        subscore(
            "coverage",
            0.30,
            0.5,
            trace(
                {
                    "matched": 2,
                    "specialist_items": 4,
                    "matched_items": ["top_risks.1", "triggers.1"],
                },
                COVERAGE,
                0.5,
            ),
            jaccard=0.33,
        ),
        subscore(
            "critical_items",
            0.30,
            1.0,
            trace({"addressed": 2, "triggered": 2}, "addressed / triggered gates", 1.0),
        ),
        subscore(
            "correctness",
            0.20,
            0.75,
            trace(
                {"unsupported": 1, "contradicted": 0, "vague": 1, "claims": 6},
                CORRECTNESS,
                0.75,
            ),
        ),
        subscore("prioritisation", 0.10, 0.8, trace({"kendall_tau": 0.6}, "(tau + 1) / 2", 0.8)),
        subscore(
            "actionability",
            0.10,
            0.5,
            trace(
                {"same_threshold": 0, "concept_only": 1, "specialist_actions": 1},
                ACTIONABILITY,
                0.5,
            ),
        ),
    )
    return _card(
        "cardiology",
        cardio_subs,
        grade="Medium",
        capped=False,
        human_review=False,
        disagreements=(
            Disagreement(
                disagreement_id="D1",
                kind=DisagreementKind.MISS,
                severity=Severity.MODERATE,
                description="Anaesthetist brief does not mention reduced LV function",
                items=("top_risks.2",),
                gate_id="low_lvef",
                spans=(span(record, ECHO, "LVEF 30-35%"),),
            ),
            Disagreement(
                disagreement_id="D2",
                kind=DisagreementKind.UNVERIFIED_EVIDENCE,
                severity=Severity.MINOR,
                description="Extract 'LVEF 45%' not found in the record",
                items=("monitoring.1",),
            ),
        ),
        matches=(
            ItemMatch(
                specialist_item="top_risks.1",
                anaesthetist_item="top_risks.1",
                method=MatchMethod.LEXICON,
                score=100.0,
                concepts=("aortic stenosis",),
            ),
            ItemMatch(
                specialist_item="triggers.1",
                anaesthetist_item="top_risks.1",
                method=MatchMethod.LLM,
                score=100.0,
            ),
        ),
    )


def _respiratory_card(record: Record) -> Scorecard:
    resp_subs = (
        subscore(
            "coverage",
            0.30,
            0.0,
            trace({"matched": 0, "specialist_items": 2}, COVERAGE, 0.0),
            jaccard=0.0,
        ),
        subscore(
            "critical_items",
            0.30,
            0.0,
            trace(
                {"addressed": 0, "triggered": 1, "major_misses": 1},
                "addressed / triggered gates, capped at 0.40 for one major miss",
                0.0,
            ),
            raw=0.0,
            cap=0.40,
        ),
        subscore(
            "correctness",
            0.20,
            1.0,
            trace(
                {"unsupported": 0, "contradicted": 0, "vague": 0, "claims": 2},
                CORRECTNESS,
                1.0,
            ),
        ),
        subscore(
            "prioritisation",
            0.10,
            0.5,
            trace({"matched_pairs": 0}, "no matched items: neutral 0.5", 0.5),
        ),
        subscore(
            "actionability",
            0.10,
            0.0,
            trace(
                {"same_threshold": 0, "concept_only": 0, "specialist_actions": 1},
                ACTIONABILITY,
                0.0,
            ),
        ),
    )
    return _card(
        "respiratory",
        resp_subs,
        grade="Very Low",
        capped=True,
        human_review=True,
        review_reasons=("missed major gate bleomycin_exposure", "mutual omission"),
        disagreements=(
            Disagreement(
                disagreement_id="D1",
                kind=DisagreementKind.OMITTED_BY_PAIR,
                severity=Severity.MAJOR,
                description="Neither brief mentions bleomycin exposure (ABVD)",
                gate_id="bleomycin_exposure",
                spans=(span(record, LETTER, "ABVD <b>x4</b> & radiotherapy"),),
            ),
            Disagreement(
                disagreement_id="D2",
                kind=DisagreementKind.OVERCALL,
                severity=Severity.MINOR,
                description="Specialist lists borderline SpO2 the anaesthetist omits",
                items=("top_risks.1",),
            ),
        ),
        judge_runs=3,
        judge_spread=4.0,
    )


def build_case(record: Record) -> Case:
    created = dt.datetime(2025, 3, 14, 9, 30, 5, tzinfo=UTC)
    return Case(
        case_id="C-20250314-0007",
        record_id=record.record_id,
        created_at=created,
        model_sha256=MODEL_SHA,
        model_name="gemma-3-270m-it-Q4_K_M.gguf",
        operation="Elective right hemicolectomy",
        operation_source="record",
        briefs=(_anaesthetist(record), _cardiology(record), _respiratory(record)),
        gates=_gates(record),
        scorecards=(_cardiology_card(record), _respiratory_card(record)),
        mutual_omissions=("bleomycin_exposure",),
        config_version=CONFIG_VERSION,
    )


def build_decisions(case: Case) -> list[Decision]:
    at = dt.datetime(2025, 3, 14, 10, 2, 11, tzinfo=UTC)
    shown = {"model": MODEL_SHA[:16], "prompt": "ab" * 8}

    def decided(
        decision_id: str,
        target_kind: str,
        target_id: str,
        original: object,
        new: object,
        reason: str,
        *,
        user: str = SIGNER,
        minutes: int = 0,
    ) -> Decision:
        return decision(
            decision_id,
            case.case_id,
            target_id,
            target_kind=target_kind,
            action=DecisionAction.ACCEPT if new == original else DecisionAction.OVERRIDE,
            original_value=original,
            new_value=new,
            reason=reason,
            user=user,
            at=at + dt.timedelta(minutes=minutes),
            shown=shown,
            spans=(),
            role=UserRole.CLINICIAN,
        )

    critical = "respiratory/subscore/critical_items"
    return [
        decided("d1", "overall", "cardiology/overall", 73.0, 73.0, "Agree with the adjudication"),
        decided(
            "d2",
            "subscore",
            critical,
            0.0,
            0.2,
            "Bleomycin discussed with oncology by phone",
            user="Dr B. Registrar",
            minutes=3,
        ),
        decided(
            "d3",
            "subscore",
            critical,
            0.2,
            0.0,
            "Not documented in the brief: score stands at 0 <b>&</b>",
            minutes=9,
        ),
        decided(
            "d4",
            "gate",
            "gate/bleomycin_exposure",
            "triggered",
            "triggered",
            "Confirmed in letter <img src=x> & GP notes",
            minutes=11,
        ),
        decided(
            "d5",
            "disagreement",
            "cardiology/disagreement/D1",
            "MISS/moderate",
            "MISS/moderate",
            "Genuine miss",
            minutes=12,
        ),
    ]


def make_installation(home: Path) -> None:
    """An installation at `home`: its first admin (who holds the root key) and the signer,
    enrolled exactly as `concord users add` does."""
    from concord.accounts.enrolment import enrol_user
    from concord.accounts.session import sign_in
    from concord.store import Repository
    from tests.identity import ADMIN, ADMIN_PASSWORD

    with Repository.open(home / "concord.sqlite") as repo:
        enrol_user(repo, ADMIN, "admin", ADMIN_PASSWORD, admin=None, home=home)
        admin = sign_in(repo, ADMIN, ADMIN_PASSWORD, home=home)
        enrol_user(repo, SIGNER, "clinician", PASSWORD, admin=admin, home=home)


def credential_of(home: Path) -> Credential:
    from concord.pki.credentials import unseal
    from concord.pki.keys import credential_path

    return unseal(credential_path(home, SIGNER), PASSWORD, user=SIGNER)
