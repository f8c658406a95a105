"""Quotes from a second realistic record (halloway_record.json: colorectal clinic letter
with sentences wrapped across lines, nurse-led pre-assessment with problem, medication and
allergy lists, a lab report in two layouts, echo, ECG with CRLF line endings, a scanned
rheumatology letter with odd spacing), each with what verification must say."""

from __future__ import annotations

from pathlib import Path

from tests.evidence.preop_corpus import Quote, faithful

RECORD = Path(__file__).parent / "halloway_record.json"


def altered(
    source_id: str, text: str, flag: str | None = None, change: tuple[str, str] | None = None
) -> Quote:
    return Quote(source_id, text, False, flag, change)


L, P, B, E, G, S = "colorectal_letter", "preop_clinic", "bloods", "echo", "ecg", "rheum_2019_scan"

FAITHFUL = [
    # across line wraps, one with a hyphen at the wrap
    faithful(L, "I saw this 78 year old retired schoolteacher today with her daughter."),
    faithful(L, "colonoscopy on 12/03/2026 showed an ulcerating adenocarcinoma of the caecum"),
    faithful(L, "the sigmoid could not be fully assessed because of diverticular disease"),
    faithful(L, "CT chest, abdomen and pelvis showed no evidence of distant metastases", "negated"),
    faithful(L, "The MDT on 25/03/2026 recommended a laparoscopic right hemicolectomy"),
    faithful(L, "She has atrial fibrillation and takes apixaban 2.5 mg twice daily"),
    faithful(L, "this will need to be stopped 72 hours before surgery given her renal function"),
    faithful(L, "please avoid the left arm for blood pressure and cannulation"),
    faithful(L, "SHE IS ON PREDNISOLONE 5 MG ONCE DAILY FOR POLYMYALGIA RHEUMATICA"),
    faithful(L, "she has become a little more breathless on the hills over the winter"),
    faithful(L, "would accept one if needed"),
    faithful(L, "Intravenous iron given on 28/03/2026 (ferric carboxymaltose 1000 mg)."),
    faithful(L, "moderate mitral regurgitation on her last echo in 2024 – repeat requested"),
    # problem list with bullets, NFKC forms and dash variants
    faithful(P, "• Permanent atrial fibrillation, CHA2DS2-VASc 5, on apixaban"),
    faithful(P, "Heart failure with mildly reduced ejection fraction (LVEF 40-45% in 2024)"),
    faithful(P, "* Moderate mitral regurgitation (2024)"),
    faithful(P, "Chronic kidney disease stage 3b"),
    faithful(P, "Left breast cancer 2012 — mastectomy, axillary clearance"),
    faithful(P, "Query obstructive sleep apnoea (STOP-BANG 4)"),
    faithful(P, "BMI 24.4 kg/m2"),
    faithful(P, "Left mastectomy 2012 under GA - severe PONV"),
    # medications: doses, µg, units, frequencies
    faithful(P, "- Apixaban 2.5 mg twice daily (last dose to be 08/05/2026 morning)"),
    faithful(P, "Levothyroxine 100 micrograms once daily"),
    faithful(P, "Insulin glargine (Lantus) 18 units at night"),
    faithful(P, "Alendronic acid 70 mg once weekly (Sunday)."),
    faithful(P, "Cyanocobalamin 50 μg once daily"),
    faithful(P, "Fentanyl 12 µg/hour transdermal patch, changed every 72 hours"),
    faithful(P, "Hydroxyzine 10 mg at night when required (itch)"),
    faithful(P, "Clonazepam 0.5 mg at night (restless legs)"),
    faithful(P, "Penicillin: anaphylaxis (1998)"),
    faithful(P, "Codeine: vomiting (intolerance, not allergy)"),
    # systems review and examination
    faithful(P, "Chest pain: none.", "negated"),
    faithful(P, "Orthopnoea: sleeps on 2 pillows."),
    faithful(P, "Ankle swelling: mild, both ankles, worse in the evening."),
    faithful(
        P,
        "stops after one flight of stairs because of breathlessness",
    ),
    faithful(P, "SpO2 96% on air"),
    faithful(P, "Pansystolic murmur at the apex radiating to the axilla, grade 3/6."),
    faithful(P, "Mallampati class 2, thyromental distance >6.5 cm"),
    faithful(P, "P-POSSUM morbidity 38%, mortality 4.1%."),
    faithful(
        P,
        "Hydrocortisone 50 mg IV at induction then 25 mg 8-hourly for 24 hours,"
        " then back to prednisolone 5 mg.",
    ),
    faithful(P, "functional capacity judged < 4 METs"),
    # labs: both layouts, flags and ranges
    faithful(B, "Haemoglobin 102 L g/L 115–165"),
    faithful(B, "Potassium 5.4 H mmol/L 3.5-5.3"),
    faithful(B, "Creatinine               131       H      μmol/L          45–84"),
    faithful(B, "eGFR 34 L mL/min/1.73m2 >=90"),
    faithful(B, "Magnesium 0.68 L mmol/L 0.70-1.00"),
    faithful(B, "White cell count 6.4 x10^9/L 4.0-11.0"),
    faithful(B, "NT-proBNP 2140 H ng/L <400"),
    faithful(B, "INR 1.3 H 0.8–1.2"),
    faithful(B, "K 5.1 mmol/L (3.5-5.3)"),
    faithful(B, "Creat 124 umol/L (45-84) H"),
    faithful(B, "eGFR 37 mL/min/1.73m² (≥90) L"),
    faithful(B, "Anti-Xa (apixaban level) 46 ng/mL (on treatment, 3 h post dose)"),
    faithful(B, "iron deficiency not excluded"),
    faithful(B, "Potassium 5.4 mmol/L 3.5–5.3"),
    faithful(B, "Haemoglobin 102 g/L"),
    # echo and ECG (CRLF)
    faithful(E, "mildly impaired systolic function, LVEF 41% (biplane Simpson’s)"),
    faithful(E, "No LV thrombus seen.", "negated"),
    faithful(E, "moderate-to-severe functional mitral regurgitation, central jet, EROA 0.32 cm²"),
    faithful(E, "Aortic valve: trileaflet, mild sclerosis, no stenosis (peak velocity 1.7 m/s)"),
    faithful(E, "TR Vmax 3.1 m/s, estimated PASP 46 mmHg"),
    faithful(E, "Left atrium: severely dilated (LA volume index 58 mL/m2)."),
    faithful(E, "IVC 2.2 cm, <50% inspiratory collapse."),
    faithful(G, "Atrial fibrillation with controlled ventricular response, rate 76 bpm."),
    faithful(G, "QRS 102 ms, QTc 468 ms (Bazett)."),
    faithful(G, "Poor R wave progression V1-V3."),
    faithful(G, "No acute ischaemic changes.", "negated"),
    # the scanned letter, its odd spacing re-typed normally
    faithful(S, "Polymyalgia rheumatica (diagnosed 02/2018)"),
    faithful(S, "her CRP is now 4 mg/L."),
    faithful(S, "she will stay on 5 mg once daily long term"),
    faithful(S, "-2.4 at the left femoral neck"),
    faithful(S, "I have started alendronic acid 70 mg once weekly with calcium and vitamin D."),
    faithful(S, "She does not have giant cell arteritis", "negated"),
]

ALTERED = [
    # look-alike drugs
    altered(
        P,
        "Hydralazine 10 mg at night when required (itch)",
        "word_mismatch",
        ("Hydroxyzine", "Hydralazine"),
    ),
    altered(
        P, "Clonidine 0.5 mg at night (restless legs)", "word_mismatch", ("Clonazepam", "Clonidine")
    ),
    altered(P, "Levetiracetam 100 micrograms once daily", "word_mismatch"),
    altered(P, "Prednisone 5 mg once daily", "word_mismatch"),
    altered(P, "Insulin detemir (Lantus) 18 units at night", "word_mismatch"),
    altered(
        P, "Furosemide 40 mg once daily in the evening", "word_mismatch", ("morning", "evening")
    ),
    # laterality
    altered(
        L,
        "please avoid the right arm for blood pressure and cannulation",
        "word_mismatch",
        ("left", "right"),
    ),
    altered(P, "Procedure: Laparoscopic left hemicolectomy", "word_mismatch", ("right", "left")),
    altered(P, "Right breast cancer 2012 - mastectomy, axillary clearance", "word_mismatch"),
    altered(P, "Left total knee replacement 2016 (spinal)", "word_mismatch", ("Right", "Left")),
    altered(S, "-2.4 at the right femoral neck", "word_mismatch", ("left", "right")),
    altered(P, "BP 128/74 mmHg (left arm)", "word_mismatch", ("right", "left")),
    # frequency
    altered(P, "Alendronic acid 70 mg once daily (Sunday)", "word_mismatch", ("weekly", "daily")),
    altered(P, "Apixaban 2.5 mg once daily", "word_mismatch", ("twice", "once")),
    altered(
        P, "Calcium carbonate / colecalciferol 1.5 g/400 units three times daily", "word_mismatch"
    ),
    altered(
        P,
        "Fentanyl 12 µg/hour transdermal patch, changed every 72 days",
        "number_mismatch",
        ("hours", "days"),
    ),
    altered(S, "alendronic acid 70 mg once daily with calcium", "word_mismatch"),
    altered(P, "Hydrocortisone 50 mg IV at induction then 25 mg 6-hourly", "number_mismatch"),
    # dose units and decimal points
    altered(P, "Levothyroxine 100 mg once daily", "number_mismatch"),
    altered(P, "Cyanocobalamin 50 mg once daily", "number_mismatch", ("µg", "mg")),
    altered(P, "Fentanyl 12 mg/hour transdermal patch", "number_mismatch"),
    altered(P, "Clonazepam 5 mg at night (restless legs)", "number_mismatch", ("0.5", "5")),
    altered(P, "Bisoprolol 37.5 mg once daily", "number_mismatch"),
    altered(L, "apixaban 25 mg twice daily", "number_mismatch"),
    altered(B, "Magnesium 6.8 L mmol/L 0.70–1.00", "number_mismatch"),
    altered(B, "Potassium 5.4 H mmol/L 3.5–5.8", "number_mismatch"),
    # signs and comparators
    altered(B, "NT-proBNP 2140 H ng/L >400", "number_mismatch", ("<", ">")),
    altered(B, "eGFR 34 L mL/min/1.73m² ≤90", "number_mismatch"),
    altered(P, "functional capacity judged > 4 METs", "number_mismatch"),
    altered(E, "IVC 2.2 cm, > 50% inspiratory collapse", "number_mismatch"),
    altered(S, "T-score 3.1 at the lumbar spine", "number_mismatch"),
    altered(G, "Axis -10°", "number_mismatch"),
    # flags swapped
    altered(B, "Haemoglobin 102 H g/L 115–165", "word_mismatch"),
    altered(B, "Sodium 134 H mmol/L 135–145", "word_mismatch"),
    # negation dropped by cutting the start, or qualifiers cut off
    altered(L, "evidence of distant metastases", "context_cut", ("no", "")),
    altered(L, "enlarged mesenteric nodes", "context_cut"),
    altered(L, "metastases and no enlarged mesenteric nodes", "negation_mismatch"),
    altered(L, "Two units of packed red cells", "negation_mismatch", ("are not required", "")),
    altered(P, "sleep study", "negation_mismatch"),
    altered(S, "visual symptoms", "negation_mismatch", ("no", "")),
    altered(P, "difficult intubation", "context_cut"),
    altered(P, "malignant hyperthermia", "context_cut"),
    altered(P, "obstructive sleep apnoea (STOP-BANG 4)", "context_cut", ("Query", "")),
    altered(P, "breast cancer 2012 - mastectomy, axillary clearance", "context_cut", ("Left", "")),
    altered(P, "mitral regurgitation (2024)", "context_cut", ("Moderate", "")),
    altered(E, "functional mitral regurgitation, central jet", "context_cut"),
    altered(E, "LV thrombus seen", "context_cut", ("No", "")),
    altered(E, "dilated (LA volume index 58 mL/m²)", "context_cut"),
    altered(G, "acute ischaemic changes", "context_cut", ("No", "")),
    altered(S, "giant cell arteritis", "context_cut"),
    altered(S, "jaw claudication", "context_cut", ("no", "")),
    altered(B, "iron deficiency", "context_cut"),
    altered(P, "dehydrated clinically", "context_cut"),
    altered(P, "Palpitations: occasional, associated with dizziness", "negation_mismatch"),
    altered(P, "pre-operative CPET (logistics)", "context_cut"),
    altered(P, "Chlorhexidine", "negation_mismatch", (": no known", "")),
    altered(B, "Potassium 5.3 mmol/L", "number_mismatch"),
    altered(L, "Two units of packed red cells are required at present", "negation_mismatch"),
    # words inserted or removed
    altered(L, "she does need bridging", "negation_mismatch"),
    altered(P, "She is dehydrated clinically", "word_mismatch"),
    altered(P, "Chest pain: none. Orthopnoea: no", "word_mismatch"),
    altered(P, "Reflux: on treatment", "negation_mismatch"),
    altered(S, "She does have giant cell arteritis", "negation_mismatch"),
    altered(L, "She has had a blood transfusion", "word_mismatch"),
    altered(P, "Smoking: smoked", "word_mismatch"),
    # severity, valve names, grade and class numbers
    altered(E, "mildly impaired systolic function, LVEF 14%", "number_mismatch", ("41", "14")),
    altered(E, "Conclusion: severely impaired LV systolic function", "word_mismatch"),
    altered(E, "mild-to-moderate functional MR, severely dilated LA", "word_mismatch"),
    altered(E, "Tricuspid valve: severe tricuspid regurgitation", "word_mismatch"),
    altered(E, "Aortic valve: moderate-to-severe functional mitral regurgitation", "word_mismatch"),
    altered(E, "Pulmonary valve: trileaflet, mild sclerosis, no stenosis", "word_mismatch"),
    altered(
        P, "Pansystolic murmur at the apex radiating to the axilla, grade 4/6", "number_mismatch"
    ),
    altered(P, "Mallampati class 3, thyromental distance > 6.5 cm", "number_mismatch"),
    altered(P, "ASA 2.", "number_mismatch", ("3", "2")),
    altered(P, "Chronic kidney disease stage 3a"),
    altered(P, "Frail (Clinical Frailty Scale 6)", "number_mismatch"),
    # sex and pronoun
    altered(
        L, "I saw this 78 year old retired schoolteacher today with his daughter", "word_mismatch"
    ),
    altered(P, "Patient: Doreen HALLOWAY, male, 78 years", "word_mismatch"),
    # dates and times
    altered(L, "I have listed her for this on 11/06/2026", "number_mismatch"),
    altered(G, "12-LEAD ECG 16/04/2026 11:20", "number_mismatch"),
    altered(P, "Apixaban 2.5 mg twice daily (last dose to be 08/05/2026 evening)", "word_mismatch"),
    altered(L, "stopped 48 hours before surgery", "number_mismatch"),
    # a label joined to another row's value; numbers swapped between rows
    altered(B, "Urea 131 H mmol/L", "number_mismatch"),
    altered(B, "Potassium 134 L mmol/L"),
    altered(B, "Creatinine 12.6 H µmol/L", "number_mismatch"),
    altered(B, "45–84 eGFR 34", "row_join"),
    altered(B, "Magnesium 0.68 L mmol/L 0.70–1.00 Albumin", "row_join"),
    altered(B, "Potassium 5.4 H mmol/L 3.5–5.3 Urea 12.6", "row_join"),
    # plural / singular, units of time
    altered(P, "Right total knee replacements 2016 (spinal)", "word_mismatch"),
    altered(P, "Cataract surgery, one eye, 2021 (local)", "word_mismatch"),
    altered(B, "Suggest repeat U&E in 1 month"),
    altered(
        P, "Hydrocortisone 50 mg IV at induction then 25 mg 8-hourly for 24 days", "number_mismatch"
    ),
    altered(S, "Polymyalgia rheumatica (diagnosed 02/2019)", "number_mismatch"),
]
