"""Quotes from records as real transcriptions and letters lay them out: prose re-wrapped
at a width (a word processor's letter, a transcription service's 80 columns, a dictation
system's lines in lower case, paragraphs indented with a tab, two spaces after a heading's
colon or typed inside a sentence), beside tables, medication lists and EHR grids whose
lines are rows, with what verification must say of each quote.

Faithful quotes run across the wraps of a paragraph, stop before a trailing clause that
does not govern them (", in remission" after a dated, treated history; ", who presents
for ..."), or are whole rows. Meaning-changing quotes start right after a qualifier
("undiagnosed", "suspected", "possible", "?", "query", "family history of", "rule out",
"no", "denies", a severity or a side), stop before a trailing clause that negates,
conditions or qualifies them (", which was excluded", "- ruled out", "provided ...",
"unless ...", "if ...", "as needed", "PRN", "as required", "was suspected", "moderate to
severe"), join two table rows, or change a number.
"""

from __future__ import annotations

from dataclasses import dataclass

US_HP = """\
HISTORY OF PRESENT ILLNESS:  The patient is a 71-year-old gentleman with a
history of coronary artery disease status post drug-eluting stent to the LAD in
2019, non-Hodgkin lymphoma 2011 treated with R-CHOP, in remission, and type 2
diabetes, who presents for elective left inguinal hernia repair.  He reports
exertional dyspnea after one flight of stairs but denies chest pain, orthopnea
or paroxysmal nocturnal dyspnea.  His wife states that he snores loudly and has
witnessed apneic episodes; he has  undiagnosed obstructive sleep apnea and has
never had a sleep study.  A venous duplex in March for calf swelling showed no
deep vein thrombosis.  Pulmonary embolism was considered in the emergency
department in April, which was excluded on CT pulmonary angiography.

PAST MEDICAL HISTORY:  Coronary artery disease, hypertension, hyperlipidemia,
type 2 diabetes mellitus, non-Hodgkin lymphoma in remission, and chronic kidney
disease stage 3a.  Gout, last flare 2018.

MEDICATIONS:  Aspirin 81 mg daily, clopidogrel 75 mg daily, metoprolol
succinate 50 mg daily, atorvastatin 40 mg at bedtime, metformin 1000 mg twice
daily, nitroglycerin 0.4 mg sublingual every 5 minutes as needed for chest pain,
and oxycodone 5 mg every 6 hours PRN back pain.

ALLERGIES:  Penicillin, which causes hives.  No known latex allergy.

FAMILY HISTORY:  Father died of myocardial infarction at 58.  Family history of
malignant hyperthermia in a maternal cousin.  Mother with breast cancer.

SOCIAL HISTORY:  Former smoker, quit in 2005 with a 30 pack-year history.  He
drinks two beers on weekends.

PHYSICAL EXAMINATION:  BP 142/84  HR 68  SpO2 95% on room air.  He appears well
and in no acute distress.  Mallampati class III with a thick neck, neck
circumference 45 cm.  Lungs clear bilaterally.  Grade 2/6 systolic ejection
murmur at the right upper sternal border.

ASSESSMENT AND PLAN:  1.  Coronary artery disease with stent in 2019: continue
aspirin throughout; hold clopidogrel for 5 days before surgery provided
cardiology agrees.  2.  Possible obstructive sleep apnea: STOP-BANG 6, refer for
polysomnography; CPAP postoperatively if available.  3.  Diabetes: hold
metformin the morning of surgery; sliding scale insulin as needed.
"""

UK_LETTER = """\
Dear Dr Okafor,

Re: Mrs Janet Whitfield, DOB 14/03/1956, NHS No. 485 777 3456

Thank you for referring Mrs Whitfield, whom I saw in the pre-operative
assessment clinic today ahead of her laparoscopic right hemicolectomy. She
has a past history of breast cancer 2014 treated with wide local excision
and radiotherapy, in remission, and her oncologist discharged her last
year. She also has atrial fibrillation, for which she takes apixaban 5 mg
twice daily, and moderate to severe mitral regurgitation on her most recent
echocardiogram, with an ejection fraction of 45%. A left ventricular thrombus
was suspected on the first study and has not been seen since.

She reports breathlessness on walking up a slope and sleeps on three pillows.
She has suspected obstructive sleep apnoea, with a STOP-BANG score of 5, and
I have referred her for overnight oximetry. Her husband has noticed that she
stops breathing at night. Her echo report lists mitral regurgitation, moderate
to severe, and a dilated left atrium.

Her bloods today:

Test              Result   Units      Range
Haemoglobin       104      g/L        115-165
Potassium         5.9      mmol/L     3.5-5.3
eGFR              38       mL/min     >60
Platelets         162      x10^9/L    150-400

Plan: apixaban to be omitted for 48 hours before surgery, provided her
creatinine clearance remains above 30 mL/min; no bridging is required. She
may take paracetamol 1 g four times daily as required. Spinal anaesthesia is
not planned unless the surgical approach changes.

Yours sincerely,

Dr Helen Marsh
Consultant Anaesthetist
"""

EHR_SUMMARY = """\
PATIENT SUMMARY (generated 2026-03-02 09:14)

Active Problems
| Problem                          | Status    | Onset      |
| Heart failure with reduced EF    | Active    | 2021       |
| Hodgkin lymphoma                 | Remission | 2009       |
| Atrial fibrillation, paroxysmal  | Active    | 2020       |

Medications
Furosemide\t40 mg\tPO\tdaily
Bisoprolol\t2.5 mg\tPO\tdaily
Ondansetron\t4 mg\tPO\tq8h PRN nausea
Lorazepam\t0.5 mg\tPO\tat bedtime as needed for anxiety

Vitals: BP 108/66  HR 92  RR 20  SpO2 93% RA  Wt 81 kg

Progress note: 64 y/o M with HFrEF (EF 30%) and paroxysmal AF admitted with
decompensated heart failure, now euvolaemic after IV diuresis. Hodgkin lymphoma
2009 treated with ABVD and mediastinal radiotherapy, in remission. Echo shows
severe LV systolic impairment and mild aortic stenosis. ?Amiodarone lung
toxicity on CT - for respiratory review. Query early cirrhosis on ultrasound,
LFTs normal. Rule out pulmonary embolism if D-dimer raised. No bleeding on
apixaban. Denies syncope. Long history of smoking, and the patient has suspected
COPD on spirometry, to be confirmed by the respiratory team.
# Hyperkalaemia 6.1 - resolved after stopping spironolactone
# Possible obstructive sleep apnoea - STOP-BANG 5
Allergies: none
medications reconciled: yes
"""

DICTATION = """\
this is a 58 year old female seen today for preoperative evaluation prior to
laparoscopic cholecystectomy she has asthma well controlled on inhaled
fluticasone and albuterol two puffs every four hours as needed she denies any
recent exacerbations or hospitalizations for asthma she has no history of
deep vein thrombosis or pulmonary embolism her mother had a
pulmonary embolism after a hip replacement she has possible
obstructive sleep apnea pending a sleep study
"""

US_CONSULT = """\
REASON FOR CONSULTATION:  Preoperative cardiac risk assessment.

HISTORY:
\tMr. Alvarez is a 66-year-old man scheduled for right total knee arthroplasty
who has a history of nonischemic cardiomyopathy with an ejection fraction of
35% on echocardiogram in January 2026.  He had a transient ischemic attack in
2024 with full recovery.  Coronary angiography in 2022 showed mild
nonobstructive disease.  He has chronic atrial fibrillation and takes warfarin
5 mg daily with a goal INR of 2 to 3.  Bridging with enoxaparin is not
indicated.  A cardiac stress test is recommended only if his functional
capacity cannot be assessed.
\tHe is at risk of postoperative delirium given mild cognitive impairment, and
his daughter will stay with him.

PROBLEMS                  DETAILS
Hypertension              amlodipine 10 mg daily, home readings around 135/85
Type 2 diabetes           metformin 1 g twice daily and gliclazide 80 mg daily
CKD stage 3b              creatinine 1.9 mg/dL, eGFR 34
"""

DISCHARGE = """\
DISCHARGE SUMMARY

ADMISSION DIAGNOSIS:,  Community-acquired pneumonia.

HOSPITAL COURSE:\tThe patient is an 82-year-old woman admitted with fever, productive
cough and hypoxia, with oxygen saturation of 86% on room air.  Chest x-ray showed a right
lower lobe infiltrate.  She was started on ceftriaxone 1 g IV daily and azithromycin 500
mg p.o. daily, and her oxygen requirement resolved by day 3.  Blood cultures were
negative.  A CT angiogram was not performed, and pulmonary embolism was felt unlikely.  She
was seen by Dr. Patel of cardiology for new atrial fibrillation, rate controlled with
metoprolol 25 mg p.o. b.i.d., and apixaban was deferred pending a falls assessment.

DISCHARGE MEDICATIONS:\t1.  Metoprolol tartrate 25 mg p.o. b.i.d.  2.  Amoxicillin-
clavulanate 875 mg p.o. b.i.d. for 5 days.  3.  Acetaminophen 650 mg p.o. q.6h. p.r.n.
pain or fever.
"""

ANTICOAGULATION = """\
Anticoagulation Clinic
Royal County Hospital

Dear Mr Ferreira,

Your operation (right total hip replacement) is planned for 14 April. You take warfarin
for a mechanical mitral valve replaced in 2011, and your target INR is 3.0 (range
2.5-3.5). Because your valve is mechanical, you will need bridging with enoxaparin while
the warfarin is stopped, unless your surgeon decides to operate on a lower INR.

Please take your last dose of warfarin on 8 April. Start enoxaparin 1.5 mg/kg once daily
on 10 April, and take the last injection on the morning of 13 April. We will check your
INR on 13 April; vitamin K 2 mg orally will be given if the INR is above 1.5. Restart
warfarin at your usual dose on the evening of surgery provided there is no bleeding, and
continue enoxaparin until your INR is in range.

You told us that you had a gastrointestinal bleed in 2019, which was treated with
endoscopic clipping, and that you have had no bleeding since. You do not take aspirin.

Yours sincerely,
Anticoagulation Nurse Specialist
"""

RENAL_SUMMARY = """\
RENAL UNIT - OUTPATIENT SUMMARY
Diagnosis: CKD stage 4 secondary to diabetic nephropathy; renal anaemia; secondary
hyperparathyroidism.

Results (12/03/2026):
  Creatinine   312 umol/L   (H)
  eGFR         16 mL/min/1.73m2
  Potassium    5.7 mmol/L   (H)
  Bicarbonate  19 mmol/L    (L)
  Hb           96 g/L       (L)

Comment: Potassium has been between 5.5 and 5.9 for six months and was 6.2 in January,
which was treated with a potassium binder. He is not on dialysis and is not yet on the
transplant list. A fistula is planned for May if his eGFR falls below 15. Darbepoetin 40
micrograms fortnightly, continued. Avoid NSAIDs and nephrotoxins; gadolinium only if
essential.
"""

DOCUMENTS = {
    "us_hp": US_HP,
    "uk_letter": UK_LETTER,
    "ehr_summary": EHR_SUMMARY,
    "dictation": DICTATION,
    "us_consult": US_CONSULT,
    "discharge": DISCHARGE,
    "anticoagulation": ANTICOAGULATION,
    "renal": RENAL_SUMMARY,
}


@dataclass(frozen=True)
class Quote:
    source_id: str
    text: str
    verified: bool
    flag: str | None = None  # a flag the alignment must carry


def faithful(source_id: str, text: str, flag: str | None = None) -> Quote:
    return Quote(source_id, text, True, flag)


def changed(source_id: str, text: str, flag: str) -> Quote:
    return Quote(source_id, text, False, flag)


FAITHFUL = [
    # across the wraps of a transcription's paragraphs (two spaces after a colon or a
    # sentence, two typed inside one, a vitals run at the start of a line)
    faithful(
        "us_hp",
        "The patient is a 71-year-old gentleman with a history of coronary artery disease "
        "status post drug-eluting stent to the LAD in 2019",
    ),
    faithful("us_hp", "non-Hodgkin lymphoma 2011 treated with R-CHOP"),
    faithful("us_hp", "who presents for elective left inguinal hernia repair"),
    faithful("us_hp", "His wife states that he snores loudly and has witnessed apneic episodes"),
    faithful("us_hp", "he has undiagnosed obstructive sleep apnea and has never had a sleep study"),
    faithful(
        "us_hp",
        "A venous duplex in March for calf swelling showed no deep vein thrombosis",
        "negated",
    ),
    faithful(
        "us_hp",
        "Pulmonary embolism was considered in the emergency department in April, which was "
        "excluded on CT pulmonary angiography",
        "negated",
    ),
    faithful(
        "us_hp", "Coronary artery disease, hypertension, hyperlipidemia, type 2 diabetes mellitus"
    ),
    faithful("us_hp", "chronic kidney disease stage 3a"),
    faithful("us_hp", "metoprolol succinate 50 mg daily"),
    faithful("us_hp", "metformin 1000 mg twice daily"),
    faithful("us_hp", "nitroglycerin 0.4 mg sublingual every 5 minutes as needed for chest pain"),
    faithful("us_hp", "oxycodone 5 mg every 6 hours PRN back pain"),
    faithful("us_hp", "Former smoker, quit in 2005 with a 30 pack-year history"),
    faithful("us_hp", "He appears well and in no acute distress", "negated"),
    faithful("us_hp", "Mallampati class III with a thick neck, neck circumference 45 cm"),
    faithful("us_hp", "Grade 2/6 systolic ejection murmur at the right upper sternal border"),
    faithful(
        "us_hp",
        "hold clopidogrel for 5 days before surgery provided cardiology agrees",
    ),
    faithful("us_hp", "Possible obstructive sleep apnea: STOP-BANG 6, refer for polysomnography"),
    faithful("us_hp", "Family history of malignant hyperthermia in a maternal cousin"),
    faithful("us_hp", "hold metformin the morning of surgery"),
    # a word processor's letter: no double spaces, wraps wherever the width runs out
    faithful(
        "uk_letter",
        "whom I saw in the pre-operative assessment clinic today ahead of her laparoscopic "
        "right hemicolectomy",
    ),
    faithful("uk_letter", "breast cancer 2014 treated with wide local excision and radiotherapy"),
    faithful("uk_letter", "her oncologist discharged her last year"),
    faithful("uk_letter", "for which she takes apixaban 5 mg twice daily"),
    faithful(
        "uk_letter", "moderate to severe mitral regurgitation on her most recent echocardiogram"
    ),
    faithful("uk_letter", "with an ejection fraction of 45%"),
    faithful(
        "uk_letter", "She reports breathlessness on walking up a slope and sleeps on three pillows"
    ),
    faithful("uk_letter", "Her husband has noticed that she stops breathing at night"),
    faithful("uk_letter", "Potassium 5.9 mmol/L 3.5-5.3"),
    faithful("uk_letter", "Haemoglobin       104      g/L        115-165"),
    faithful("uk_letter", "no bridging is required", "negated"),
    faithful(
        "uk_letter",
        "apixaban to be omitted for 48 hours before surgery, provided her creatinine "
        "clearance remains above 30 mL/min",
    ),
    faithful("uk_letter", "She may take paracetamol 1 g four times daily as required"),
    # an EHR's summary: grids, tab-separated medication rows, a note wrapped at a width
    faithful(
        "ehr_summary",
        "64 y/o M with HFrEF (EF 30%) and paroxysmal AF admitted with decompensated heart failure",
    ),
    faithful("ehr_summary", "now euvolaemic after IV diuresis"),
    faithful("ehr_summary", "Hodgkin lymphoma 2009 treated with ABVD and mediastinal radiotherapy"),
    faithful("ehr_summary", "Echo shows severe LV systolic impairment and mild aortic stenosis"),
    faithful("ehr_summary", "No bleeding on apixaban", "negated"),
    faithful("ehr_summary", "Furosemide 40 mg PO daily"),
    faithful("ehr_summary", "Ondansetron 4 mg PO q8h PRN nausea"),
    faithful("ehr_summary", "Heart failure with reduced EF Active 2021"),
    faithful("ehr_summary", "BP 108/66"),
    faithful(
        "ehr_summary", "Hyperkalaemia 6.1 - resolved after stopping spironolactone", "negated"
    ),
    faithful("ehr_summary", "medications reconciled: yes"),
    # dictation wrapped at 80 columns in lower case, hardly any punctuation
    faithful(
        "dictation",
        "seen today for preoperative evaluation prior to laparoscopic cholecystectomy",
    ),
    faithful("dictation", "albuterol two puffs every four hours as needed"),
    faithful("dictation", "her mother had a pulmonary embolism after a hip replacement"),
    # a consultation indented with tabs, then a two-column table of problems
    faithful(
        "us_consult",
        "Mr. Alvarez is a 66-year-old man scheduled for right total knee arthroplasty who has "
        "a history of nonischemic cardiomyopathy",
    ),
    faithful("us_consult", "with an ejection fraction of 35% on echocardiogram in January 2026"),
    faithful("us_consult", "He had a transient ischemic attack in 2024 with full recovery"),
    faithful("us_consult", "Coronary angiography in 2022 showed mild nonobstructive disease"),
    faithful(
        "us_consult",
        "He has chronic atrial fibrillation and takes warfarin 5 mg daily with a goal INR of 2 "
        "to 3",
    ),
    faithful("us_consult", "Bridging with enoxaparin is not indicated", "negated"),
    faithful(
        "us_consult",
        "He is at risk of postoperative delirium given mild cognitive impairment, and his "
        "daughter will stay with him",
    ),
    faithful("us_consult", "amlodipine 10 mg daily, home readings around 135/85"),
    # a transcription service's discharge summary: a tab or ",  " after each heading,
    # numbered items run on, dotted abbreviations, a word broken by a hyphen at a wrap
    faithful(
        "discharge",
        "The patient is an 82-year-old woman admitted with fever, productive cough and "
        "hypoxia, with oxygen saturation of 86% on room air",
    ),
    faithful("discharge", "Chest x-ray showed a right lower lobe infiltrate"),
    faithful(
        "discharge",
        "She was started on ceftriaxone 1 g IV daily and azithromycin 500 mg p.o. daily",
    ),
    faithful("discharge", "Blood cultures were negative", "negated"),
    faithful(
        "discharge",
        "She was seen by Dr. Patel of cardiology for new atrial fibrillation, rate controlled "
        "with metoprolol 25 mg p.o. b.i.d.",
    ),
    faithful("discharge", "Amoxicillin-clavulanate 875 mg p.o. b.i.d. for 5 days"),
    faithful("discharge", "Acetaminophen 650 mg p.o. q.6h. p.r.n. pain or fever"),
    faithful("discharge", "Community-acquired pneumonia"),
    # a letter to a patient, re-wrapped; a renal summary with an indented results block
    faithful(
        "anticoagulation",
        "You take warfarin for a mechanical mitral valve replaced in 2011, and your target "
        "INR is 3.0 (range 2.5-3.5)",
    ),
    faithful(
        "anticoagulation",
        "you will need bridging with enoxaparin while the warfarin is stopped, unless your "
        "surgeon decides to operate on a lower INR",
    ),
    faithful("anticoagulation", "Please take your last dose of warfarin on 8 April"),
    faithful("anticoagulation", "Start enoxaparin 1.5 mg/kg once daily on 10 April"),
    faithful("anticoagulation", "vitamin K 2 mg orally will be given if the INR is above 1.5"),
    faithful(
        "anticoagulation",
        "Restart warfarin at your usual dose on the evening of surgery provided there is no "
        "bleeding",
        "negated",
    ),
    faithful("anticoagulation", "you had a gastrointestinal bleed in 2019"),
    faithful(
        "anticoagulation",
        "a gastrointestinal bleed in 2019, which was treated with endoscopic clipping",
    ),
    faithful("anticoagulation", "You do not take aspirin", "negated"),
    faithful(
        "renal",
        "CKD stage 4 secondary to diabetic nephropathy; renal anaemia; secondary "
        "hyperparathyroidism",
    ),
    faithful("renal", "Creatinine   312 umol/L   (H)"),
    faithful("renal", "Potassium 5.7 mmol/L"),
    faithful(
        "renal", "Potassium has been between 5.5 and 5.9 for six months and was 6.2 in January"
    ),
    faithful("renal", "He is not on dialysis", "negated"),
    faithful("renal", "Darbepoetin 40 micrograms fortnightly, continued"),
]

CHANGED = [
    # a qualifier just before the quote
    changed("us_hp", "obstructive sleep apnea and has never had a sleep study", "context_cut"),
    changed("us_hp", "deep vein thrombosis", "negation_mismatch"),
    changed("us_hp", "chest pain, orthopnea or paroxysmal nocturnal dyspnea", "negation_mismatch"),
    changed("us_hp", "obstructive sleep apnea: STOP-BANG 6", "context_cut"),
    changed("us_hp", "malignant hyperthermia", "context_cut"),
    changed("us_hp", "breast cancer", "context_cut"),
    changed("us_hp", "myocardial infarction at 58", "context_cut"),
    changed("us_hp", "latex allergy", "negation_mismatch"),
    changed("uk_letter", "mitral regurgitation on her most recent echocardiogram", "context_cut"),
    changed("uk_letter", "obstructive sleep apnoea, with a STOP-BANG score of 5", "context_cut"),
    changed("uk_letter", "bridging is required", "negation_mismatch"),
    changed("ehr_summary", "Amiodarone lung toxicity on CT", "context_cut"),
    changed("ehr_summary", "early cirrhosis on ultrasound", "context_cut"),
    changed("ehr_summary", "pulmonary embolism if D-dimer raised", "context_cut"),
    changed("ehr_summary", "syncope", "negation_mismatch"),
    changed("ehr_summary", "obstructive sleep apnoea - STOP-BANG 5", "context_cut"),
    changed("ehr_summary", "COPD on spirometry", "context_cut"),
    changed("ehr_summary", "aortic stenosis", "context_cut"),
    changed("ehr_summary", "LV systolic impairment", "context_cut"),
    changed(
        "dictation", "recent exacerbations or hospitalizations for asthma", "negation_mismatch"
    ),
    changed("dictation", "deep vein thrombosis or pulmonary embolism", "negation_mismatch"),
    changed("dictation", "pulmonary embolism after a hip replacement", "context_cut"),
    changed("dictation", "obstructive sleep apnea", "context_cut"),
    changed("us_consult", "nonobstructive disease", "context_cut"),
    changed("us_consult", "total knee arthroplasty", "context_cut"),
    changed("us_consult", "postoperative delirium given mild cognitive impairment", "context_cut"),
    changed("uk_letter", "breast cancer", "context_cut"),
    # a trailing clause that negates, conditions or qualifies what was quoted
    changed(
        "us_hp",
        "Pulmonary embolism was considered in the emergency department in April",
        "context_cut",
    ),
    changed("us_hp", "nitroglycerin 0.4 mg sublingual every 5 minutes", "context_cut"),
    changed("us_hp", "oxycodone 5 mg every 6 hours", "context_cut"),
    changed("us_hp", "hold clopidogrel for 5 days before surgery", "context_cut"),
    changed("us_hp", "CPAP postoperatively", "context_cut"),
    changed("us_hp", "sliding scale insulin", "context_cut"),
    changed("uk_letter", "apixaban to be omitted for 48 hours before surgery", "context_cut"),
    changed("uk_letter", "paracetamol 1 g four times daily", "context_cut"),
    changed("uk_letter", "Spinal anaesthesia is not planned", "context_cut"),
    changed("uk_letter", "A left ventricular thrombus", "context_cut"),
    changed("uk_letter", "Her echo report lists mitral regurgitation", "context_cut"),
    changed("ehr_summary", "Rule out pulmonary embolism", "context_cut"),
    changed("ehr_summary", "Hyperkalaemia 6.1", "negation_mismatch"),
    changed("ehr_summary", "Ondansetron 4 mg PO q8h", "context_cut"),
    changed("ehr_summary", "Lorazepam 0.5 mg PO at bedtime", "context_cut"),
    changed("dictation", "albuterol two puffs every four hours", "context_cut"),
    changed("us_consult", "A cardiac stress test is recommended", "context_cut"),
    changed("discharge", "Blood cultures", "negation_mismatch"),
    changed(
        "anticoagulation",
        "you will need bridging with enoxaparin while the warfarin is stopped",
        "context_cut",
    ),
    changed("anticoagulation", "vitamin K 2 mg orally will be given", "context_cut"),
    changed(
        "anticoagulation",
        "Restart warfarin at your usual dose on the evening of surgery",
        "context_cut",
    ),
    changed("anticoagulation", "bleeding since", "negation_mismatch"),
    changed("renal", "on dialysis", "negation_mismatch"),
    changed("renal", "A fistula is planned for May", "context_cut"),
    changed("renal", "gadolinium", "context_cut"),
    changed("renal", "the transplant list", "negation_mismatch"),
    changed("discharge", "A CT angiogram was not performed, and pulmonary embolism", "context_cut"),
    changed("discharge", "Acetaminophen 650 mg p.o. q.6h.", "context_cut"),
    changed("discharge", "lower lobe infiltrate", "context_cut"),
    # two rows of a table joined
    changed("uk_letter", "mmol/L 3.5-5.3 eGFR 38", "row_join"),
    changed("uk_letter", "eGFR 38 mL/min >60 Platelets", "row_join"),
    changed("ehr_summary", "Bisoprolol 2.5 mg PO daily Ondansetron", "row_join"),
    changed("ehr_summary", "Hodgkin lymphoma Remission 2009 Atrial fibrillation", "row_join"),
    changed("us_consult", "home readings around 135/85 Type 2 diabetes", "row_join"),
    changed("us_consult", "gliclazide 80 mg daily CKD stage 3b", "row_join"),
    changed(
        "discharge", "Amoxicillin-clavulanate 875 mg p.o. b.i.d. for 7 days", "number_mismatch"
    ),
    changed("renal", "eGFR 16 mL/min/1.73m2 Potassium 5.7", "row_join"),
    changed("renal", "(H) Bicarbonate 19", "row_join"),
    changed("anticoagulation", "your target INR is 2.5", "number_mismatch"),
    # a number, a unit or a negation changed
    changed("us_hp", "metformin 500 mg twice daily", "number_mismatch"),
    changed("uk_letter", "apixaban 2.5 mg twice daily", "number_mismatch"),
    changed("uk_letter", "Potassium 5.6 mmol/L", "number_mismatch"),
    changed("us_consult", "Bridging with enoxaparin is indicated", "negation_mismatch"),
    changed("ehr_summary", "Bleeding on apixaban", "negation_mismatch"),
]
