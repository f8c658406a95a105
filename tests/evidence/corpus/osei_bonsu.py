"""Quotes from a third realistic record (osei_bonsu_record.json: vascular clinic letter with
CRLF line endings and sentences wrapped across lines, anaesthetic pre-assessment with a
numbered problem list and a columnar drug chart, a lab report in a column layout and a
piped blood gas line, spirometry and CPET, echo, ECG, a scanned neurology discharge summary
with odd spacing), each with what verification must say."""

from __future__ import annotations

from pathlib import Path

from tests.evidence.corpus.halloway import altered
from tests.evidence.preop_corpus import faithful

RECORD = Path(__file__).parent / "osei_bonsu_record.json"

L, P, B, F, E, G, S = (
    "vascular_letter",
    "preop_clinic",
    "bloods",
    "lung_function",
    "echo",
    "ecg",
    "neuro_2022_scan",
)

FAITHFUL = [
    # the letter: CRLF, sentences across wraps
    faithful(
        L,
        "growth of his infrarenal abdominal aortic aneurysm from 5.4 cm to 6.1 cm in twelve months",
    ),
    faithful(L, "an angulated, heavily calcified neck that is unsuitable for standard EVAR"),
    faithful(
        L,
        "we have offered him an open infrarenal aneurysm repair, which he wishes to proceed with.",
    ),
    faithful(
        L,
        "He has a mechanical aortic valve (On-X, 2011) and takes warfarin with a target INR"
        " of 2.5–3.5",
    ),
    faithful(L, "he will need bridging with treatment-dose low molecular weight heparin"),
    faithful(L, "coronary artery bypass grafting in 2015 (LIMA to LAD, vein graft to the RCA)"),
    faithful(L, "has had no angina since", "negated"),
    faithful(L, "His left carotid was stented in 2022 after a right-sided TIA"),
    faithful(L, "He does not have a history of COPD", "negated"),
    faithful(L, "he smoked 40 pack years until 2019"),
    faithful(
        L,
        "His exercise tolerance is limited by claudication in the right calf at about 150 metres.",
    ),
    # problem list (numbered), drug chart in columns
    faithful(P, "Infrarenal AAA 6.1 cm, growing (5.4 cm in 01/2025)"),
    faithful(
        P, "Mechanical aortic valve replacement 2011 (On-X 23 mm) for bicuspid AS – on warfarin"
    ),
    faithful(P, "Ischaemic heart disease: CABG x2 in 2015; no angina since"),
    faithful(P, "4. Left carotid artery stent 2022 (after right hemisphere TIA, 10/2022)"),
    faithful(P, "CKD stage 4 (baseline creatinine 210–230 μmol/L), not on dialysis"),
    faithful(P, "Type 2 diabetes, insulin-treated since 2018; background retinopathy"),
    faithful(P, "Peripheral arterial disease: right SFA occlusion, claudication at 150 m"),
    faithful(P, "Focal epilepsy since 2009, last seizure 2017"),
    faithful(P, "Clonidine 100 µg tds"),
    faithful(P, "Doxazosin 4 mg bd"),
    faithful(P, "Levetiracetam 500 mg bd"),
    faithful(P, "Alfacalcidol 0.25 µg od"),
    faithful(P, "Insulin degludec 22 units od (evening)"),
    faithful(P, "Insulin aspart 6-10 units tds with meals (sliding scale)"),
    faithful(P, "Warfarin variable dose (INR clinic) target INR 2.5-3.5"),
    faithful(P, "NOT taking aspirin (stopped 2023 after upper GI bleed on aspirin + warfarin)."),
    faithful(P, "Trimethoprim – hyperkalaemia (K 6.9 in 2021)."),
    faithful(P, "Denies chest pain at rest or on exertion.", "negated"),
    faithful(P, "Breathless on one flight of stairs (NYHA II)."),
    faithful(P, "No orthopnoea, no PND, no ankle swelling.", "negated"),
    faithful(
        P,
        "Holter 2024 showed sinus rhythm with frequent ventricular ectopics (burden 6%),"
        " no sustained arrhythmia",
    ),
    faithful(P, "STOP-BANG 5 - high risk of OSA, not yet studied"),
    faithful(P, "GA for CABG 2015 – prolonged ventilation (18 h) for fluid overload"),
    faithful(
        P,
        "Family history: mother died of a ruptured AAA aged 74; his brother has an AAA under"
        " surveillance.",
    ),
    faithful(P, "BP 168/92 mmHg (left arm), 152/88 mmHg (right arm)."),
    faithful(P, "SpO₂ 97% on air."),
    faithful(P, "right popliteal and pedal pulses absent"),
    faithful(P, "Airway: Mallampati 3, inter-incisor distance 4 cm"),
    faithful(
        P,
        "enoxaparin 1 mg/kg once daily (renal dose) from day -3, last dose 24 h before surgery.",
    ),
    faithful(P, "Not for spinal anaesthesia (anticoagulated)", "negated"),
    faithful(P, "epidural only if INR <1.4 and LMWH timing allows"),
    # labs: column layout with word flags, piped blood gas
    faithful(B, "K 5.8 mmol/L 3.5 - 5.3 HIGH"),
    faithful(B, "Platelets         142        x10⁹/L            150 – 400     LOW"),
    faithful(B, "Creatinine 248 umol/L 59 - 104 HIGH"),
    faithful(B, "eGFR 23 mL/min/1.73m² >90 LOW"),
    faithful(B, "Mg 0.62 mmol/L 0.70 - 1.00 LOW"),
    faithful(B, "INR 2.9 2.5 - 3.5 (target)"),
    faithful(B, "Corrected Ca 2.31 mmol/L 2.20 - 2.60"),
    faithful(B, "pH 7.33 (7.35-7.45) L"),
    faithful(B, "pO2 10.1 kPa (11.0–14.5) L"),
    faithful(B, "HCO3- 18.2 mmol/L (22–26) L"),
    faithful(B, "BE -6.1 mmol/L"),
    faithful(B, "Urea 18.4 mmol/L"),
    faithful(B, "Phosphate 1.71 mmol/L 0.80 - 1.50"),
    faithful(B, "Urine ACR 48 mg/mmol (<3)."),
    faithful(B, "potassium result confirmed on a non-haemolysed repeat sample"),
    # lung function and CPET
    faithful(F, "FEV1 2.31 L (74% predicted)"),
    faithful(F, "FEV1/FVC 0.66"),
    faithful(F, "mild obstructive defect; no significant bronchodilator reversibility.", "negated"),
    faithful(F, "Peak VO2 14.2 mL/kg/min (58% predicted)"),
    faithful(F, "Anaerobic threshold 9.1 mL/kg/min, clearly identified"),
    faithful(F, "Test stopped for leg fatigue (right calf claudication), not for breathlessness."),
    faithful(F, "AT < 11 mL/kg/min and VE/VCO₂ > 34"),
    # echo and ECG
    faithful(E, "LVEF 55–60% (visual estimate)."),
    faithful(E, "Grade 1 diastolic dysfunction."),
    faithful(E, "peak velocity 2.6 m/s, mean gradient 14 mmHg, DVI 0.42"),
    faithful(E, "No paravalvular leak.", "negated"),
    faithful(E, "Tricuspid valve: moderate tricuspid regurgitation; RVSP 41 mmHg + RAP."),
    faithful(
        E,
        "normally functioning mechanical AVR, preserved LV function, moderate TR,"
        " mildly dilated RV",
    ),
    faithful(G, "First-degree AV block, PR 232 ms."),
    faithful(G, "Right bundle branch block (QRS 138 ms)."),
    faithful(G, "Left axis deviation (-48°) – left anterior fascicular block."),
    faithful(G, "Q waves in III and aVF (old inferior infarct?)"),
    # the scanned summary re-typed with normal spacing
    faithful(S, "right hemisphere TIA (left arm weakness for 40 minutes), resolved completely."),
    faithful(S, "Left ICA stenosis 80-99% (NASCET) on duplex."),
    faithful(S, "CT head: no acute infarct, no haemorrhage.", "negated"),
    faithful(S, "left carotid artery stenting 12/10/2022, uncomplicated."),
    faithful(S, "clopidogrel 75 mg once daily for 3 months, warfarin as before."),
    faithful(S, "Aspirin was NOT restarted.", "negated"),
]

ALTERED = [
    # look-alike drugs
    altered(P, "Clonazepam 100 µg tds", "word_mismatch", ("Clonidine", "Clonazepam")),
    altered(P, "Amiodarone 10 mg mane", "word_mismatch", ("Amlodipine", "Amiodarone")),
    altered(P, "Doxycycline 4 mg bd", "word_mismatch"),
    altered(P, "Levofloxacin 500 mg bd", "word_mismatch"),
    altered(P, "Selegiline 50 mg od", "word_mismatch"),
    altered(P, "Calcitriol 0.25 µg od", "word_mismatch"),
    altered(P, "Esomeprazole 20 mg od", "word_mismatch"),
    # laterality
    altered(L, "His right carotid was stented in 2022", "word_mismatch", ("left", "right")),
    altered(L, "after a left-sided TIA", "word_mismatch"),
    altered(L, "claudication in the left calf at about 150 metres", "word_mismatch"),
    altered(
        P, "Left femoral pulse present, right popliteal and pedal pulses absent", "word_mismatch"
    ),
    altered(S, "left hemisphere TIA (left arm weakness for 40 minutes)", "word_mismatch"),
    altered(P, "BP 168/92 mmHg (right arm)", "word_mismatch"),
    # frequency
    altered(P, "Clonidine 100 µg bd", "word_mismatch", ("tds", "bd")),
    altered(P, "Doxazosin 4 mg tds", "word_mismatch", ("bd", "tds")),
    altered(P, "Levetiracetam 500 mg od", "word_mismatch"),
    altered(P, "enoxaparin 1 mg/kg twice daily (renal dose)", "word_mismatch"),
    altered(P, "Tramadol 50 mg qds regularly", "word_mismatch"),
    altered(S, "clopidogrel 75 mg once weekly for 3 months", "word_mismatch"),
    # dose units, decimal points
    altered(P, "Clonidine 100 mg tds", "number_mismatch", ("µg", "mg")),
    altered(P, "Alfacalcidol 0.25 mg od", "number_mismatch"),
    altered(P, "Alfacalcidol 2.5 µg od", "number_mismatch", ("0.25", "2.5")),
    altered(
        P,
        "enoxaparin 1 mg/kg once daily (renal dose) from day -3, last dose 12 h before surgery",
        "number_mismatch",
    ),
    altered(P, "Insulin degludec 2.2 units od (evening)", "number_mismatch"),
    altered(B, "K 58 mmol/L 3.5 - 5.3 HIGH", "number_mismatch"),
    altered(B, "Creatinine 24.8 umol/L", "number_mismatch"),
    altered(F, "FEV1 23.1 L (74% predicted)", "number_mismatch"),
    altered(B, "Mg 0.62 mg/L 0.70 - 1.00 LOW", "number_mismatch"),
    # signs and comparators
    altered(P, "enoxaparin 1 mg/kg once daily (renal dose) from day 3", "number_mismatch"),
    altered(G, "Left axis deviation (48°)", "number_mismatch"),
    altered(B, "BE 6.1 mmol/L", "number_mismatch"),
    altered(B, "eGFR 23 mL/min/1.73m2 <90 LOW", "number_mismatch"),
    altered(P, "epidural only if INR > 1.4", "number_mismatch"),
    altered(F, "AT > 11 mL/kg/min and VE/VCO2 > 34", "number_mismatch"),
    altered(B, "Urine ACR 48 mg/mmol (> 3)", "number_mismatch"),
    # flags of lab rows
    altered(B, "Platelets 142 x10^9/L 150 - 400 HIGH", "word_mismatch"),
    altered(B, "K 5.8 mmol/L 3.5 - 5.3 LOW", "word_mismatch"),
    # negation dropped by cutting the start, qualifiers cut off
    altered(L, "angina since", "context_cut"),
    altered(L, "further neurological symptoms", "context_cut"),
    altered(L, "a history of COPD", "context_cut"),
    altered(P, "taking aspirin (stopped 2023 after upper GI bleed", "context_cut"),
    altered(P, "chest pain at rest or on exertion", "context_cut", ("Denies", "")),
    altered(P, "ankle swelling", "context_cut"),
    altered(P, "sustained arrhythmia", "context_cut"),
    altered(P, "ruptured AAA aged 74", "context_cut"),
    altered(P, "an AAA under surveillance", "context_cut"),
    altered(P, "anaesthetic problems", "context_cut"),
    altered(P, "spinal anaesthesia (anticoagulated)", "context_cut"),
    altered(P, "hemisphere TIA, 10/2022", "context_cut"),
    altered(F, "significant bronchodilator reversibility", "context_cut"),
    altered(F, "ST depression, no arrhythmia during exercise", "context_cut"),
    altered(E, "paravalvular leak", "context_cut"),
    altered(E, "tricuspid regurgitation; RVSP 41 mmHg", "context_cut", ("moderate", "")),
    altered(E, "diastolic dysfunction", "context_cut"),
    altered(G, "acute ST changes", "context_cut"),
    altered(G, "old inferior infarct", "context_cut"),
    altered(G, "bundle branch block (QRS 138 ms)", "context_cut"),
    altered(S, "acute infarct", "context_cut"),
    altered(S, "haemorrhage", "context_cut"),
    altered(S, "MRI", "negation_mismatch"),
    altered(S, "Aspirin was restarted", "negation_mismatch"),
    altered(S, "ICA stenosis 80–99% (NASCET) on duplex", "context_cut"),
    altered(P, "lower risk of OSA, not yet studied", "word_mismatch"),
    # a word inserted or removed
    altered(P, "Chest clear. Right femoral pulse absent", "word_mismatch"),
    altered(P, "No ankle swelling, orthopnoea", "word_mismatch"),
    altered(
        E,
        "Aortic valve: mechanical prosthesis (On-X), well seated, abnormal disc motion",
        "word_mismatch",
    ),
    altered(P, "GA 2020 for right femoral angioplasty - problems", "word_mismatch"),
    altered(
        F,
        "Test stopped for leg fatigue (right calf claudication), for breathlessness",
        "word_mismatch",
    ),
    altered(P, "Iodinated contrast - reaction", "word_mismatch"),
    altered(P, "Iodinated contrast", "context_cut"),
    altered(B, "Potassium 5.3 mmol/L"),
    altered(B, "K 5.3 mmol/L", "number_mismatch"),
    # severity, valves, grades and classes
    altered(E, "Tricuspid valve: severe tricuspid regurgitation", "word_mismatch"),
    altered(E, "Mitral valve: moderate mitral regurgitation", "word_mismatch"),
    altered(E, "Mitral valve: mechanical prosthesis (On-X), well seated", "word_mismatch"),
    altered(E, "Grade 2 diastolic dysfunction.", "number_mismatch"),
    altered(P, "Breathless on one flight of stairs (NYHA III)", "word_mismatch"),
    altered(P, "CKD stage 3 (baseline creatinine 210-230 µmol/L)", "number_mismatch"),
    altered(F, "moderate obstructive defect", "word_mismatch"),
    altered(E, "Right ventricle: severely dilated, TAPSE 19 mm", "word_mismatch"),
    altered(G, "Second-degree AV block, PR 232 ms", "word_mismatch"),
    altered(P, "Airway: Mallampati 2, inter-incisor distance 4 cm", "number_mismatch"),
    # sex and pronoun
    altered(P, "Name: Kenneth OSEI-BONSU Female 69 y", "word_mismatch"),
    altered(L, "which she wishes to proceed with", "word_mismatch"),
    altered(P, "Family history: father died of a ruptured AAA aged 74", "word_mismatch"),
    altered(P, "his sister has an AAA under surveillance", "word_mismatch"),
    # dates and times
    altered(
        L, "CT angiography on 20/02/2026 confirms a 6.1 cm infrarenal aneurysm", "number_mismatch"
    ),
    altered(P, "CPET booked 13/08/2026", "number_mismatch"),
    altered(G, "ECG 04/03/2026 09:84", "number_mismatch"),
    altered(P, "Focal epilepsy since 2009, last seizure 2007", "number_mismatch"),
    # label joined to another row's value; values swapped between rows
    altered(B, "Na 5.8 mmol/L", "number_mismatch"),
    altered(B, "Urea 248 mmol/L", "number_mismatch"),
    altered(B, "Phosphate 0.62 mmol/L", "number_mismatch"),
    altered(B, "3.5 - 5.3 HIGH Bicarbonate 19", "row_join"),
    altered(B, "HIGH eGFR 23", "row_join"),
    altered(P, "Doxazosin 4 mg bd Clonidine", "row_join"),
    altered(P, "tds Bisoprolol 5 mg", "row_join"),
    # plural / singular, units of time
    altered(P, "Breathless on two flights of stairs", "word_mismatch"),
    altered(
        L,
        "CT angiography on 02/02/2026 confirms a 6.1 cm infrarenal aneurysm with a 14 cm neck",
        "number_mismatch",
    ),
    altered(P, "stop warfarin 5 weeks pre-op", "number_mismatch"),
    altered(S, "stroke clinic in 6 months", "number_mismatch"),
    altered(S, "clopidogrel 75 mg once daily for 3 weeks", "number_mismatch"),
    altered(P, "prolonged ventilation (18 days) for fluid overload", "number_mismatch"),
]
