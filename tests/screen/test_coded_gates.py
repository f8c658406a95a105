"""The coded screen on the 30 gates of SPEC's table beyond the first ten: per gate family, a
FHIR finding that fires and a coded look-alike that does not (a medicine stopped, a condition
resolved or refuted, an event outside the rule's window, a device explanted, a value on the
safe side or superseded by a later one, a resource entered in error).

Each case is checked twice: by the coded screen alone (its own status and detail), and by
the record screen the app, the pipeline and `concord screen` use, where the text screen also
reads the rendered resources - a look-alike must not fire there either.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from concord.domain.gate import GateStatus
from concord.records.fhir.load import record_from_fhir
from concord.screen.coded import CodedScreen, FreeTextValues
from concord.screen.record_screen import RecordScreen
from tests.records import fhir_bundles as fb
from tests.records.fhir_bundles import ATC, ICD10, ICD10CM, LOINC, RXNORM, SNOMED, BundleBuilder

TODAY = date(2027, 2, 20)
SURGERY = "2027-03-01"
FIRES, NEGATED, SILENT = "triggered", "negated", None

Build = Callable[[BundleBuilder], object]


@dataclass(frozen=True)
class Case:
    name: str
    gate: str
    build: Build
    coded: str | None  # the coded screen's status for the gate (None: no coded finding)
    detail: str = ""  # a phrase the coded detail must contain
    screen: str | None = "same"  # the record screen's status ("same": as coded)

    def expected_screen(self) -> str | None:
        return self.coded if self.screen == "same" else self.screen


def _bundle(build: Build) -> dict[str, Any]:
    b = BundleBuilder("coded-gates")
    b.patient("p", "Alex", "Morgan", "1956-04-02", "female", "9000000009")
    b.procedure("op", "52734007", "Total replacement of hip", "Right total hip replacement",
                "preparation", SURGERY)  # fmt: skip
    build(b)
    return b.bundle()


def lab(code: str, text: str, value: float, unit: str, when: str, rid: str = "obs") -> Build:
    return lambda b: b.lab(rid, code, text, text, value, unit, f"{when}T08:00:00Z")


def cond(
    code: str,
    text: str,
    clinical: str,
    onset: str | None = None,
    *,
    system: str = SNOMED,
    verification: str = "confirmed",
    abated: str | None = None,
    rid: str = "cond",
) -> Build:
    return lambda b: b.condition(
        rid, code, text, text, clinical, onset, abated, verification, system=system
    )


def med(
    name: str,
    codes: list[tuple[str, str, str]],
    status: str,
    dosage: str,
    start: str | None = "2026-01-05",
    end: str | None = None,
    rid: str = "med",
) -> Build:
    return lambda b: b.medication_statement(rid, name, codes, status, dosage, start, end)


def both(*builds: Build) -> Build:
    def build(b: BundleBuilder) -> None:
        for one in builds:
            one(b)

    return build


APIXABAN = [(RXNORM, "1364430", "apixaban"), (ATC, "B01AF02", "apixaban")]
RIVAROXABAN = [(RXNORM, "1114195", "rivaroxaban")]
ENOXAPARIN = [(RXNORM, "67108", "enoxaparin")]
CLOPIDOGREL = [(RXNORM, "32968", "clopidogrel")]
SEMAGLUTIDE = [(RXNORM, "1991302", "semaglutide")]
GLARGINE = [(RXNORM, "274783", "insulin glargine")]
DAPAGLIFLOZIN = [(RXNORM, "1488564", "dapagliflozin")]
PREDNISOLONE = [(RXNORM, "8638", "prednisolone"), (ATC, "H02AB06", "prednisolone")]
BECLOMETASONE = [(RXNORM, "1347", "beclomethasone"), (ATC, "R03BA01", "beclometasone")]
NORADRENALINE = [(RXNORM, "7512", "norepinephrine")]


def pacemaker_explanted(b: BundleBuilder) -> None:
    device = b.device("ppm", "14106009", "Cardiac pacemaker", "Dual-chamber pacemaker", "inactive")
    b.procedure("implant", "307280005", "Implantation of cardiac pacemaker",
                "Dual-chamber pacemaker implant", "completed", "2015-05-04", device)  # fmt: skip
    b.procedure("explant", "62881002", "Removal of cardiac pacemaker",
                "Removal of cardiac pacemaker (infected system)", "completed", "2020-09-14",
                device)  # fmt: skip


def pacemaker_removed_device_not_updated(b: BundleBuilder) -> None:
    """The Device resource was left active; the removal names it as its device."""
    device = b.device("ppm", "14106009", "Cardiac pacemaker", "Single-chamber pacemaker", "active")
    b.procedure("explant", "62881002", "Removal of cardiac pacemaker",
                "Removal of cardiac pacemaker", "completed", "2021-01-11", device)  # fmt: skip


def pacemaker_and_an_unrelated_removal(b: BundleBuilder) -> None:
    """An active device the removal does not name (perhaps a later implant): it fires and the
    detail shows the removal."""
    b.device("icd", "72506001", "Implantable defibrillator", "Subcutaneous ICD", "active")
    b.procedure("explant", "62881002", "Removal of cardiac pacemaker",
                "Removal of cardiac pacemaker", "completed", "2021-01-11")  # fmt: skip


def pacemaker_in_place(b: BundleBuilder) -> None:
    device = b.device("ppm", "14106009", "Cardiac pacemaker", "Dual-chamber pacemaker", "active")
    b.procedure("implant", "307280005", "Implantation of cardiac pacemaker",
                "Dual-chamber pacemaker implant", "completed", "2018-05-04", device)  # fmt: skip


CASES = [
    # -- cardiac -------------------------------------------------------------------------------
    Case("acute HF now", "decompensated_heart_failure",
         cond("I50.23", "Acute on chronic systolic heart failure", "active", "2027-02-12",
              system=ICD10CM), FIRES, "within 30"),
    Case("acute HF episode of 2025 still active on the list", "decompensated_heart_failure",
         cond("I50.23", "Acute on chronic systolic heart failure", "active", "2025-01-10",
              system=ICD10CM), NEGATED, "not recent (window 30 days)"),
    Case("NSTEMI 5 weeks ago", "recent_mi_or_revascularisation",
         cond("401314000", "NSTEMI", "active", "2027-01-22"), FIRES, "within 60"),
    Case("NSTEMI 9 months ago", "recent_mi_or_revascularisation",
         cond("401314000", "NSTEMI", "active", "2026-05-20"), NEGATED, "not recent"),
    Case("CABG 2 months ago", "recent_mi_or_revascularisation",
         lambda b: b.procedure("cabg", "232717009", "Coronary artery bypass grafting",
                               "CABG x3", "completed", "2026-12-20"), FIRES, "within 90"),
    Case("CABG 2019", "recent_mi_or_revascularisation",
         lambda b: b.procedure("cabg", "232717009", "Coronary artery bypass grafting",
                               "CABG x3", "completed", "2019-06-20"), NEGATED, "not recent"),
    Case("new AF", "significant_arrhythmia",
         cond("49436004", "Atrial fibrillation", "active", "2027-02-14"), FIRES, "within 30"),
    Case("AF since 2019, rate 72", "significant_arrhythmia",
         both(cond("49436004", "Atrial fibrillation", "active", "2019-02-01"),
              lab("8867-4", "Heart rate", 72, "/min", "2027-02-18")),
         NEGATED, "not recent"),
    Case("AF with a coded rate of 128", "significant_arrhythmia",
         both(cond("49436004", "Atrial fibrillation", "active", "2019-02-01"),
              lab("8867-4", "Heart rate", 128, "/min", "2027-02-18")),
         FIRES, "Heart rate 128 /min > 110"),
    Case("a rate of 128 without AF", "significant_arrhythmia",
         lab("8867-4", "Heart rate", 128, "/min", "2027-02-18"), SILENT),
    Case("sick sinus syndrome", "significant_arrhythmia",
         cond("36083008", "Sick sinus syndrome", "active", "2026-11-02"), FIRES),
    Case("PASP 68", "severe_pulmonary_hypertension",
         lab("8440-0", "PASP", 68, "mm[Hg]", "2027-01-30"), FIRES, "≥ 60"),
    Case("PASP 65 then 45", "severe_pulmonary_hypertension",
         both(lab("8440-0", "PASP", 65, "mm[Hg]", "2026-06-30", "p1"),
              lab("8440-0", "PASP", 45, "mm[Hg]", "2027-01-30", "p2")),
         NEGATED, "superseded by"),
    Case("PASP 40", "severe_pulmonary_hypertension",
         lab("8440-0", "PASP", 40, "mm[Hg]", "2027-01-30"), SILENT),
    Case("mechanical valve device", "severe_valve_disease_or_mechanical_valve",
         lambda b: b.device("valve", "705991002", "Mechanical heart valve prosthesis",
                            "On-X mechanical aortic valve", "active"), FIRES, "in place"),
    Case("severe MR repaired since", "severe_valve_disease_or_mechanical_valve",
         both(cond("48724000", "Severe mitral regurgitation", "active", "2024-03-01"),
              lambda b: b.procedure("repair", "0", "Mitral valve repair", "Mitral valve repair",
                                    "completed", "2025-02-11")),
         NEGATED, "ended by Mitral valve repair"),
    Case("pacemaker in place", "cied", pacemaker_in_place, FIRES, "placed 2018-05-04"),
    Case("pacemaker explanted", "cied", pacemaker_explanted, NEGATED, "removed"),
    Case("pacemaker removed, its Device left active", "cied",
         pacemaker_removed_device_not_updated, NEGATED, "removed: Removal of cardiac pacemaker"),
    Case("ICD with a removal that names another device", "cied",
         pacemaker_and_an_unrelated_removal, FIRES, "check whether this device is still in place"),
    Case("stable cardiac disease does not follow a pacemaker (not an RCRI factor)",
         "stable_cardiac_disease", pacemaker_in_place, SILENT),
    Case("stable cardiac disease does not follow an explanted pacemaker",
         "stable_cardiac_disease", pacemaker_explanted, SILENT),
    Case("CAD, resolved on the list (history counts)", "stable_cardiac_disease",
         cond("53741008", "Coronary artery disease", "resolved", "2016-01-01"), FIRES,
         "history counts"),
    Case("CAD refuted", "stable_cardiac_disease",
         cond("53741008", "Coronary artery disease", "active", "2016-01-01",
              verification="refuted"), NEGATED, "refuted"),
    # -- haemodynamics, sepsis -----------------------------------------------------------------
    Case("septic shock now", "haemodynamic_instability_or_sepsis",
         cond("76571007", "Septic shock", "active", "2027-02-26"), FIRES),
    Case("sepsis in 2025, resolved", "haemodynamic_instability_or_sepsis",
         cond("91302008", "Urosepsis", "resolved", "2025-04-01", abated="2025-04-20"), NEGATED,
         "resolved"),
    Case("noradrenaline running", "haemodynamic_instability_or_sepsis",
         lambda b: b.medication_administration("na", "noradrenaline 8 mg in 50 mL",
                                               NORADRENALINE, "in-progress",
                                               "2027-02-28T22:00:00Z", "0.1 microgram/kg/min"),
         FIRES, "in progress"),
    Case("noradrenaline given last May", "haemodynamic_instability_or_sepsis",
         lambda b: b.medication_administration("na", "noradrenaline 8 mg in 50 mL",
                                               NORADRENALINE, "completed",
                                               "2026-05-01T10:00:00Z", "0.1 microgram/kg/min"),
         NEGATED, "not taken now"),
    Case("adrenaline auto-injector", "haemodynamic_instability_or_sepsis",
         med("adrenaline 300 microgram auto-injector", [(RXNORM, "3992", "epinephrine")],
             "active", "300 micrograms IM for anaphylaxis"), SILENT),
    Case("SBP 84 in a BP panel", "haemodynamic_instability_or_sepsis",
         lambda b: fb.blood_pressure(b, "bp", 84, 50, "2027-02-27T06:00:00Z"), FIRES, "< 90"),
    Case("SBP 84 then 118", "haemodynamic_instability_or_sepsis",
         both(lambda b: fb.blood_pressure(b, "bp1", 84, 50, "2027-02-10T06:00:00Z"),
              lambda b: fb.blood_pressure(b, "bp2", 118, 70, "2027-02-12T06:00:00Z")),
         NEGATED, "superseded by"),
    # -- medicines -----------------------------------------------------------------------------
    Case("apixaban active", "anticoagulant_current",
         med("Eliquis 5 mg tablets", APIXABAN, "active", "5 mg twice daily"), FIRES, "active"),
    Case("apixaban on hold for surgery", "anticoagulant_current",
         med("apixaban 5 mg tablets", APIXABAN, "on-hold", "5 mg twice daily"), FIRES,
         "held now"),
    Case("apixaban intended (planned, not yet taken)", "anticoagulant_current",
         med("apixaban 5 mg tablets", APIXABAN, "intended", "5 mg twice daily"), NEGATED,
         "not started"),
    Case("warfarin completed in 2019", "anticoagulant_current",
         med("warfarin 3 mg tablets", [(RXNORM, "11289", "warfarin")], "completed", "3 mg daily",
             "2019-01-01", "2019-07-01"), NEGATED, "not taken now"),
    Case("warfarin stopped 5 days before surgery", "anticoagulant_current",
         med("warfarin 3 mg tablets", [(RXNORM, "11289", "warfarin")], "stopped", "3 mg daily",
             "2019-01-01", "2027-02-24"), FIRES, "stopped or held for this operation"),
    Case("warfarin not taken", "anticoagulant_current",
         med("warfarin 3 mg tablets", [(RXNORM, "11289", "warfarin")], "not-taken",
             "3 mg daily"), SILENT),
    Case("warfarin entered in error", "anticoagulant_current",
         med("warfarin 3 mg tablets", [(RXNORM, "11289", "warfarin")], "entered-in-error",
             "3 mg daily"), SILENT),
    Case("rivaroxaban request stopped 2021", "anticoagulant_current",
         lambda b: b.medication_request("rx", "rivaroxaban 20 mg tablets", RIVAROXABAN,
                                        "stopped", "20 mg once daily", "2021-03-02"),
         NEGATED, "not taken now"),
    Case("rivaroxaban request cancelled", "anticoagulant_current",
         lambda b: b.medication_request("rx", "rivaroxaban 20 mg tablets", RIVAROXABAN,
                                        "cancelled", "20 mg once daily", "2027-02-02"), SILENT),
    Case("enoxaparin treatment dose", "anticoagulant_current",
         med("enoxaparin 120 mg injection", ENOXAPARIN, "active",
             "120 mg subcutaneously once daily"), FIRES),
    Case("enoxaparin preventive dose", "anticoagulant_current",
         med("enoxaparin 40 mg injection", ENOXAPARIN, "active",
             "40 mg subcutaneously once daily"), NEGATED, "preventive dose"),
    Case("clopidogrel order active", "p2y12_inhibitor_current",
         lambda b: b.medication_request("rx", "clopidogrel 75 mg tablets", CLOPIDOGREL,
                                        "active", "75 mg once daily", "2026-10-02"), FIRES),
    Case("clopidogrel completed 2020", "p2y12_inhibitor_current",
         med("clopidogrel 75 mg tablets", CLOPIDOGREL, "completed", "75 mg once daily",
             "2019-01-01", "2020-01-01"), NEGATED, "not taken now"),
    Case("semaglutide weekly", "aspiration_risk",
         med("Ozempic 1 mg pen", SEMAGLUTIDE, "active", "1 mg once weekly"), FIRES),
    Case("semaglutide stopped last June", "aspiration_risk",
         med("Ozempic 1 mg pen", SEMAGLUTIDE, "stopped", "1 mg once weekly", "2025-01-01",
             "2026-06-01"), NEGATED, "not taken now"),
    Case("insulin glargine", "diabetes_high_risk",
         med("Lantus SoloStar", GLARGINE, "active", "22 units at night"), FIRES),
    Case("dapagliflozin with coded type 2 diabetes", "diabetes_high_risk",
         both(med("dapagliflozin 10 mg tablets", DAPAGLIFLOZIN, "active", "10 mg once daily"),
              cond("44054006", "Type 2 diabetes mellitus", "active", "2015-01-01", rid="dm")),
         FIRES),
    Case("dapagliflozin for heart failure, no diabetes", "diabetes_high_risk",
         both(med("dapagliflozin 10 mg tablets", DAPAGLIFLOZIN, "active", "10 mg once daily"),
              cond("703272007", "HFrEF", "active", "2024-09-01", rid="hf")),
         NEGATED, "taken without diabetes"),
    Case("prednisolone 10 mg daily since 2026", "chronic_steroid",
         med("prednisolone 5 mg tablets", PREDNISOLONE, "active", "10 mg once daily"), FIRES),
    Case("prednisolone 2.5 mg daily", "chronic_steroid",
         med("prednisolone 2.5 mg tablets", PREDNISOLONE, "active", "2.5 mg once daily"),
         NEGATED, "prednisolone-equivalent a day < 5"),
    Case("beclometasone inhaler", "chronic_steroid",
         med("Clenil Modulite 100 inhaler", BECLOMETASONE, "active", "2 puffs twice daily"),
         SILENT),
    Case("prednisolone stopped a year ago", "chronic_steroid",
         med("prednisolone 5 mg tablets", PREDNISOLONE, "stopped", "10 mg once daily",
             "2025-01-01", "2026-02-01"), NEGATED, "not taken now"),
    # -- allergies -----------------------------------------------------------------------------
    Case("rocuronium allergy", "drug_anaphylaxis",
         lambda b: b.allergy("a", [(RXNORM, "68139", "rocuronium")], "Rocuronium"), FIRES),
    Case("chlorhexidine allergy, inactive", "drug_anaphylaxis",
         lambda b: b.allergy("a", [(RXNORM, "2358", "chlorhexidine")], "Chlorhexidine",
                             clinical="inactive"), NEGATED, "no longer held"),
    Case("penicillin anaphylaxis, refuted", "drug_anaphylaxis",
         lambda b: b.allergy("a", [(SNOMED, "91936005", "Allergy to penicillin")], "Penicillin",
                             verification="refuted", reaction="Anaphylaxis"),
         NEGATED, "refuted"),
    Case("penicillin allergy", "periop_drug_allergy",
         lambda b: b.allergy("a", [(SNOMED, "91936005", "Allergy to penicillin")], "Penicillin"),
         FIRES),
    Case("penicillin allergy delabelled", "periop_drug_allergy",
         lambda b: b.allergy("a", [(SNOMED, "91936005", "Allergy to penicillin")], "Penicillin",
                             clinical="resolved"), NEGATED, "no longer held"),
    # -- haematology ---------------------------------------------------------------------------
    Case("von Willebrand disease", "bleeding_disorder",
         cond("D68.0", "Von Willebrand disease", "active", "2001-01-01", system=ICD10),
         FIRES),
    Case("von Willebrand refuted", "bleeding_disorder",
         cond("128105004", "Von Willebrand disorder", "active", "2026-01-01",
              verification="refuted"), NEGATED, "refuted"),
    Case("PE 7 weeks ago", "recent_vte",
         cond("59282003", "Pulmonary embolism", "active", "2027-01-10"), FIRES, "within 90"),
    Case("DVT 2024 still active on the list", "recent_vte",
         cond("128053003", "Deep vein thrombosis of left leg", "active", "2024-03-01"), NEGATED,
         "not recent (window 90 days)"),
    Case("Hb 8.9 g/dL", "anaemia", lab("718-7", "Haemoglobin", 8.9, "g/dL", "2027-02-18"),
         FIRES, "Haemoglobin 8.9 g/dL < 100"),
    Case("Hct 27% where an Hb is given", "anaemia",
         both(lab("718-7", "Haemoglobin", 128, "g/L", "2027-02-18", "hb"),
              lab("4544-3", "Haematocrit", 27, "%", "2027-02-18", "hct")), SILENT),
    Case("Hct 27% alone", "anaemia", lab("4544-3", "Haematocrit", 27, "%", "2027-02-18"),
         FIRES),
    # -- anaesthesia, airway -------------------------------------------------------------------
    Case("MH, resolved on the list (history counts)", "mh_susceptibility",
         cond("405501007", "Malignant hyperthermia", "resolved", "2009-06-01"), FIRES,
         "history counts"),
    Case("MH refuted after testing", "mh_susceptibility",
         cond("405501007", "Malignant hyperthermia", "active", "2009-06-01",
              verification="refuted"), NEGATED, "refuted"),
    Case("difficult intubation", "difficult_airway",
         cond("T88.4XXA", "Failed or difficult intubation", "active", "2021-03-03",
              system=ICD10CM), FIRES),
    Case("difficult intubation entered in error", "difficult_airway",
         cond("T88.4XXA", "Failed or difficult intubation", "active", "2021-03-03",
              system=ICD10CM, verification="entered-in-error"), SILENT),
    Case("small bowel obstruction now", "aspiration_risk",
         cond("K56.609", "Small bowel obstruction", "active", "2027-02-26", system=ICD10CM),
         FIRES),
    Case("small bowel obstruction 2024, resolved", "aspiration_risk",
         cond("K56.609", "Small bowel obstruction", "resolved", "2024-02-26", system=ICD10CM,
              abated="2024-03-02"), NEGATED, "resolved"),
    Case("achalasia", "aspiration_risk",
         cond("45564002", "Achalasia of oesophagus", "active", "2010-01-01"), FIRES),
    Case("OSA", "osa", cond("G47.33", "Obstructive sleep apnoea", "active", "2020-01-01",
                            system=ICD10CM), FIRES),
    Case("OSA provisional", "osa",
         cond("78275009", "Obstructive sleep apnoea", "active", "2027-01-01",
              verification="provisional"), NEGATED, "not a diagnosis made"),
    Case("BMI 43", "morbid_obesity", lab("39156-5", "BMI", 43, "kg/m2", "2027-02-18"), FIRES),
    Case("BMI computed from 128 kg and 170 cm", "morbid_obesity",
         both(lab("29463-7", "Weight", 128, "kg", "2027-02-18", "wt"),
              lab("8302-2", "Height", 170, "cm", "2027-02-18", "ht")), FIRES, "BMI 44.3"),
    Case("BMI 42 in 2024, 85 kg and 175 cm now", "morbid_obesity",
         both(lab("39156-5", "BMI", 42, "kg/m2", "2024-02-18", "bmi"),
              lab("29463-7", "Weight", 85, "kg", "2027-02-18", "wt"),
              lab("8302-2", "Height", 175, "cm", "2027-02-18", "ht")), NEGATED,
         "superseded by BMI 27.8"),
    # -- neurology -----------------------------------------------------------------------------
    Case("stroke 5 weeks ago", "recent_stroke_tia",
         cond("422504002", "Ischaemic stroke", "active", "2027-01-24"), FIRES, "within 90"),
    Case("stroke 2019 still active on the list", "recent_stroke_tia",
         cond("422504002", "Ischaemic stroke", "active", "2019-04-01"), NEGATED,
         "not recent (window 90 days)"),
    Case("Parkinson's disease", "neuromuscular_or_neurodegenerative",
         cond("G20", "Parkinson's disease", "active", "2018-01-01", system=ICD10), FIRES),
    Case("Guillain-Barré refuted", "neuromuscular_or_neurodegenerative",
         cond("40956001", "Guillain-Barre syndrome", "active", "2027-01-01",
              verification="refuted"), NEGATED, "refuted"),
    # -- renal, electrolytes -------------------------------------------------------------------
    Case("eGFR 24", "severe_renal_impairment",
         lab("62238-1", "eGFR (CKD-EPI)", 24, "mL/min/{1.73_m2}", "2027-02-18"), FIRES, "< 30"),
    Case("creatinine 2.6 mg/dL", "severe_renal_impairment",
         lab("2160-0", "Creatinine", 2.6, "mg/dL", "2027-02-18"), FIRES, "> 177"),
    Case("creatinine 1.1 mg/dL", "severe_renal_impairment",
         lab("2160-0", "Creatinine", 1.1, "mg/dL", "2027-02-18"), SILENT),
    Case("haemodialysis last week", "severe_renal_impairment",
         lambda b: b.procedure("hd", "302497006", "Hemodialysis", "Haemodialysis session",
                               "completed", "2027-02-18"), FIRES, "within 30"),
    Case("dialysis dependence ended by a transplant", "severe_renal_impairment",
         both(cond("105502003", "Dependence on renal dialysis", "active", "2015-01-01"),
              lambda b: b.procedure("tx", "70536003", "Transplant of kidney",
                                    "Deceased donor kidney transplant", "completed",
                                    "2019-08-08")),
         NEGATED, "ended by Deceased donor kidney transplant"),
    Case("AKI 2025, resolved", "severe_renal_impairment",
         cond("14669001", "Acute kidney injury", "resolved", "2025-01-01", abated="2025-01-20"),
         NEGATED, "resolved"),
    Case("sodium 122", "dysnatraemia", lab("2951-2", "Sodium", 122, "mmol/L", "2027-02-18"),
         FIRES, "< 125"),
    Case("sodium 160", "dysnatraemia", lab("2951-2", "Sodium", 160, "mmol/L", "2027-02-18"),
         FIRES, "> 155"),
    Case("sodium 122 then 138", "dysnatraemia",
         both(lab("2951-2", "Sodium", 122, "mmol/L", "2027-02-10", "na1"),
              lab("2951-2", "Sodium", 138, "mmol/L", "2027-02-18", "na2")), NEGATED,
         "superseded by Sodium 138"),
    # -- respiratory ---------------------------------------------------------------------------
    Case("FEV1 38% predicted", "severe_respiratory_disease",
         lab("20152-5", "FEV1 % predicted", 38, "%", "2026-11-18"), FIRES),
    Case("interstitial lung disease", "severe_respiratory_disease",
         cond("233703007", "Interstitial lung disease", "active", "2022-01-01"), FIRES),
    Case("COPD exacerbation a year ago", "severe_respiratory_disease",
         cond("195951007", "Acute exacerbation of COPD", "active", "2026-01-10"), NEGATED,
         "not recent"),
    # -- liver, alcohol ------------------------------------------------------------------------
    Case("cirrhosis", "liver_disease_or_alcohol_excess",
         cond("K74.60", "Unspecified cirrhosis of liver", "active", "2020-01-01",
              system=ICD10CM), FIRES),
    Case("alcohol dependence in remission", "liver_disease_or_alcohol_excess",
         cond("66590003", "Alcohol dependence", "remission", "2012-01-01"), NEGATED,
         "remission"),
    # -- pregnancy, diabetes values ------------------------------------------------------------
    Case("positive urine hCG", "pregnancy",
         lambda b: b.result("upt", "2106-3", "Pregnancy test, urine", "Urine hCG",
                            ("10828004", "Positive"), "2027-02-25"), FIRES, "positive"),
    Case("positive hCG then negative", "pregnancy",
         both(lambda b: b.result("upt1", "2106-3", "Pregnancy test, urine", "Urine hCG",
                                 ("10828004", "Positive"), "2026-12-01"),
              lambda b: b.result("upt2", "2106-3", "Pregnancy test, urine", "Urine hCG",
                                 ("260385009", "Negative"), "2027-02-25")),
         NEGATED, "superseded by a negative result"),
    Case("quantitative hCG of last year", "pregnancy",
         lab("21198-7", "beta-hCG", 1200, "[IU]/L", "2026-01-10"), NEGATED, "not recent"),
    Case("pregnancy delivered", "pregnancy",
         cond("77386006", "Pregnant", "resolved", "2025-03-01", abated="2025-11-30"), NEGATED,
         "resolved"),
    Case("HbA1c 9.1%", "diabetes_high_risk",
         lab("4548-4", "HbA1c", 9.1, "%", "2027-01-18"), FIRES, "HbA1c 9.1 % ≥ 70"),
    Case("HbA1c 6.8%", "diabetes_high_risk", lab("4548-4", "HbA1c", 6.8, "%", "2027-01-18"),
         SILENT),
    Case("glucose 320 mg/dL", "diabetes_high_risk",
         lab("2345-7", "Glucose", 320, "mg/dL", "2027-02-18"), FIRES, "> 16.7"),
    # -- blood pressure ------------------------------------------------------------------------
    Case("BP 192/104", "severe_hypertension",
         lambda b: fb.blood_pressure(b, "bp", 192, 104, "2027-02-18T09:00:00Z"), FIRES, "≥ 180"),
    Case("BP 150/112", "severe_hypertension",
         lambda b: fb.blood_pressure(b, "bp", 150, 112, "2027-02-18T09:00:00Z"), FIRES, "≥ 110"),
    Case("BP 186/100 then 142/84", "severe_hypertension",
         both(lambda b: fb.blood_pressure(b, "bp1", 186, 100, "2027-02-10T09:00:00Z"),
              lambda b: fb.blood_pressure(b, "bp2", 142, 84, "2027-02-18T09:00:00Z")),
         NEGATED, "superseded by"),
]  # fmt: skip


@pytest.fixture(scope="module")
def screens() -> tuple[RecordScreen, CodedScreen]:
    return RecordScreen.load(), CodedScreen.load()


def _coded_status(findings: list[Any]) -> str | None:
    if not findings:
        return None
    if any(f.status is GateStatus.TRIGGERED for f in findings):
        return FIRES
    return NEGATED


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_coded_gate(screens: tuple[RecordScreen, CodedScreen], case: Case) -> None:
    text, coded = screens
    record = record_from_fhir(_bundle(case.build), Path("bundle.json"))
    found, _ = coded.evaluate(record, today=TODAY, text_values=FreeTextValues(text))
    mine = [f for f in found if f.gate_id == case.gate]
    assert _coded_status(mine) == case.coded, [f.detail for f in mine]
    if case.detail:
        chosen = [f for f in mine if f.status.value == case.coded]
        assert any(case.detail in f.detail for f in chosen), [f.detail for f in mine]
    for finding in mine:
        for span in finding.spans:
            assert span.source_id.split("/")[0] in {
                "Condition", "MedicationStatement", "MedicationRequest", "Procedure",
                "MedicationAdministration", "Device", "Observation", "AllergyIntolerance",
            }  # fmt: skip
            assert record.document(span.source_id).text[span.start : span.end].strip()
    hits = {h.gate_id: h for h in text.screen(record, today=TODAY)}
    hit = hits.get(case.gate)
    assert (hit.status.value if hit else None) == case.expected_screen(), hit


def test_every_new_gate_has_a_case_that_fires_and_one_that_does_not() -> None:
    fires = {c.gate for c in CASES if c.coded == FIRES}
    quiet = {c.gate for c in CASES if c.coded != FIRES}
    new_gates = {p.stem for p in (Path(__file__).parents[2] / "resources/gates/codes").glob("*")}
    first_ten = {
        "active_ischaemia", "acute_lrti", "bleomycin_exposure", "hyperkalaemia", "hypoxaemia",
        "low_lvef", "raised_inr", "recent_coronary_stent", "severe_aortic_stenosis",
        "thrombocytopenia",
    }  # fmt: skip
    assert new_gates - first_ten <= fires
    assert new_gates - first_ten <= quiet


def test_coded_screen_alone_reads_status_not_dose() -> None:
    """Without the text screen's readers the dose is not read: a preventive enoxaparin dose
    fires on its status alone (the record screen passes the readers; this is what a caller of
    `CodedScreen.evaluate` without them gets)."""
    record = record_from_fhir(
        _bundle(med("enoxaparin 40 mg injection", ENOXAPARIN, "active", "40 mg SC once daily")),
        Path("bundle.json"),
    )
    found, _ = CodedScreen.load().evaluate(record, today=TODAY)
    (finding,) = [f for f in found if f.gate_id == "anticoagulant_current"]
    assert finding.status is GateStatus.TRIGGERED


def test_a_requirement_nothing_can_read_is_left_to_the_text() -> None:
    """An SGLT2 inhibitor with no coded diabetes and no text reader: no coded finding."""
    record = record_from_fhir(
        _bundle(med("dapagliflozin 10 mg tablets", DAPAGLIFLOZIN, "active", "10 mg daily")),
        Path("bundle.json"),
    )
    found, _ = CodedScreen.load().evaluate(record, today=TODAY)
    assert not [f for f in found if f.gate_id == "diabetes_high_risk"]


def test_limits_keep_every_rule_of_a_concept() -> None:
    """Sodium has two limits (< 125 and > 155); both are read."""
    limits = CodedScreen.load().limits["dysnatraemia"]
    assert {(lim.comparator, lim.threshold) for lim in limits.numeric["sodium"]} == {
        ("<", 125.0),
        (">", 155.0),
    }
    assert limits.concepts["hyponatraemia"].history == "resolves"


def _resources_with(tmp_path: Path, gate_id: str, body: dict[str, Any]) -> Path:
    import json
    import shutil

    from concord import paths

    root = tmp_path / "resources"
    shutil.copytree(paths.resources_dir() / "gates", root / "gates")
    shutil.copytree(paths.resources_dir() / "lexicon", root / "lexicon")
    data = {"schema": "concord.gate-codes/1", "gate_id": gate_id, "version": "1", **body}
    (root / "gates" / "codes" / f"{gate_id}.json").write_text(json.dumps(data))
    return root


@pytest.mark.parametrize(
    ("gate_id", "body", "message"),
    [
        (
            "recent_vte",
            {"conditions": {"concept": "stroke", "codes": []}},
            "has no lexicon or graded rule for 'stroke'",
        ),
        (
            "significant_arrhythmia",
            {"observations": [{"concept": "heart_rate", "ucum_unit": "/min"}]},
            "reads 'heart_rate' only with atrial_fibrillation beside it",
        ),
        (
            "diabetes_high_risk",
            {"medications": {"codes": [], "names": ["insulin"]}},
            "each medication list names its concept",
        ),
        (
            "recent_mi_or_revascularisation",
            {"conditions": {"concept": "old_mi"}},
            "only where it is negated",
        ),
    ],
)
def test_a_code_list_its_gate_cannot_answer_is_refused(
    tmp_path: Path, gate_id: str, body: dict[str, Any], message: str
) -> None:
    from concord.errors import InputError

    root = _resources_with(tmp_path, gate_id, body)
    with pytest.raises(InputError, match=message):
        CodedScreen.load(root)


def test_codes_match_their_descendants_and_exclusions() -> None:
    """An ICD-10-CM code under a listed category matches; an excluded sub-code does not."""
    from concord.screen.coded_lists import CodeIn, CodeMatcher

    matcher = CodeMatcher(
        [CodeIn(system=ICD10CM, code="F10.2", descendants=True)],
        (),
        exclude_codes=[CodeIn(system=ICD10CM, code="F10.21", descendants=True)],
    )
    assert matcher.matches({(ICD10CM, "F10.239")})
    assert not matcher.matches({(ICD10CM, "F10.21")})
    assert not matcher.matches({(ICD10, "F10.239")})  # another system
    assert not matcher.matches({(ICD10CM, "F10.1")})
    assert LOINC  # the systems the cases use
