"""Quotes from a realistic pre-operative record (data/preop_record.json: GP letter,
anaesthetic pre-assessment, lab report with flags and reference ranges, echo, ECG with CRLF
line endings, an old discharge summary), each with what verification must say.

Faithful quotes are copied the way people and programs copy: re-wrapped, re-cased, with
bullets, dash and quote variants, NFKC forms, invisible characters. Altered quotes change
one thing a careless copy changes (a look-alike drug, a side, a frequency, a severity, a
valve, a comparison, a grade or class, the sex, a number or unit) or cut the words that
govern the meaning, or join two table rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

RECORD = Path(__file__).parent / "data" / "preop_record.json"


@dataclass(frozen=True)
class Quote:
    source_id: str
    text: str
    verified: bool
    flag: str | None = None  # a flag the alignment must carry
    change: tuple[str, str] | None = None  # (record, quote) words the diff must show


def faithful(source_id: str, text: str, flag: str | None = None) -> Quote:
    return Quote(source_id, text, True, flag)


def altered(source_id: str, text: str, flag: str, change: tuple[str, str] | None = None) -> Quote:
    return Quote(source_id, text, False, flag, change)


FAITHFUL = [
    faithful("gp_letter", "severe osteoarthritis of the right hip"),
    faithful("gp_letter", "he can manage only 200 yards with a stick"),
    faithful("gp_letter", "loss of joint space with subchondral sclerosis on the right"),
    faithful(
        "gp_letter",
        "He had a non-ST elevation MI in 2019 treated with a drug-eluting stent to the LAD",
    ),
    faithful("gp_letter", "clopidogrel was stopped in 2020 and he continues on aspirin alone"),
    faithful("gp_letter", "methotrexate 15 mg once weekly (Fridays)"),
    faithful("preop_clinic", "NSTEMI 2019, DES to proximal LAD"),
    faithful("preop_clinic", "• Hypertension, well controlled"),
    faithful("preop_clinic", "Type 2 diabetes mellitus, diet controlled, last HbA1c 49 mmol/mol"),
    faithful(
        "preop_clinic", "Mild COPD (GOLD 1), no exacerbations in the last 12 months", "negated"
    ),
    faithful("preop_clinic", "Left bundle branch block, known since 2019"),
    faithful("preop_clinic", "- Gout – resolved, no attacks since 2017"),
    faithful("preop_clinic", "Methotrexate 15 mg once weekly (Friday)"),
    faithful("preop_clinic", "METFORMIN 500 MG TWICE DAILY WITH MEALS"),
    faithful("preop_clinic", "Chest pain: none", "negated"),
    faithful("preop_clinic", "Palpitations: occasional, no syncope"),
    faithful("preop_clinic", "Cough: productive in the mornings"),
    faithful("preop_clinic", "BMI 30.3 kg/m2."),
    faithful("preop_clinic", "SpO2 ９５% on room air"),
    faithful(
        "preop_clinic",
        "ejection systolic murmur grade 3/6 at the right upper sternal edge,\n"
        "radiating to the carotids",
    ),
    faithful(
        "preop_clinic", "Mallampati class 3, thyromental distance 5.5 cm, mouth opening 3 fingers."
    ),
    faithful("preop_clinic", "Previous grade 2 laryngoscopy (2008 anaesthetic chart)"),
    faithful("preop_clinic", "Allergies: penicillin – rash (2004)."),
    faithful(
        "preop_clinic", "no evidence of active ischaemia; no angina since the stent", "negated"
    ),
    faithful("preop_clinic", "climbs 1 flight of stairs, stops at the top"),
    faithful("bloods", "Haemoglobin 118 L g/L 130–170"),
    faithful("bloods", "Potassium   5.6  H  mmol/L  3.5-5.3"),
    faithful("bloods", "Creatinine 142 H μmol/L 59–104"),
    faithful("bloods", "White cell count 7.9 x10^9/L 4.0-11.0"),
    faithful("bloods", "Platelets 214 ×109/L"),
    faithful("bloods", "eGFR 43 L mL/min/1.73m2 >90"),
    faithful("bloods", "Trop\u00adonin T (hs) 18 H ng/L <14"),
    faithful("bloods", "Potassium 5.6 mmol/L on a haemolysed sample"),
    faithful("bloods", "Potassium 4.9 mmol/L 3.5-5.3"),
    faithful(
        "bloods",
        "Sodium 138 mmol/L 133–146\nPotassium 5.6 H mmol/L 3.5–5.3",
    ),
    faithful("echo", "LVEF 45-50% (biplane Simpson’s)"),
    faithful("echo", "Peak velocity 3.6 m/s, mean gradient 31 mmHg, AVA (continuity) 1.1 cm2"),
    faithful("echo", "Conclusion: moderate aortic stenosis."),
    faithful("echo", "Severe aortic stenosis is not present.", "negated"),
    faithful("echo", "mildly impaired LV systolic function (LVEF 45–50%)"),
    faithful("echo", "IVC 1.8 cm with > 50% respiratory variation"),
    faithful("ecg", "Complete left bundle branch block, unchanged from 2019."),
    faithful("ecg", "Rate 64 bpm, sinus rhythm. PR 176 ms, QRS 148 ms, QTc 462 ms."),
    faithful("ecg", "Axis: left axis deviation (−35 degrees)"),
    faithful(
        "discharge_2019",
        "Pulmonary embolism was considered and ruled out (CTPA negative)",
        "negated",
    ),
    faithful("discharge_2019", "Troponin T 86 ng/L rising to 412 ng/L"),
    faithful("discharge_2019", "1 x drug\u200b-eluting stent to proximal LAD"),
]

ALTERED = [
    # a look-alike drug
    altered(
        "preop_clinic",
        "Metoprolol 500 mg twice daily with meals",
        "word_mismatch",
        ("Metformin", "Metoprolol"),
    ),
    altered(
        "preop_clinic",
        "Rosuvastatin 80 mg at night",
        "word_mismatch",
        ("Atorvastatin", "Rosuvastatin"),
    ),
    altered(
        "preop_clinic", "Bisacodyl 2.5 mg once daily", "word_mismatch", ("Bisoprolol", "Bisacodyl")
    ),
    # laterality: of the operation, of a previous operation, of a conduction block
    altered(
        "preop_clinic",
        "Procedure: Left total hip replacement (elective)",
        "word_mismatch",
        ("Right", "Left"),
    ),
    altered(
        "preop_clinic", "Right inguinal hernia repair 2008", "word_mismatch", ("Left", "Right")
    ),
    altered(
        "ecg",
        "Complete right bundle branch block, unchanged from 2019.",
        "word_mismatch",
        ("left", "right"),
    ),
    # dosing frequency, including a weekly drug written as daily
    altered(
        "preop_clinic",
        "Methotrexate 15 mg once daily (Friday)",
        "word_mismatch",
        ("weekly", "daily"),
    ),
    altered(
        "preop_clinic", "Metformin 500 mg once daily with meals", "word_mismatch", ("twice", "once")
    ),
    altered("gp_letter", "folic acid 5 mg daily on Mondays", "word_mismatch", ("weekly", "daily")),
    # severity
    altered("echo", "Conclusion: severe aortic stenosis.", "word_mismatch", ("moderate", "severe")),
    altered(
        "echo",
        "Mitral valve: moderate mitral regurgitation, no stenosis.",
        "word_mismatch",
        ("mild", "moderate"),
    ),
    # which valve
    altered(
        "echo",
        "Mitral valve: trileaflet, heavily calcified with restricted opening.",
        "word_mismatch",
        ("Aortic", "Mitral"),
    ),
    # a comparison word or sign
    altered("bloods", "CRP 12 H mg/L >5", "number_mismatch", ("<", ">")),
    altered("preop_clinic", "creatinine < 177 µmol/L not met", "number_mismatch", (">", "<")),
    altered("echo", "IVC 1.8 cm with < 50% respiratory variation", "number_mismatch", (">", "<")),
    altered(
        "discharge_2019",
        "Troponin T 86 ng/L falling to 412 ng/L",
        "word_mismatch",
        ("rising", "falling"),
    ),
    # a grade or class
    altered(
        "preop_clinic",
        "Mallampati class 2, thyromental distance 5.5 cm",
        "number_mismatch",
        ("3", "2"),
    ),
    altered(
        "preop_clinic",
        "Previous grade 3 laryngoscopy (2008 anaesthetic chart)",
        "number_mismatch",
        ("2", "3"),
    ),
    altered(
        "preop_clinic",
        "Mild COPD (GOLD 2), no exacerbations in the last 12 months",
        "number_mismatch",
        ("1", "2"),
    ),
    altered(
        "echo", "Grade 2 diastolic dysfunction (E/A 0.7, E/e' 11).", "number_mismatch", ("1", "2")
    ),
    altered("preop_clinic", "ejection systolic murmur grade 4/6", "number_mismatch", ("3", "4")),
    # the patient's sex
    altered(
        "preop_clinic",
        "67-year-old woman with probable moderate aortic stenosis",
        "word_mismatch",
        ("man", "woman"),
    ),
    # numbers, units, decimal points and signs
    altered("bloods", "Potassium 6.5 H mmol/L 3.5–5.3", "number_mismatch", ("5.6", "6.5")),
    altered("bloods", "Creatinine 142 H mmol/L 59–104", "number_mismatch", ("µmol", "mmol")),
    altered("bloods", "Haemoglobin 118 L g/dL 130–170", "number_mismatch", ("L", "dL")),
    altered("bloods", "Platelets 21 ×10⁹/L", "number_mismatch", ("214", "21")),
    altered("bloods", "INR 11", "number_mismatch", ("1.1", "11")),
    altered("echo", "LVEF 40–45% (biplane Simpson's)", "number_mismatch"),
    altered("echo", "AVA (continuity) 0.9 cm²", "number_mismatch", ("1.1", "0.9")),
    altered(
        "discharge_2019",
        "clopidogrel 75 mg once daily for 6 months",
        "number_mismatch",
        ("12", "6"),
    ),
    altered("ecg", "Axis: left axis deviation (35 degrees).", "number_mismatch", ("-", "")),
    # the words that govern the meaning cut off
    altered(
        "preop_clinic", "family history of anaesthetic problems", "negation_mismatch", ("No", "")
    ),
    altered("preop_clinic", "active ischaemia", "context_cut", ("No evidence of", "")),
    altered("echo", "aortic stenosis is not present", "context_cut", ("Severe", "")),
    altered("echo", "Severe aortic stenosis", "negation_mismatch", ("is not present", "")),
    altered(
        "discharge_2019", "Pulmonary embolism was considered", "context_cut", ("and ruled out", "")
    ),
    altered("discharge_2019", "Aspiration pneumonia on day 2", "context_cut", ("- resolved", "")),
    altered("preop_clinic", "Ankle swelling", "negation_mismatch", (": none", "")),
    altered("preop_clinic", "Orthopnoea", "negation_mismatch", (": no", "")),
    altered("preop_clinic", "total hip replacement", "context_cut"),
    altered("preop_clinic", "bundle branch block, known since 2019", "context_cut", ("Left", "")),
    altered("preop_clinic", "aortic stenosis (murmur, see echo)", "context_cut"),
    altered("preop_clinic", "Early cognitive impairment", "context_cut", ("?", "")),
    altered("preop_clinic", "fatal MI aged 58", "context_cut", ("father had a", "")),
    altered("preop_clinic", "Spinal anaesthetic", "context_cut", ("planned", "")),
    altered("preop_clinic", "COPD (GOLD 1)", "context_cut", ("Mild", "")),
    altered("echo", "diastolic dysfunction (E/A 0.7, E/e' 11)", "context_cut", ("Grade 1", "")),
    altered("preop_clinic", "chronic kidney disease", "context_cut", ("Stage 3a", "")),
    altered("echo", "systolic function mildly impaired", "context_cut"),
    # parts of two table rows joined
    altered("bloods", "01/02/2026 6.1", "row_join"),
    altered("bloods", "3.5–5.3 Urea 9.8 H", "row_join"),
]
