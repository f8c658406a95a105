"""The benchmark's synthetic patient: a long, deterministic, clinically plausible record.

`bench_record(min_tokens, count_tokens)` builds a pre-operative record (referral letter,
clinic assessment, investigations, medication chart) and then appends dated ward notes and
blood results until the record block the agents see (`build_record_block`) holds at least
`min_tokens` tokens. Tokens are counted by `count_tokens` (the model's tokenizer) when given,
else by `estimate_tokens`, a conservative count for tokenizers that split digits (Gemma,
Llama 2, Mistral): one token per run of letters, per digit and per punctuation mark. On the
bench record it counts 15% fewer tokens than Gemma 3's tokenizer (3,694 vs 4,352).

`alignment_record(min_chars)` is the same patient grown to a given size in characters (the
500 kB alignment benchmark), and `alignment_extracts` the extracts a panel would quote from
it: verbatim lines, lines with a typo, lines with a changed number, and invented text.

`screening_record(days)` is the same patient over `days` days of a long admission in which
the screen has work on every page: results that cross a gate and are then superseded, a
troponin series, saturations on air and on oxygen, repeats, a lab table; the screen's
scaling figure compares a record 8 times longer with the base one.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable
from dataclasses import dataclass

from concord.agents.prompts import build_record_block
from concord.domain.record import Record, SourceDocument

TokenCounter = Callable[[str], int]

BENCH_SEED = 7
OPERATION = "Elective laparoscopic right hemicolectomy for caecal adenocarcinoma"
MAX_GROW_STEPS = 12
_TOKEN_UNITS = re.compile(r"[^\W\d_]+|\d|[^\w\s]")

REFERRAL = """Colorectal Surgery - Riverside General Hospital
Date: 02/03/2027

Dear Pre-operative Assessment Team,

Re: Mr Arthur PENROSE   DOB 14/09/1951   MRN RG-4471902

Thank you for assessing this 75-year-old retired electrician listed for an elective
laparoscopic right hemicolectomy for a caecal adenocarcinoma (T3 N0 on staging CT), planned
for 24/03/2027. He presented with iron deficiency anaemia, haemoglobin 94 g/L at diagnosis.

Background: ischaemic heart disease with a drug-eluting stent to the LAD in 2019, type 2
diabetes on insulin, chronic kidney disease stage 3b, COPD (ex-smoker, 40 pack-years),
obstructive sleep apnoea on CPAP, and atrial fibrillation anticoagulated with apixaban.

He is keen to proceed. Please optimise before surgery and advise on anticoagulation.
"""

CLINIC = """Pre-operative assessment clinic - 09/03/2027
Seen with his daughter. Walks 200 m on the flat before stopping for breath; manages one
flight of stairs slowly. Duke Activity Status Index 18. Clinical Frailty Scale 4.
Angina: occasional exertional chest tightness relieved by GTN, no rest pain.
Airway: Mallampati 3, thyromental distance 5.5 cm, limited neck extension, full dentures.
Previous anaesthetics: coronary stent under sedation 2019; knee replacement 2012 under
spinal, post-operative delirium for two days.
Observations: BP 148/86, HR 88 irregularly irregular, SpO2 93% on air, RR 18, temp 36.8.
Weight 96 kg, height 1.74 m, BMI 31.7.
Allergies: penicillin (rash), codeine (vomiting).
"""

INVESTIGATIONS = """Investigations
ECG 09/03/2027: atrial fibrillation, ventricular rate 86/min, left axis deviation, Q waves
in V1-V3, QTc 452 ms.
Echocardiogram 01/02/2027: LV mildly dilated, ejection fraction 40% (Simpson's biplane),
anterior hypokinesia, moderate mitral regurgitation, aortic valve sclerosis without
stenosis (peak velocity 2.1 m/s), PASP 38 mmHg.
Spirometry 20/02/2027: FEV1 1.62 L (58% predicted), FVC 2.91 L, FEV1/FVC 0.56.
Arterial blood gas on air: pH 7.41, PaO2 8.9 kPa, PaCO2 5.6 kPa, bicarbonate 26 mmol/L.
CT chest/abdomen/pelvis 14/02/2027: caecal mass, no distant metastases, emphysema.
"""

MEDICATIONS = """Medication chart (reconciled 09/03/2027)
Apixaban 5 mg twice daily
Clopidogrel 75 mg once daily
Bisoprolol 5 mg once daily
Ramipril 5 mg once daily
Atorvastatin 80 mg at night
Furosemide 40 mg in the morning
Insulin glargine 32 units at night
Metformin 500 mg twice daily
Tiotropium 18 micrograms inhaled once daily
Salbutamol 100 micrograms inhaled as required
Ferrous fumarate 210 mg twice daily
Omeprazole 20 mg once daily
"""

_NOTE_OPENINGS = (
    "Reviewed on the ward round.",
    "Seen in the pre-operative optimisation clinic.",
    "Telephone review with the patient and his daughter.",
    "Nurse-led review.",
    "Reviewed by the anaesthetic registrar.",
)
_NOTE_FINDINGS = (
    "Breathless on exertion, no orthopnoea, ankles mildly swollen.",
    "Chest clear apart from a scattered wheeze; no sputum.",
    "Reports two episodes of exertional chest tightness this week, settled with GTN.",
    "Capillary glucose readings 7 to 14 mmol/L; no hypoglycaemia reported.",
    "Using CPAP most nights; daughter reports loud snoring when it is off.",
    "Appetite reduced; weight stable. Bowels open, no rectal bleeding.",
    "Mild confusion in the evening noted by the family, orientated today.",
    "Took apixaban this morning as usual; no bleeding or bruising.",
)
_NOTE_PLANS = (
    "Plan: repeat U&E and FBC, continue current medicines.",
    "Plan: iron infusion booked, review haemoglobin in one week.",
    "Plan: discuss anticoagulation bridging with haematology.",
    "Plan: cardiology opinion on stent and antiplatelet management before surgery.",
    "Plan: optimise inhaler technique, respiratory nurse to review.",
    "Plan: diabetes team to advise on peri-operative insulin.",
)


def estimate_tokens(text: str) -> int:
    """A conservative token count of `text` for subword tokenizers that split digits: one
    token per run of letters, per digit and per punctuation mark."""
    return len(_TOKEN_UNITS.findall(text))


def _day_label(day: int) -> str:
    month, day_of_month = divmod(day, 28)
    return f"{day_of_month + 1:02d}/{(month % 12) + 1:02d}/2026"


def _ward_note(rng: random.Random, day: int) -> str:
    systolic = rng.randint(118, 162)
    lines = [
        f"{_day_label(day)} {rng.randint(8, 18):02d}:{rng.choice(('00', '15', '30', '45'))}"
        f" {rng.choice(_NOTE_OPENINGS)}",
        f"Obs: BP {systolic}/{rng.randint(62, 94)}, HR {rng.randint(70, 112)} irregular, "
        f"SpO2 {rng.randint(90, 96)}% on air, RR {rng.randint(14, 24)}, "
        f"temp {rng.uniform(36.2, 37.6):.1f}.",
        rng.choice(_NOTE_FINDINGS),
        rng.choice(_NOTE_FINDINGS),
        rng.choice(_NOTE_PLANS),
    ]
    return "\n".join(lines)


def _bloods(rng: random.Random, day: int) -> str:
    return (
        f"{_day_label(day)}: Hb {rng.randint(88, 112)} g/L, WCC {rng.uniform(5.0, 11.5):.1f}, "
        f"platelets {rng.randint(140, 320)}, Na {rng.randint(133, 142)} mmol/L, "
        f"K+ {rng.uniform(4.2, 5.6):.1f} mmol/L, urea {rng.uniform(8.0, 15.0):.1f}, "
        f"creatinine {rng.randint(138, 196)} umol/L, eGFR {rng.randint(30, 42)}, "
        f"HbA1c {rng.randint(58, 74)} mmol/mol, INR {rng.uniform(1.0, 1.3):.1f}"
    )


def _record(days: int, seed: int) -> Record:
    rng = random.Random(seed)
    notes = [_ward_note(rng, day) for day in range(days)]
    bloods = [_bloods(rng, day) for day in range(days)]
    # One result a gate must catch: the latest potassium (an earlier one would be superseded
    # by the normal results after it - the screen reads the latest value).
    marker = max(0, days - 1)
    if bloods:
        bloods[marker] = re.sub(r"K\+ \d\.\d", "K+ 6.2", bloods[marker], count=1)
    documents = (
        SourceDocument(source_id="referral", title="Surgical referral", kind="txt", text=REFERRAL),
        SourceDocument(source_id="clinic", title="Pre-operative clinic", kind="txt", text=CLINIC),
        SourceDocument(
            source_id="investigations", title="Investigations", kind="txt", text=INVESTIGATIONS
        ),
        SourceDocument(
            source_id="medications", title="Medication chart", kind="txt", text=MEDICATIONS
        ),
        SourceDocument(
            source_id="bloods",
            title="Blood results",
            kind="txt",
            text="Blood results\n" + "\n".join(bloods) + "\n",
        ),
        SourceDocument(
            source_id="notes",
            title="Ward and clinic notes",
            kind="txt",
            text="\n\n".join(notes) + "\n",
        ),
    )
    return Record(
        name=f"Bench patient ({days} days, synthetic)", documents=documents, operation=OPERATION
    )


@dataclass(frozen=True)
class BenchRecord:
    record: Record
    tokens: int  # of the record block the agents see
    counted_by: str  # "model tokenizer" or "estimate (conservative)"


def bench_record(
    min_tokens: int, count_tokens: TokenCounter | None = None, seed: int = BENCH_SEED
) -> BenchRecord:
    """The smallest generated record whose record block holds at least `min_tokens`."""
    counter = count_tokens or estimate_tokens
    days = 1
    for _ in range(MAX_GROW_STEPS):
        record = _record(days, seed)
        tokens = counter(build_record_block(record))
        if tokens >= min_tokens:
            by = "model tokenizer" if count_tokens else "estimate (conservative)"
            return BenchRecord(record, tokens, by)
        base = counter(build_record_block(_record(0, seed)))
        per_day = max(1.0, (tokens - base) / days)
        days = max(days + 1, math.ceil((min_tokens - base) / per_day * 1.02))
    raise RuntimeError(f"could not grow the bench record to {min_tokens} tokens")


def alignment_record(min_chars: int, seed: int = BENCH_SEED) -> Record:
    """The bench patient with enough days of notes that the record holds `min_chars`."""
    days = 8
    while True:
        record = _record(days, seed)
        size = sum(len(d.text) for d in record.documents)
        if size >= min_chars:
            return record
        days = math.ceil(days * min_chars / size * 1.01)


def alignment_extracts(record: Record, count: int, seed: int = BENCH_SEED) -> list[str]:
    """`count` extracts: a quarter verbatim lines, a quarter with a typo, a quarter with a
    changed number, a quarter invented."""
    rng = random.Random(seed)
    lines = [line.text.strip() for line in record.lines if len(line.text.strip()) > 25]
    out: list[str] = []
    for n in range(count):
        text = rng.choice(lines)
        kind = n % 4
        if kind == 1:
            cut = rng.randrange(3, len(text) - 3)
            text = text[:cut] + text[cut + 1 :]
        elif kind == 2:
            text = re.sub(r"\d", lambda m: str((int(m.group()) + 3) % 10), text, count=1)
        elif kind == 3:
            text = (
                f"patient reports {rng.choice(('new', 'worsening'))} calf pain on day "
                f"{rng.randint(1, 400)}"
            )
        out.append(text)
    return out


_EVENTS = (
    "K+ {k} mmol/L at 06:00, repeat K+ {k2} mmol/L after insulin-dextrose.",
    "Troponin T {t1} -> {t2} ng/L (0 h, 3 h); chest pain settled with GTN, ECG unchanged.",
    "SpO2 {s}% on air, {s2}% on 2 L/min nasal cannulae; chest clear.",
    "Platelets {p} x10^9/L (150-400) L; INR {i}. Haematology aware.",
    "Plan: target K+ < 5.5; cancel if INR > 1.5 on the day of surgery.",
    "Family history: father had a coronary stent; mother had pneumonia.",
)


def screening_record(days: int, seed: int = BENCH_SEED) -> Record:
    """The bench patient over `days` days, each ward note also carrying one of the events a
    screen must read (values that cross and are superseded, series, targets, context), and
    a results table every week."""
    base = _record(days, seed)
    rng = random.Random(seed + 1)
    notes = base.document("notes").text.rstrip("\n").split("\n\n")
    extended = []
    for day, note in enumerate(notes):
        event = _EVENTS[day % len(_EVENTS)].format(
            k=f"{rng.uniform(5.8, 6.6):.1f}",
            k2=f"{rng.uniform(4.2, 5.2):.1f}",
            t1=rng.randint(8, 20),
            t2=rng.randint(10, 90),
            s=rng.randint(86, 95),
            s2=rng.randint(93, 98),
            p=rng.randint(60, 180),
            i=f"{rng.uniform(1.0, 1.9):.1f}",
        )
        table = ""
        if day % 7 == 6:
            table = (
                "\nTest        Result  Flag  Range      Units\n"
                f"Potassium   {rng.uniform(4.0, 6.4):.1f}     H     3.5-5.3    mmol/L\n"
                f"Platelets   {rng.randint(70, 300)}           150-400    x10^9/L\n"
                f"INR         {rng.uniform(0.9, 1.8):.1f}           0.8-1.2"
            )
        extended.append(f"{note}\n{event}{table}")
    documents = tuple(
        d.model_copy(update={"text": "\n\n".join(extended) + "\n"}) if d.source_id == "notes" else d
        for d in base.documents
    )
    return Record(name=f"Screening patient ({days} days, synthetic)", documents=documents)
