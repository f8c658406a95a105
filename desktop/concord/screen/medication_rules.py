"""Medicines currently taken (`medication` rules): an anticoagulant, a P2Y12 inhibitor, a
GLP-1 receptor agonist, insulin, a systemic steroid.

A medicine fires when the record shows it taken now: on a medication list, or described as
taken ("on apixaban for AF"). One being stopped or held for this operation fires too, and
the detail says so, because the plan must be checked. What does not fire, and is reported
as negated with the reason:

* the context the whole screen reads (`concord.screen.context`): negated, a relative's,
  hypothetical or if-needed, planned and not yet started;
* its place: an allergy list, a list of past or discontinued medicines;
* its status in its entry (the list line, the table row, or the sentence): stopped for good
  ("discontinued 2019", "came off it after the bleed"), or stopped more than
  `stopped_within_days` before the surgery (a date or "3 months ago" by the stop); a
  medicine the patient was on before ("previously on warfarin", "switched from warfarin
  to apixaban"); a past course ("completed 6 months of rivaroxaban in 2023"); one the
  patient cannot take ("intolerant of clopidogrel");
* its dose, where the rule says: a preventive dose of a heparin ("enoxaparin 40 mg SC daily",
  "heparin 5000 units SC TDS", "for VTE prophylaxis") - a treatment dose, a weight-based dose
  or an infusion fires, and a dose not written fires (in doubt, the screen fires); a daily
  dose below the rule's threshold in equivalents of a reference drug (a steroid below 5 mg
  of prednisolone a day);
* its route, where the rule wants systemic use: inhaled, topical, nasal, eye, joint;
* its duration, where the rule wants long-term use: a short course ("x 5 days", "rescue
  pack") unless it is said to be long-term.

A status word belongs to the medicine nearest to it in the entry, so "warfarin stopped,
apixaban started" stops warfarin only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from concord.domain.gate import GateStatus
from concord.screen.context import HistoryPolicy, Reason, Verdict
from concord.screen.cues import CueSet, MedicationCues
from concord.screen.dates import TimeMention, times_in
from concord.screen.document import ReadDocument
from concord.screen.findings import Finding
from concord.screen.lexicon import Mention
from concord.screen.lexicon_rules import finding
from concord.screen.rules import MedicationRule, ProphylacticDose
from concord.screen.screening import Screening
from concord.screen.sections import SectionKind

BEFORE_REACH = 45  # characters before a medicine a "was on" cue may stand
DOSE_REACH = 45  # characters after a medicine where its dose is written
SHORT_COURSE_DAYS = 28  # a course this long or shorter is not long-term use

_DOSE_RE = re.compile(
    r"(?<![A-Za-z0-9.])(?P<n>\d+(?:[.,]\d+)?)\s*(?P<u>mg|milligrams?|mcg|micrograms?|µg|μg|"
    r"grams?|g|units?|iu|u|international\s+units)?(?P<kg>\s*/\s*kg)?(?![A-Za-z])",
    re.IGNORECASE,
)
_FREQUENCY = (
    (re.compile(r"weekly|once\s+a\s+week|every\s+week|q\s?7\s?d|/\s?week", re.I), 1 / 7),
    (re.compile(r"alternate\s+days?|every\s+other\s+day|q\.?o\.?d", re.I), 0.5),
    (re.compile(r"q\.?d\.?s|q\.?i\.?d|four\s+times|q\s?6\s?h|6[\s-]?hourly", re.I), 4.0),
    (re.compile(r"t\.?d\.?s|t\.?i\.?d|three\s+times|q\s?8\s?h|8[\s-]?hourly", re.I), 3.0),
    (re.compile(r"b\.?d|b\.?i\.?d|twice|q\s?12\s?h|12[\s-]?hourly", re.I), 2.0),
)
_TIME_OF_DAY = re.compile(
    r"\s*(?:am|a\.m\.|pm|p\.m\.|mane|nocte|midday|noon|lunchtime|in\s+the\s+(?:morning|evening)|"
    r"at\s+(?:night|noon|lunch|bedtime|\d{1,2}(?::\d\d)?)|morning|evening|night|qam|qpm|qhs)"
    r"(?![A-Za-z])",
    re.IGNORECASE,
)
_DURATION_RE = re.compile(
    r"(?:for|x|×|over)\s*(?P<n>\d+)\s*(?P<u>days?|d|weeks?|wks?|w|months?|mo|mths?|years?|yrs?)"
    r"(?![A-Za-z])|(?P<n2>\d+)[\s-]*(?P<u2>days?|weeks?|wk|months?)[\s-]*(?:course|supply)"
    r"|(?P<u3>day|week)\s*\d+\s*(?:of|/)\s*(?P<n3>\d+)(?![\d/])",
    re.IGNORECASE,
)
_DAYS = {"d": 1, "day": 1, "w": 7, "wk": 7, "week": 7, "mo": 30, "mth": 30, "month": 30}
_DAYS.update({"y": 365, "yr": 365, "year": 365})


@dataclass(frozen=True)
class _Entry:
    """Where a medicine's status is written: its list line or table row, or its sentence."""

    start: int
    end: int
    others: tuple[Mention, ...]  # other medicines named in it


def medication_findings(gate_id: str, rule: MedicationRule, s: Screening) -> Iterator[Finding]:
    cues = s.context.cues.medication
    for d, m in s.mentions(rule.concepts):
        term = " ".join(d.text[m.start : m.end].split())
        situation = s.situation(m, HistoryPolicy.COUNTS)
        verdict = s.context.verdict(d, m.start, m.end, situation)
        if verdict is not None and not _held_word(verdict, cues):
            yield finding(gate_id, GateStatus.NEGATED, d, m.start, m.end, verdict.describe(term))
            continue
        status, detail = _status(rule, s, d, m, cues)
        yield finding(gate_id, status, d, m.start, m.end, f"'{term}': {detail}")


def _status(
    rule: MedicationRule, s: Screening, d: ReadDocument, m: Mention, cues: MedicationCues
) -> tuple[GateStatus, str]:
    section = d.sections.at(m.start)
    if section is not None and section.kind in (SectionKind.ALLERGY, SectionKind.INTOLERANCE):
        return GateStatus.NEGATED, f"in the allergy list ('{section.header}')"
    if section is not None and section.kind is SectionKind.PAST_MEDICATION:
        return GateStatus.NEGATED, f"in a list of past medicines ('{section.header}')"
    entry = _entry(s, d, m)
    text = d.text
    current = _current(s, d, m, entry, cues)
    cant = _before(cues.intolerance_before, d, m, entry)
    if cant is not None:
        return GateStatus.NEGATED, f"not taken ('{cant}')"
    dose_text = text[m.end : _dose_end(m, entry)]
    groups = [g for g in rule.prophylactic if m.concepts & set(g.concepts)]
    heparin = _heparin_dose(groups, d, m, entry, dose_text, cues) if groups else None
    if heparin is not None and heparin[0] is GateStatus.NEGATED:
        return heparin  # a preventive dose never fires, held or not ("Enoxaparin 40 mg | Held")
    if rule.long_term:
        short = _short_course(d, m, entry, cues)
        if short is not None:
            return GateStatus.NEGATED, f"a short course ('{short}')"
    stop = _stop_status(rule, s, d, m, entry, cues, current)
    if stop is not None:
        return stop
    past = _before(cues.past_before, d, m, entry) or _past_after(d, m, entry, cues)
    if past is not None and current is None:
        return GateStatus.NEGATED, f"no longer taken ('{past}')"
    course = _before(cues.course_before, d, m, entry) or _last_before(d, m, entry)
    if course is not None and current is None:
        when = _past_date(s, d, m, entry, rule.stopped_within_days)
        if when is not None:
            return GateStatus.NEGATED, f"a past course ('{course}' {when})"
    if heparin is not None:
        return heparin
    if rule.systemic_only:
        route = _own(cues.non_systemic, d, m, entry)
        if route is not None:
            return GateStatus.NEGATED, f"not systemic ('{route}')"
    other = _other_use(rule, d, m, entry)
    if other is not None:
        return GateStatus.NEGATED, f"given for something else ('{other}')"
    if rule.requires and not _affirmed_anywhere(s, rule.requires):
        return GateStatus.NEGATED, f"taken without {' or '.join(rule.requires)} in the record"
    if rule.daily_dose is not None:
        daily = _daily_dose(rule, m, dose_text)
        if daily is not None and daily < rule.daily_dose.at_least:
            return GateStatus.NEGATED, (
                f"{daily:g} mg {rule.daily_dose.reference}-equivalent a day "
                f"< {rule.daily_dose.at_least:g}"
            )
    where = "on the medication list" if _in_list(d, m) else "taken now"
    return GateStatus.TRIGGERED, f"{where}: '{_shown(d, entry)}'"


def _held_word(verdict: Verdict, cues: MedicationCues) -> bool:
    """A medicine 'withheld' or 'omitted' is held, not absent: its status in the entry
    decides ("withheld 5 days before surgery" is taken now; "withheld in 2024" is not)."""
    return verdict.reason is Reason.NEGATED and cues.held.regex.fullmatch(verdict.cue) is not None


# -- status ---------------------------------------------------------------------------------


def _stop_status(
    rule: MedicationRule,
    s: Screening,
    d: ReadDocument,
    m: Mention,
    entry: _Entry,
    cues: MedicationCues,
    current: str | None,
) -> tuple[GateStatus, str] | None:
    """Stopped, held or to be stopped: what that means for the operation, or None."""
    instruction = _own(cues.instruction, d, m, entry)
    held = _own(cues.held, d, m, entry)
    stopped = _own(cues.stopped, d, m, entry, away_from=cues.past_before)
    if stopped is None and held is None and instruction is None:
        return None
    for_surgery = cues.for_surgery.search(d.text, entry.start, entry.end)
    shown = _shown(d, entry)
    if instruction is not None and stopped is None:
        return GateStatus.TRIGGERED, f"taken now, to be stopped before surgery: '{shown}'"
    days = _days_before(s, d, m, entry)
    cue = stopped or held
    if days is not None:
        if days <= rule.stopped_within_days:
            return GateStatus.TRIGGERED, (
                f"'{cue}' {days} days before surgery (within {rule.stopped_within_days}): "
                f"check the plan: '{shown}'"
            )
        if current is None:
            return GateStatus.NEGATED, f"'{cue}' {days} days before surgery"
        return None
    if for_surgery is not None:
        return GateStatus.TRIGGERED, f"'{cue}' for this operation: check the plan: '{shown}'"
    if stopped is None:
        return GateStatus.TRIGGERED, f"'{held}': held now: check the plan: '{shown}'"
    if current is not None:
        return None  # "stopped ... restarted"
    return GateStatus.NEGATED, f"'{stopped}'"


def _days_before(s: Screening, d: ReadDocument, m: Mention, entry: _Entry) -> int | None:
    """Days between the stop written in the entry ("stopped 3 weeks ago", "last dose
    25/11", "discontinued 2019") and the reference date; a time counted back from the
    operation ("withheld 7 days before surgery", "5 days pre-op") is that many days."""
    when = _nearest_time(d, m, entry)
    if when is None:
        return None
    anchor = s.clock.anchor(d.index)
    _, latest = when.interval(anchor)
    if _BACK_FROM_SURGERY_RE.match(d.text, when.start, min(entry.end, when.end + 40)):
        return max(0, (anchor - latest).days)
    return max(0, (s.clock.reference - latest).days)


_BACK_FROM_SURGERY_RE = re.compile(
    r"[^\n]{0,20}?(?:hours?|hrs?|days?|weeks?|wks?)[ \t]+(?:(?:before|prior[ \t]+to|ahead[ \t]+of)"
    r"[ \t]+(?:the[ \t]+|his[ \t]+|her[ \t]+|this[ \t]+)?(?:surgery|operation|op|procedure|theatre)"
    r"|pre-?op(?:eratively)?)\b",
    re.IGNORECASE,
)


def _past_date(s: Screening, d: ReadDocument, m: Mention, entry: _Entry, window: int) -> str | None:
    """The entry's date when it lies more than `window` days before the reference."""
    when = _nearest_time(d, m, entry)
    if when is None:
        return None
    _, latest = when.interval(s.clock.anchor(d.index))
    if (s.clock.reference - latest).days > window:
        return " ".join(d.text[when.start : when.end].split())
    return None


def _nearest_time(d: ReadDocument, m: Mention, entry: _Entry) -> TimeMention | None:
    times = [
        t for t in times_in(d.text, entry.start, entry.end) if _belongs(t.start, t.end, m, entry)
    ]
    if not times:
        return None
    return min(times, key=lambda t: min(abs(t.start - m.end), abs(m.start - t.end)))


# -- dose, route and duration ---------------------------------------------------------------


def _heparin_dose(
    groups: list[ProphylacticDose],
    d: ReadDocument,
    m: Mention,
    entry: _Entry,
    dose_text: str,
    cues: MedicationCues,
) -> tuple[GateStatus, str]:
    shown = _shown(d, entry)
    treatment = _own(cues.treatment, d, m, entry)
    if treatment is not None:
        return GateStatus.TRIGGERED, f"treatment dose ('{treatment}'): '{shown}'"
    prophylaxis = _own(cues.prophylaxis, d, m, entry)
    if prophylaxis is not None:
        return GateStatus.NEGATED, f"a preventive dose ('{prophylaxis}')"
    dose = _DOSE_RE.search(dose_text)
    if dose is None:
        return GateStatus.TRIGGERED, f"dose not stated: check it: '{shown}'"
    if dose.group("kg"):
        return GateStatus.TRIGGERED, f"weight-based (treatment) dose: '{shown}'"
    amount = _number(dose.group("n"))
    unit = _unit(dose.group("u"), groups[0].unit, amount)
    group = next((g for g in groups if g.unit == unit), groups[0])
    if unit != group.unit:
        return GateStatus.TRIGGERED, f"dose in {unit}: check it: '{shown}'"
    if amount <= group.at_most:
        return GateStatus.NEGATED, f"a preventive dose ({amount:g} {unit} <= {group.at_most:g})"
    return GateStatus.TRIGGERED, f"treatment dose ({amount:g} {unit} > {group.at_most:g})"


def _daily_dose(rule: MedicationRule, m: Mention, dose_text: str) -> float | None:
    """The daily dose in mg of the rule's reference drug, when written: one dose times its
    frequency, or the doses of a split regimen added ("15 mg AM / 5 mg PM")."""
    assert rule.daily_dose is not None
    factors = {e.concept: e.factor for e in rule.daily_dose.equivalents}
    factors[rule.daily_dose.reference] = 1.0
    factor = next((f for cid, f in factors.items() if cid in m.concepts), None)
    doses = [d for d in _DOSE_RE.finditer(dose_text) if d.group("u") or d.start() < 3]
    if factor is None or not doses or doses[0].group("kg"):
        return None
    amounts = [_mg(d) for d in doses]
    if amounts[0] is None:
        return None
    timed = [
        a
        for d, a in zip(doses, amounts, strict=True)
        if a is not None and _TIME_OF_DAY.match(dose_text, d.end())
    ]
    if len(timed) > 1:
        return round(sum(timed) * factor, 2)
    times = next(
        (n for regex, n in _FREQUENCY if regex.search(dose_text, doses[0].end())),
        1.0,
    )
    return round(amounts[0] * times * factor, 2)


def _mg(dose: re.Match[str]) -> float | None:
    amount = _number(dose.group("n"))
    unit = (dose.group("u") or "mg").lower()
    if unit.startswith(("mcg", "micro", "µ", "μ")):
        return amount / 1000
    if unit.startswith("g"):
        return amount * 1000
    return amount if unit.startswith(("mg", "milli")) else None


def _other_use(rule: MedicationRule, d: ReadDocument, m: Mention, entry: _Entry) -> str | None:
    """The word of the entry that says the medicine was given for something else
    (`rule.other_use`), when nothing there names what the gate is about."""
    if rule.other_use is None:
        return None
    uses = set(rule.other_use.concepts)
    unless = set(rule.other_use.unless)
    named = [o for o in d.starting_in(entry.start, entry.end) if o.end <= entry.end]
    if any(o.concepts & unless for o in named):
        return None
    for o in named:
        if o.concepts & uses and (o.start, o.end) != (m.start, m.end):
            return " ".join(d.text[o.start : o.end].split())
    return None


def _affirmed_anywhere(s: Screening, concepts: list[str]) -> bool:
    """Whether any of `concepts` is named in the record in the patient, not negated."""
    for d, m in s.mentions(concepts):
        if s.context.verdict(d, m.start, m.end, s.situation(m, HistoryPolicy.COUNTS)) is None:
            return True
    return False


def _short_course(d: ReadDocument, m: Mention, entry: _Entry, cues: MedicationCues) -> str | None:
    if _own(cues.long_term, d, m, entry) is not None:
        return None
    short = _own(cues.short_course, d, m, entry)
    if short is not None:
        return short
    for found in _DURATION_RE.finditer(d.text, entry.start, entry.end):
        if not _belongs(found.start(), found.end(), m, entry):
            continue
        number = int(found.group("n") or found.group("n2") or found.group("n3"))
        unit = (found.group("u") or found.group("u2") or found.group("u3")).lower().rstrip("s")
        days = number * next((v for k, v in _DAYS.items() if unit.startswith(k)), 1)
        if days <= SHORT_COURSE_DAYS:
            return " ".join(found.group().split())
        return None
    return None


def _unit(written: str | None, default: str, amount: float) -> str:
    if written is None:
        return "units" if default == "units" and amount >= 100 else "mg"
    low = written.lower()
    if low.startswith(("unit", "iu", "international")) or low == "u":
        return "units"
    return "mg" if low.startswith(("mg", "milli")) else low


def _number(written: str) -> float:
    return float(written.replace(",", "."))


# -- entries and cues -----------------------------------------------------------------------


def _entry(s: Screening, d: ReadDocument, m: Mention) -> _Entry:
    """The list line or table row of the mention, else its clause in a sentence."""
    start, end = d.entry_bounds(m.start, m.end)
    others = tuple(
        o
        for o in d.starting_in(start, end)
        if o.start != m.start and _is_medicine(s, o) and not (o.concepts & m.concepts)
    )
    return _Entry(start, end, others)


def _is_medicine(s: Screening, mention: Mention) -> bool:
    return any(
        s.lexicon.concepts[cid].intervention
        for cid in mention.concepts
        if cid in s.lexicon.concepts
    )


def _belongs(start: int, end: int, m: Mention, entry: _Entry) -> bool:
    """Whether the words at [start, end) are nearer to `m` than to any other medicine."""

    def distance(a_start: int, a_end: int) -> int:
        if end <= a_start:
            return a_start - end
        if start >= a_end:
            return start - a_end
        return 0

    own = distance(m.start, m.end)
    return all(distance(o.start, o.end) > own for o in entry.others)


def _own(
    cue: CueSet, d: ReadDocument, m: Mention, entry: _Entry, away_from: CueSet | None = None
) -> str | None:
    """The first word of `cue` in the entry that belongs to `m`. With `away_from`: not one
    that starts a phrase of it pointing at another medicine after `m` ("apixaban (switched
    from warfarin)": the switch is away from warfarin)."""
    for found in cue.finditer(d.text, entry.start, entry.end):
        if found.start() < m.end and found.end() > m.start:
            continue  # inside the medicine's own name
        if not _belongs(found.start(), found.end(), m, entry):
            continue
        if away_from is not None and found.start() >= m.end and _points_away(d, found, away_from):
            continue
        return " ".join(found.group().split())
    return None


_ARTICLE = re.compile(r"\s*(?:(?:the|his|her|their|a|an)\s+)?")


def _points_away(d: ReadDocument, found: re.Match[str], phrase: CueSet) -> bool:
    """Whether the cue at `found` starts a phrase of `phrase` ("switched from") that names
    another medicine straight after it."""
    match = phrase.match(d.text, found.start())
    if match is None:
        return False
    lead = _ARTICLE.match(d.text, match.end())
    at = lead.end() if lead is not None else match.end()
    return bool(d.starting_in(at, at + 1))


def _current(
    s: Screening, d: ReadDocument, m: Mention, entry: _Entry, cues: MedicationCues
) -> str | None:
    """A word of current use that belongs to `m` and is not negated in its clause ("not
    anticoagulated since" says the opposite)."""
    for found in cues.current.finditer(d.text, entry.start, entry.end):
        if found.start() < m.end and found.end() > m.start:
            continue
        if not _belongs(found.start(), found.end(), m, entry):
            continue
        if s.context.negated_before(d, found.start()) is not None:
            continue
        return " ".join(found.group().split())
    return None


def _before(cue: CueSet, d: ReadDocument, m: Mention, entry: _Entry) -> str | None:
    """A cue ending at most BEFORE_REACH characters before `m`, in its entry, with no other
    medicine between ("previously on warfarin", "switched from warfarin to ...")."""
    low = max(entry.start, m.start - BEFORE_REACH)
    found = None
    for match in cue.finditer(d.text, low, m.start):
        if not any(match.end() <= o.start < m.start for o in entry.others):
            found = match
    return " ".join(found.group().split()) if found is not None else None


_PAST_AFTER = re.compile(
    r"[ \t]*(?:\d+(?:\.\d+)?[ \t]*(?:mg|mcg|micrograms?|units?)[ \t]*(?:daily|od|bd|once\s+daily)?"
    r"[ \t]*)?(?:in[ \t]+the[ \t]+(?:distant[ \t]+)?past|previously|formerly|historically)"
    r"(?![A-Za-z])",
    re.IGNORECASE,
)


def _past_after(d: ReadDocument, m: Mention, entry: _Entry, cues: MedicationCues) -> str | None:
    """'in the past', 'previously' right after the medicine (its dose between at most):
    "took clopidogrel in the past", "Ticagrelor previously (2021-2022)". Not when the entry
    goes on to say anything is taken now, whoever's word it is ("clopidogrel in the past,
    and again since the stent")."""
    found = _PAST_AFTER.match(d.text, m.end, entry.end)
    if found is None or _AGAIN_RE.search(d.text, found.end(), entry.end):
        return None
    if cues.current.search(d.text, found.end(), entry.end) is not None:
        return None
    return " ".join(found.group().split())


_AGAIN_RE = re.compile(r"(?<![A-Za-z])(?:again|re-?started|back\s+on)(?![A-Za-z])", re.IGNORECASE)


_LAST_BEFORE = re.compile(
    r"(?<![A-Za-z])last[ \t]+(?:(?:course|dose|burst)[ \t]+of[ \t]+|(?:needed|required)[ \t]+)?"
    r"(?:(?:oral|systemic|IV|intravenous|IM)[ \t]+)?$",
    re.IGNORECASE,
)


def _last_before(d: ReadDocument, m: Mention, entry: _Entry) -> str | None:
    """'last' right before the medicine: its last course ("last oral steroids 2019", "last
    needed prednisolone in 2021"), dated by the entry. Never 'last' further away ("Last INR
    2.4 (01/10), warfarin 3 mg daily" is no course of warfarin), nor a last prescription,
    use or check ("last prescription of rivaroxaban 02/10" is a repeat still taken), nor in
    a list of current medicines."""
    if _in_list(d, m):
        return None  # a list of current medicines: "last" there is a prescription's, a dose's
    found = _LAST_BEFORE.search(d.text, max(entry.start, m.start - 40), m.start)
    return " ".join(found.group().split()) if found is not None else None


def _dose_end(m: Mention, entry: _Entry) -> int:
    """Where the medicine's dose text ends: the next medicine, the entry's end, or a reach."""
    nxt = min((o.start for o in entry.others if o.start > m.end), default=entry.end)
    return min(nxt, entry.end, m.end + DOSE_REACH)


def _in_list(d: ReadDocument, m: Mention) -> bool:
    section = d.sections.at(m.start)
    return section is not None and section.kind is SectionKind.MEDICATION


def _shown(d: ReadDocument, entry: _Entry) -> str:
    written = " ".join(d.text[entry.start : entry.end].split())
    return written if len(written) <= 90 else written[:87] + "..."
