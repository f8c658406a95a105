"""Synthetic FHIR R4 bundles written for Concord's tests and demo (no real patient).

They are shaped like EHR exports: urn:uuid fullUrls, LOINC-coded labs with UCUM units and
reference ranges, SNOMED-coded conditions and procedures, RxNorm/ATC-coded medicines, a
Medication resource for a chemotherapy regimen with its ingredients, DocumentReferences
carrying clinic letters (plain text, a text PDF, a scanned image-only PDF).

`python -m tests.records.fhir_bundles` rewrites the committed fixtures in
tests/fixtures/records/fhir/ and the FHIR demo patient in resources/demo/.
"""

from __future__ import annotations

import base64
import io
import json
import uuid
from pathlib import Path
from typing import Any

LOINC = "http://loinc.org"
SNOMED = "http://snomed.info/sct"
RXNORM = "http://www.nlm.nih.gov/research/umls/rxnorm"
ATC = "http://www.whocc.no/atc"
UCUM = "http://unitsofmeasure.org"
CLINICAL = "http://terminology.hl7.org/CodeSystem/condition-clinical"
VERIFICATION = "http://terminology.hl7.org/CodeSystem/condition-ver-status"
ALLERGY_CLINICAL = "http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical"
ALLERGY_VERIFICATION = "http://terminology.hl7.org/CodeSystem/allergyintolerance-verification"
ICD10 = "http://hl7.org/fhir/sid/icd-10"
ICD10CM = "http://hl7.org/fhir/sid/icd-10-cm"
OBS_CATEGORY = "http://terminology.hl7.org/CodeSystem/observation-category"
INTERPRETATION = "http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation"

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "records" / "fhir"


def _uuid(seed: str) -> str:
    return f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, 'concord-test/' + seed)}"


def concept(system: str, code: str, display: str, text: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"coding": [{"system": system, "code": code, "display": display}]}
    if text:
        out["text"] = text
    return out


class BundleBuilder:
    """Collects resources for one patient; `bundle()` returns the JSON dict."""

    def __init__(self, key: str, bundle_type: str = "collection") -> None:
        self.key = key
        self.bundle_type = bundle_type
        self.entries: list[dict[str, Any]] = []
        self.patient_url = ""

    def add(self, resource: dict[str, Any]) -> str:
        url = _uuid(f"{self.key}/{resource['resourceType']}/{resource['id']}")
        entry: dict[str, Any] = {"fullUrl": url, "resource": resource}
        if self.bundle_type == "transaction":
            entry["request"] = {"method": "POST", "url": resource["resourceType"]}
        self.entries.append(entry)
        return url

    def patient(self, rid: str, given: str, family: str, born: str, sex: str, nhs: str) -> str:
        self.patient_url = self.add(
            {
                "resourceType": "Patient",
                "id": rid,
                "identifier": [{"system": "https://fhir.nhs.uk/Id/nhs-number", "value": nhs}],
                "name": [{"family": family, "given": [given]}],
                "gender": sex,
                "birthDate": born,
            }
        )
        return self.patient_url

    def _subject(self) -> dict[str, str]:
        return {"reference": self.patient_url}

    def lab(
        self,
        rid: str,
        code: str,
        display: str,
        text: str,
        value: float,
        unit: str,
        when: str,
        low: float | None = None,
        high: float | None = None,
        flag: str | None = None,
        category: str = "laboratory",
        components: list[dict[str, Any]] | None = None,
        ucum_code: str | None = None,
    ) -> str:
        resource: dict[str, Any] = {
            "resourceType": "Observation",
            "id": rid,
            "status": "final",
            "category": [concept(OBS_CATEGORY, category, category.replace("-", " ").title())],
            "code": concept(LOINC, code, display, text),
            "subject": self._subject(),
            "effectiveDateTime": when,
            "valueQuantity": {
                "value": value,
                "unit": unit,
                "system": UCUM,
                "code": ucum_code or unit,
            },
        }
        if low is not None or high is not None:
            rng: dict[str, Any] = {}
            if low is not None:
                rng["low"] = {"value": low, "unit": unit, "system": UCUM, "code": ucum_code or unit}
            if high is not None:
                rng["high"] = {
                    "value": high,
                    "unit": unit,
                    "system": UCUM,
                    "code": ucum_code or unit,
                }
            resource["referenceRange"] = [rng]
        if flag:
            resource["interpretation"] = [concept(INTERPRETATION, flag, flag)]
        if components:
            resource["component"] = components
        return self.add(resource)

    def condition(
        self,
        rid: str,
        code: str,
        display: str,
        text: str,
        clinical: str,
        onset: str | None = None,
        abated: str | None = None,
        verification: str = "confirmed",
        system: str = SNOMED,
    ) -> str:
        resource: dict[str, Any] = {
            "resourceType": "Condition",
            "id": rid,
            "clinicalStatus": concept(CLINICAL, clinical, clinical.title()),
            "verificationStatus": concept(VERIFICATION, verification, verification.title()),
            "category": [
                concept(
                    "http://terminology.hl7.org/CodeSystem/condition-category",
                    "problem-list-item",
                    "Problem List Item",
                )
            ],
            "code": concept(system, code, display, text),
            "subject": self._subject(),
        }
        if onset:
            resource["onsetDateTime"] = onset
        if abated:
            resource["abatementDateTime"] = abated
        return self.add(resource)

    def medication_statement(
        self,
        rid: str,
        name: str,
        codes: list[tuple[str, str, str]],
        status: str,
        dosage: str,
        start: str | None = None,
        end: str | None = None,
        medication_ref: str | None = None,
    ) -> str:
        resource: dict[str, Any] = {
            "resourceType": "MedicationStatement",
            "id": rid,
            "status": status,
            "subject": self._subject(),
            "dosage": [{"text": dosage}],
        }
        if medication_ref:
            resource["medicationReference"] = {"reference": medication_ref}
        else:
            resource["medicationCodeableConcept"] = {
                "coding": [{"system": s, "code": c, "display": d} for s, c, d in codes],
                "text": name,
            }
        if start or end:
            resource["effectivePeriod"] = {k: v for k, v in (("start", start), ("end", end)) if v}
        return self.add(resource)

    def procedure(
        self,
        rid: str,
        code: str,
        display: str,
        text: str,
        status: str,
        when: str,
        device_ref: str | None = None,
        note: str | None = None,
        system: str = SNOMED,
    ) -> str:
        resource: dict[str, Any] = {
            "resourceType": "Procedure",
            "id": rid,
            "status": status,
            "code": concept(system, code, display, text),
            "subject": self._subject(),
            "performedDateTime": when,
        }
        if device_ref:
            resource["focalDevice"] = [{"manipulated": {"reference": device_ref}}]
        if note:
            resource["note"] = [{"text": note}]
        return self.add(resource)

    def medication_request(
        self,
        rid: str,
        name: str,
        codes: list[tuple[str, str, str]],
        status: str,
        dosage: str,
        authored: str,
        intent: str = "order",
    ) -> str:
        return self.add(
            {
                "resourceType": "MedicationRequest",
                "id": rid,
                "status": status,
                "intent": intent,
                "medicationCodeableConcept": {
                    "coding": [{"system": s, "code": c, "display": d} for s, c, d in codes],
                    "text": name,
                },
                "subject": self._subject(),
                "authoredOn": authored,
                "dosageInstruction": [{"text": dosage}],
            }
        )

    def medication_administration(
        self,
        rid: str,
        name: str,
        codes: list[tuple[str, str, str]],
        status: str,
        when: str,
        dose: str,
    ) -> str:
        return self.add(
            {
                "resourceType": "MedicationAdministration",
                "id": rid,
                "status": status,
                "medicationCodeableConcept": {
                    "coding": [{"system": s, "code": c, "display": d} for s, c, d in codes],
                    "text": name,
                },
                "subject": self._subject(),
                "effectiveDateTime": when,
                "dosage": {"text": dose},
            }
        )

    def device(self, rid: str, code: str, display: str, text: str, status: str) -> str:
        return self.add(
            {
                "resourceType": "Device",
                "id": rid,
                "status": status,
                "type": concept(SNOMED, code, display, text),
                "patient": {"reference": self.patient_url},
            }
        )

    def allergy(
        self,
        rid: str,
        codes: list[tuple[str, str, str]],
        text: str,
        clinical: str = "active",
        verification: str = "confirmed",
        reaction: str | None = None,
    ) -> str:
        resource: dict[str, Any] = {
            "resourceType": "AllergyIntolerance",
            "id": rid,
            "clinicalStatus": concept(ALLERGY_CLINICAL, clinical, clinical.title()),
            "verificationStatus": concept(ALLERGY_VERIFICATION, verification, verification.title()),
            "code": {
                "coding": [{"system": s, "code": c, "display": d} for s, c, d in codes],
                "text": text,
            },
            "patient": {"reference": self.patient_url},
        }
        if reaction:
            resource["reaction"] = [{"manifestation": [concept(SNOMED, "39579001", reaction)]}]
        return self.add(resource)

    def result(
        self, rid: str, code: str, display: str, text: str, value: tuple[str, str], when: str
    ) -> str:
        """A qualitative (coded) result: `value` is (SNOMED code, display)."""
        return self.add(
            {
                "resourceType": "Observation",
                "id": rid,
                "status": "final",
                "category": [concept(OBS_CATEGORY, "laboratory", "Laboratory")],
                "code": concept(LOINC, code, display, text),
                "subject": self._subject(),
                "effectiveDateTime": when,
                "valueCodeableConcept": concept(SNOMED, value[0], value[1]),
            }
        )

    def letter(
        self,
        rid: str,
        title: str,
        when: str,
        author: str,
        content_type: str,
        data: bytes,
    ) -> str:
        return self.add(
            {
                "resourceType": "DocumentReference",
                "id": rid,
                "status": "current",
                "type": concept(LOINC, "11488-4", "Consult note", title),
                "subject": self._subject(),
                "date": f"{when}T09:00:00Z",
                "author": [{"display": author}],
                "content": [
                    {
                        "attachment": {
                            "contentType": content_type,
                            "data": base64.b64encode(data).decode("ascii"),
                            "title": title,
                        }
                    }
                ],
            }
        )

    def bundle(self) -> dict[str, Any]:
        return {
            "resourceType": "Bundle",
            "id": f"concord-{self.key}",
            "type": self.bundle_type,
            "entry": self.entries,
        }


def spo2(b: BundleBuilder, rid: str, value: float, when: str, fio2: float | None) -> str:
    """A pulse-oximetry SpO2 with its inspired-oxygen context as a component."""
    components = []
    if fio2 is not None:
        components.append(
            {
                "code": concept(LOINC, "3150-0", "Inhaled oxygen concentration", "FiO2"),
                "valueQuantity": {"value": fio2, "unit": "%", "system": UCUM, "code": "%"},
            }
        )
    return b.lab(
        rid,
        "59408-5",
        "Oxygen saturation in Arterial blood by Pulse oximetry",
        "SpO2",
        value,
        "%",
        when,
        category="vital-signs",
        components=components or None,
    )


def blood_pressure(b: BundleBuilder, rid: str, systolic: float, diastolic: float, when: str) -> str:
    """A blood pressure panel (85354-9) with its systolic and diastolic components."""
    parts = []
    for code, display, value in (
        ("8480-6", "Systolic blood pressure", systolic),
        ("8462-4", "Diastolic blood pressure", diastolic),
    ):
        parts.append(
            {
                "code": concept(LOINC, code, display),
                "valueQuantity": {"value": value, "unit": "mmHg", "system": UCUM, "code": "mm[Hg]"},
            }
        )
    resource: dict[str, Any] = {
        "resourceType": "Observation",
        "id": rid,
        "status": "final",
        "category": [concept(OBS_CATEGORY, "vital-signs", "Vital Signs")],
        "code": concept(LOINC, "85354-9", "Blood pressure panel with all children optional"),
        "subject": {"reference": b.patient_url},
        "effectiveDateTime": when,
        "component": parts,
    }
    return b.add(resource)


# -- the patients -----------------------------------------------------------------------

RENAL_LETTER = """Renal Outpatients - Westmere University Hospital
Date: 02/02/2027

Dear Dr Lindqvist,

Re: Peter HALLORAN, DOB 03/05/1958, MRN WM0093812

Reviewed in the CKD clinic. Stage 4 CKD secondary to diabetic nephropathy, eGFR 19.
Bloods today: K+ 4.1 mmol/L, bicarbonate 19, Hb 98 g/L.
He is listed for a left radiocephalic AV fistula on 24/02/2027.
Please continue ramipril 2.5 mg OD for now; low potassium diet reinforced.

Dr S. Marchetti, Consultant Nephrologist
"""


def halloran() -> dict[str, Any]:
    """CKD 4 before AV fistula: a coded K+ 6.4 (latest) that the clinic letter (K+ 4.1,
    earlier) contradicts; platelets 88, INR 1.6, a rising troponin."""
    b = BundleBuilder("halloran")
    b.patient("halloran", "Peter", "Halloran", "1958-05-03", "male", "9434765919")
    b.condition(
        "ckd", "431857002", "Chronic kidney disease stage 4", "CKD stage 4", "active", "2023-06-01"
    )
    b.lab(
        "k-old",
        "2823-3",
        "Potassium [Moles/volume] in Serum or Plasma",
        "Potassium",
        5.1,
        "mmol/L",
        "2027-01-12T09:10:00Z",
        3.5,
        5.3,
    )
    b.lab(
        "k-new",
        "2823-3",
        "Potassium [Moles/volume] in Serum or Plasma",
        "Potassium",
        6.4,
        "mmol/L",
        "2027-02-19T07:42:00Z",
        3.5,
        5.3,
        "H",
    )
    b.lab(
        "plt",
        "777-3",
        "Platelets [#/volume] in Blood by Automated count",
        "Platelets",
        88,
        "10*9/L",
        "2027-02-19T07:42:00Z",
        150,
        410,
        "L",
    )
    b.lab(
        "inr",
        "6301-6",
        "INR in Platelet poor plasma by Coagulation assay",
        "INR",
        1.6,
        "{INR}",
        "2027-02-19T07:42:00Z",
        0.8,
        1.2,
        "H",
    )
    b.lab(
        "tnt-1",
        "67151-1",
        "Troponin T.cardiac [Mass/volume] in Serum or Plasma by High sensitivity method",
        "hs Troponin T",
        14,
        "ng/L",
        "2027-02-19T07:42:00Z",
        high=14,
    )
    b.lab(
        "tnt-2",
        "67151-1",
        "Troponin T.cardiac [Mass/volume] in Serum or Plasma by High sensitivity method",
        "hs Troponin T",
        61,
        "ng/L",
        "2027-02-19T10:45:00Z",
        high=14,
        flag="H",
    )
    b.medication_statement(
        "ramipril",
        "ramipril 2.5 mg capsules",
        [(RXNORM, "35296", "ramipril")],
        "active",
        "2.5 mg once daily",
        "2024-01-10",
    )
    b.medication_statement(
        "furosemide",
        "furosemide 40 mg tablets",
        [(RXNORM, "4603", "furosemide")],
        "active",
        "40 mg each morning",
        "2025-03-02",
    )
    b.procedure(
        "avf",
        "233577003",
        "Creation of arteriovenous fistula",
        "Left radiocephalic AV fistula",
        "preparation",
        "2027-02-24",
    )
    b.letter(
        "renal-letter",
        "Renal clinic letter",
        "2027-02-02",
        "Dr S. Marchetti",
        "text/plain",
        RENAL_LETTER.encode(),
    )
    return b.bundle()


CARDIOLOGY_LETTER_LINES = [
    "Department of Cardiology - Westmere University Hospital",
    "Date: 31/10/2026",
    "Re: Graham PELL, 67 yrs",
    "Elective PCI on 20/10/2026: one drug-eluting stent to the proximal LAD.",
    "Continue aspirin 75 mg OD and ticagrelor 90 mg BD for 12 months;",
    "no interruption of dual antiplatelet therapy without discussion.",
    "Dr A. Fenwick, Consultant Interventional Cardiologist",
]


def text_pdf(lines: list[str]) -> bytes:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    pdf = canvas.Canvas(out, pagesize=A4, invariant=1)
    y = 800
    for line in lines:
        pdf.drawString(60, y, line)
        y -= 16
    pdf.showPage()
    pdf.save()
    return out.getvalue()


def pell() -> dict[str, Any]:
    """A drug-eluting stent six weeks before an inguinal hernia repair (a Procedure with a
    coded Device), on DAPT; the cardiology letter as a text PDF; a transaction bundle."""
    b = BundleBuilder("pell", "transaction")
    b.patient("pell", "Graham", "Pell", "1959-03-14", "male", "9431176620")
    stent = b.add(
        {
            "resourceType": "Device",
            "id": "stent-lad",
            "status": "active",
            "type": concept(
                SNOMED, "705643001", "Coronary artery stent", "Drug-eluting coronary stent"
            ),
            "deviceName": [
                {"name": "everolimus-eluting stent 3.0 x 28 mm", "type": "user-friendly-name"}
            ],
            "patient": {"reference": b.patient_url},
        }
    )
    b.procedure(
        "pci",
        "415070008",
        "Percutaneous coronary intervention",
        "PCI with drug-eluting stent to proximal LAD",
        "completed",
        "2026-10-20",
        stent,
    )
    b.procedure(
        "hernia",
        "44558001",
        "Repair of inguinal hernia",
        "Right inguinal hernia repair",
        "preparation",
        "2026-12-03",
    )
    b.condition(
        "angina", "233819005", "Stable angina", "Stable angina CCS II", "active", "2025-04-01"
    )
    b.medication_statement(
        "aspirin",
        "aspirin 75 mg dispersible tablets",
        [(RXNORM, "1191", "aspirin"), (ATC, "B01AC06", "acetylsalicylic acid")],
        "active",
        "75 mg once daily",
        "2026-10-20",
    )
    b.medication_statement(
        "ticagrelor",
        "ticagrelor 90 mg tablets",
        [(RXNORM, "1116632", "ticagrelor"), (ATC, "B01AC24", "ticagrelor")],
        "active",
        "90 mg twice daily",
        "2026-10-20",
    )
    b.lab(
        "k",
        "2823-3",
        "Potassium [Moles/volume] in Serum or Plasma",
        "Potassium",
        4.3,
        "mmol/L",
        "2026-11-14T09:00:00Z",
        3.5,
        5.3,
    )
    b.lab(
        "plt",
        "777-3",
        "Platelets [#/volume] in Blood by Automated count",
        "Platelets",
        231,
        "10*9/L",
        "2026-11-14T09:00:00Z",
        150,
        410,
    )
    b.letter(
        "cardiology-letter",
        "Cardiology clinic letter",
        "2026-10-31",
        "Dr A. Fenwick",
        "application/pdf",
        text_pdf(CARDIOLOGY_LETTER_LINES),
    )
    return b.bundle()


ECHO_LETTER = """Heart Failure Clinic - St Aldhelm's Hospital
Date: 13/01/2027

Mrs Doreen ASHCROFT, DOB 22/07/1949

Echo 11/01/2027: dilated LV with global hypokinesia, LVEF 30% (biplane Simpson's).
Moderate functional MR. No significant aortic stenosis.
Plan: continue bisoprolol and ramipril, add dapagliflozin 10 mg OD.
INR control on warfarin has been erratic (INR 2.6 to 4.1 this month).
"""


def ashcroft() -> dict[str, Any]:
    """AF on warfarin with HFrEF before a hip replacement: LVEF 30% by echo, INR 2.6,
    SpO2 93% on air; a searchset bundle with an OperationOutcome entry."""
    b = BundleBuilder("ashcroft", "searchset")
    b.patient("ashcroft", "Doreen", "Ashcroft", "1949-07-22", "female", "4862039917")
    b.condition(
        "af", "49436004", "Atrial fibrillation", "Atrial fibrillation", "active", "2019-02-01"
    )
    b.condition(
        "hf",
        "703272007",
        "Heart failure with reduced ejection fraction",
        "HFrEF",
        "active",
        "2024-09-01",
    )
    b.lab(
        "lvef",
        "10230-1",
        "Left ventricular Ejection fraction",
        "LVEF (biplane Simpson's)",
        30,
        "%",
        "2027-01-11",
        category="imaging",
    )
    b.lab(
        "inr",
        "34714-6",
        "INR in Blood by Coagulation assay",
        "INR",
        2.6,
        "{INR}",
        "2027-01-28",
        2.0,
        3.0,
    )
    spo2(b, "sats", 93, "2027-01-28T10:00:00Z", 21)
    b.medication_statement(
        "warfarin",
        "warfarin",
        [(RXNORM, "11289", "warfarin"), (ATC, "B01AA03", "warfarin")],
        "active",
        "as directed by the INR clinic",
        "2019-02-10",
    )
    b.medication_statement(
        "bisoprolol",
        "bisoprolol 2.5 mg tablets",
        [(RXNORM, "19484", "bisoprolol")],
        "active",
        "2.5 mg once daily",
        "2024-09-10",
    )
    b.procedure(
        "thr",
        "52734007",
        "Total replacement of hip",
        "Right total hip replacement",
        "preparation",
        "2027-02-24",
    )
    b.letter(
        "hf-letter",
        "Heart failure clinic letter",
        "2027-01-13",
        "Dr M. Osei",
        "text/plain",
        ECHO_LETTER.encode(),
    )
    bundle = b.bundle()
    for entry in bundle["entry"]:
        entry["search"] = {"mode": "match"}
    bundle["entry"].append(
        {
            "search": {"mode": "outcome"},
            "resource": {
                "resourceType": "OperationOutcome",
                "id": "search-warning",
                "issue": [
                    {
                        "severity": "information",
                        "code": "informational",
                        "diagnostics": "48 results",
                    }
                ],
            },
        }
    )
    return bundle


def scanned_letter_pdf(dpi: int = 100) -> bytes:
    """The oncology letter of the bench pages, printed and faxed: an image-only PDF."""
    from concord.bench.scan_pages import ONCOLOGY_LETTER, PageSpec, image_only_pdf, render_page

    spec = PageSpec(
        name="oncology_letter_demo",
        lines=ONCOLOGY_LETTER,
        font="sans",
        dpi=dpi,
        skew_degrees=0.7,
        noise=0.003,
        blur=0.4,
        fax=dpi <= 100,
        seed=808,
    )
    return image_only_pdf([render_page(spec)], dpi)


def okafor() -> dict[str, Any]:
    """The FHIR demo patient: Hodgkin lymphoma treated with ABVD (a Medication with its
    ingredients, bleomycin among them), COPD with a current community-acquired pneumonia,
    SpO2 89% on room air, before a laparoscopic cholecystectomy; the oncology letter
    arrives as a faxed scan (image-only PDF, 200 dpi)."""
    b = BundleBuilder("okafor")
    b.patient("okafor", "Daniel", "Okafor", "1968-11-02", "male", "4019283746")
    abvd = b.add(
        {
            "resourceType": "Medication",
            "id": "abvd",
            "code": {"text": "ABVD"},
            "ingredient": [
                {"itemCodeableConcept": concept(RXNORM, "3639", "doxorubicin")},
                {"itemCodeableConcept": concept(RXNORM, "1622", "bleomycin")},
                {"itemCodeableConcept": concept(RXNORM, "11202", "vinblastine")},
                {"itemCodeableConcept": concept(RXNORM, "3098", "dacarbazine")},
            ],
        }
    )
    b.condition(
        "hl",
        "118599009",
        "Hodgkin's disease",
        "Classical Hodgkin lymphoma stage IIA",
        "remission",
        "2019-02-11",
    )
    b.condition(
        "copd",
        "13645005",
        "Chronic obstructive lung disease",
        "COPD GOLD 2",
        "active",
        "2016-05-01",
    )
    b.condition(
        "cap",
        "385093006",
        "Community acquired pneumonia",
        "Community acquired pneumonia, right lower lobe",
        "active",
        "2027-03-01",
    )
    b.medication_statement(
        "chemo", "ABVD", [], "completed", "6 cycles", "2019-03-01", "2019-08-20", abvd
    )
    b.medication_statement(
        "amoxicillin",
        "amoxicillin 500 mg capsules",
        [(RXNORM, "723", "amoxicillin")],
        "active",
        "1 g three times daily for 5 days",
        "2027-03-02",
    )
    b.medication_statement(
        "inhaler",
        "tiotropium 2.5 microgram inhaler",
        [(RXNORM, "69120", "tiotropium")],
        "active",
        "2 puffs once daily",
        "2021-01-05",
    )
    spo2(b, "sats", 89, "2027-03-03T09:30:00Z", 21)
    b.lab(
        "k",
        "2823-3",
        "Potassium [Moles/volume] in Serum or Plasma",
        "Potassium",
        4.2,
        "mmol/L",
        "2027-03-03T09:30:00Z",
        3.5,
        5.3,
    )
    b.lab(
        "crp",
        "1988-5",
        "C reactive protein [Mass/volume] in Serum or Plasma",
        "CRP",
        148,
        "mg/L",
        "2027-03-03T09:30:00Z",
        high=5,
        flag="H",
    )
    b.procedure(
        "chole",
        "45595009",
        "Laparoscopic cholecystectomy",
        "Laparoscopic cholecystectomy",
        "preparation",
        "2027-03-18",
    )
    b.letter(
        "oncology-letter",
        "Oncology clinic letter (faxed)",
        "2026-12-14",
        "Dr R. Vasquez-Whitfield",
        "application/pdf",
        scanned_letter_pdf(200),
    )
    return b.bundle()


BUNDLES = {"halloran": halloran, "pell": pell, "ashcroft": ashcroft}
DEMO_FILE = ROOT / "resources" / "demo" / "08_fhir_bundle_scanned_letter.json"


def write_all() -> None:
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name, build in BUNDLES.items():
        (FIXTURES / f"{name}.json").write_text(json.dumps(build(), indent=1) + "\n")
    DEMO_FILE.write_text(json.dumps(okafor(), indent=1) + "\n")


if __name__ == "__main__":
    write_all()
