"""Synthetic scanned pages: clinic letters and lab printouts rendered as a scanner or a fax
machine would deliver them, with the exact text they were rendered from.

A page is drawn with a TrueType font at a given resolution, then degraded the way paper
copies are: a small skew, blur, speckle noise, uneven toner, and for fax-like pages a
1-bit threshold at 100 dpi. `image_only_pdf` wraps pages in a PDF with no text layer, as
a scanner produces. Everything is seeded, so a page is the same on every run.

The texts are invented for Concord (no real patient); the values in them are the kind that
matter pre-operatively (potassium, platelets, INR, LVEF, SpO2, drug names and doses), so
that accuracy is measured where an error would matter.
"""

from __future__ import annotations

import io
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter, ImageFont

A4_INCHES = (8.27, 11.69)
MARGIN_INCHES = 0.9
FONT_DIRS = (
    Path("/usr/share/fonts/truetype/dejavu"),
    Path("/usr/share/fonts/dejavu"),
    Path("/Library/Fonts"),
    Path("C:/Windows/Fonts"),
)


@dataclass(frozen=True)
class PageSpec:
    """How one page is printed and scanned."""

    name: str
    lines: tuple[str, ...]
    font: str  # "serif", "sans" or "mono"
    points: float = 11.0
    dpi: int = 200
    skew_degrees: float = 0.0
    noise: float = 0.0  # fraction of pixels flipped by speckle
    blur: float = 0.0  # Gaussian radius in pixels at this dpi
    fax: bool = False  # 1-bit threshold, as a fax machine sends it
    seed: int = 0

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


_FONT_FILES = {
    "serif": ("DejaVuSerif.ttf", "Vera.ttf"),
    "sans": ("DejaVuSans.ttf", "Vera.ttf"),
    "mono": ("DejaVuSansMono.ttf", "VeraMono.ttf"),
}


def font_path(style: str) -> Path:
    """A TrueType file for the style: DejaVu from the system, else reportlab's Vera."""
    names = _FONT_FILES[style]
    for folder in FONT_DIRS:
        for name in names:
            if (folder / name).is_file():
                return folder / name
    import reportlab

    vera = Path(reportlab.__file__).parent / "fonts"
    for name in names:
        if (vera / name).is_file():
            return vera / name
    raise FileNotFoundError(f"no TrueType font for {style!r} (install fonts-dejavu-core)")


def render_page(spec: PageSpec) -> Image.Image:
    """The page as a grayscale image ("L"), or 1-bit ("1") for a fax."""
    width = round(A4_INCHES[0] * spec.dpi)
    height = round(A4_INCHES[1] * spec.dpi)
    page = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(page)
    size_px = max(6, round(spec.points * spec.dpi / 72))
    font = ImageFont.truetype(str(font_path(spec.font)), size_px)
    x = round(MARGIN_INCHES * spec.dpi)
    y = x
    step = round(size_px * 1.45)
    rng = random.Random(spec.seed)
    for line in spec.lines:
        if line.strip():
            ink = 20 + rng.randrange(40)  # toner varies from line to line
            draw.text((x, y), line, fill=ink, font=font)
        y += step
    if spec.skew_degrees:
        page = page.rotate(spec.skew_degrees, resample=Image.Resampling.BICUBIC, fillcolor=255)
    if spec.blur:
        page = page.filter(ImageFilter.GaussianBlur(spec.blur))
    if spec.noise:
        page = _speckle(page, spec.noise, rng)
    if spec.fax:
        page = page.point(lambda v: 255 if v > 150 else 0).convert("1")
    return page


def _speckle(page: Image.Image, fraction: float, rng: random.Random) -> Image.Image:
    pixels = page.load()
    assert pixels is not None
    width, height = page.size
    for _ in range(int(width * height * fraction)):
        px, py = rng.randrange(width), rng.randrange(height)
        pixels[px, py] = rng.choice((0, 90, 200, 255))
    return page


def image_only_pdf(pages: Sequence[Image.Image], dpi: int) -> bytes:
    """A PDF whose pages are only images (no text layer), as a scanner writes it."""
    out = io.BytesIO()
    first, *rest = [p.convert("L") if p.mode not in ("L", "1") else p for p in pages]
    first.save(out, format="PDF", save_all=True, append_images=rest, resolution=float(dpi))
    return out.getvalue()


# -- the texts --------------------------------------------------------------------------

REFERRAL_LETTER = (
    "Brookfield Medical Practice, 12 Mill Lane, Hartwell HW4 7QP",
    "Tel 01632 960418   Fax 01632 960419",
    "Date: 03/02/2027",
    "",
    "Dear Pre-operative Assessment Clinic,",
    "",
    "Re: Mrs Doreen ASHCROFT   DOB 22/07/1949   NHS No 486 203 9917",
    "",
    "I would be grateful if you would assess this 77 year old lady listed for a right",
    "total hip replacement on 24/02/2027. She has had two admissions this winter.",
    "",
    "Problems: atrial fibrillation; heart failure with reduced ejection fraction,",
    "LVEF 30% on echo 11/01/2027; CKD stage 3b (eGFR 38); type 2 diabetes.",
    "",
    "Recent bloods 28/01/2027: Na 136, K+ 5.9 mmol/L, urea 11.2, creatinine 142,",
    "Hb 104 g/L, platelets 132 x10^9/L, INR 2.6 on warfarin.",
    "",
    "Medication: warfarin as per INR clinic, bisoprolol 2.5 mg OD, ramipril 5 mg OD,",
    "furosemide 40 mg OM, spironolactone 25 mg OD, metformin 500 mg BD,",
    "atorvastatin 40 mg ON. Allergic to penicillin (rash).",
    "",
    "Her oxygen saturations were 93% on room air at the surgery last week.",
    "",
    "Yours sincerely,",
    "Dr H. Okonkwo   GMC 7043318",
)

ONCOLOGY_LETTER = (
    "Department of Clinical Oncology - St Aldhelm's Hospital",
    "Clinic date: 14 December 2026",
    "",
    "Diagnosis: classical Hodgkin lymphoma, stage IIA, diagnosed 2019.",
    "Treatment: ABVD chemotherapy x 6 cycles (doxorubicin, bleomycin,",
    "vinblastine, dacarbazine), completed 08/2019; cumulative bleomycin 120,000 IU.",
    "Involved-site radiotherapy 30 Gy in 15 fractions, completed 11/2019.",
    "",
    "PET-CT 02/2020: complete metabolic response. Remains in remission.",
    "Lung function 2021: FEV1 2.61 L (88%), DLCO 71% predicted.",
    "",
    "Please note bleomycin exposure: keep FiO2 as low as possible for SpO2 88-92%",
    "during any general anaesthetic, and avoid excess crystalloid.",
    "",
    "Dr R. Vasquez-Whitfield, Consultant Clinical Oncologist",
)

LAB_PRINTOUT = (
    "WESTMERE PATHOLOGY - CUMULATIVE REPORT        Printed 19/02/2027 07:42",
    "Patient: HALLORAN, Peter   MRN WM0093812   Ward: PAC",
    "",
    "Test             Result    Units        Ref range     Flag",
    "Sodium           134       mmol/L       133-146",
    "Potassium        6.4       mmol/L       3.5-5.3       H",
    "Urea             18.6      mmol/L       2.5-7.8       H",
    "Creatinine       287       umol/L       59-104        H",
    "eGFR             19        mL/min                     L",
    "Haemoglobin      98        g/L          130-170       L",
    "WBC              7.9       x10^9/L      4.0-11.0",
    "Platelets        88        x10^9/L      150-410       L",
    "INR              1.6                    0.8-1.2       H",
    "APTT             34.1      s            25-36",
    "Troponin T hs    14 -> 61  ng/L         <14           H",
    "",
    "Comment: potassium repeated on a fresh sample, not haemolysed.",
    "Authorised by: B. Lindqvist, Biomedical Scientist",
)

DISCHARGE_SUMMARY = (
    "DISCHARGE SUMMARY - Ward 7B Respiratory",
    "Admitted 02/01/2027   Discharged 09/01/2027",
    "",
    "Diagnosis: community acquired pneumonia, right lower lobe (CURB-65 2).",
    "COPD GOLD 3. Treated with amoxicillin 1 g TDS and clarithromycin 500 mg BD.",
    "",
    "On discharge: SpO2 90% on air, 94% on 2 L/min nasal oxygen.",
    "CXR 08/01/2027: persisting right basal consolidation.",
    "",
    "Medicines on discharge: Trelegy Ellipta 1 puff OD, salbutamol 100 mcg PRN,",
    "prednisolone 30 mg OD for 5 days, doxycycline 100 mg OD for 5 days.",
    "",
    "Follow up: repeat chest X-ray in 6 weeks; elective surgery should be",
    "deferred until the infection has resolved.",
)

TEXTS: dict[str, tuple[str, ...]] = {
    "referral_letter": REFERRAL_LETTER,
    "oncology_letter": ONCOLOGY_LETTER,
    "lab_printout": LAB_PRINTOUT,
    "discharge_summary": DISCHARGE_SUMMARY,
}
_FONTS = {
    "referral_letter": "serif",
    "oncology_letter": "sans",
    "lab_printout": "mono",
    "discharge_summary": "serif",
}


def benchmark_pages() -> list[PageSpec]:
    """Every text as a 200 dpi office scan and as a 100 dpi fax, skewed and speckled."""
    specs: list[PageSpec] = []
    for index, (name, lines) in enumerate(TEXTS.items()):
        font = _FONTS[name]
        specs.append(
            PageSpec(
                name=f"{name}@200dpi",
                lines=lines,
                font=font,
                dpi=200,
                skew_degrees=(0.6, -0.9, 1.2, -0.4)[index],
                noise=0.004,
                blur=0.6,
                seed=100 + index,
            )
        )
        specs.append(
            PageSpec(
                name=f"{name}@100dpi-fax",
                lines=lines,
                font=font,
                dpi=100,
                skew_degrees=(-0.8, 1.0, -0.5, 0.9)[index],
                noise=0.006,
                blur=0.5,
                fax=True,
                seed=200 + index,
            )
        )
    return specs
