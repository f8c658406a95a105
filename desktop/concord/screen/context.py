"""What a mention means for the patient: negated, a relative's, hypothetical, planned, history.

The screen reads context with its own rules, on purpose narrower than those of evidence
verification: here a negated mention does not fire a gate, so a cue only counts inside its
clause. The word lists live in `resources/lexicon/context.json` (`Cues`); the rules, in
the order they are tried:

1. Section: anything under a family-history heading is a relative's; anything under a
   protocol, consent or advice heading is general text (hypothetical).
2. A checklist answer after the mention: "Chest pain: N", "Bleomycin exposure: none",
   "Recent chest infection? No", "Pacemaker? | No", or the ticked box of the question's
   options: "Do you have a pacemaker?   [ ] Yes  [X] No" (only "no" ticked).
3. A negation right after the mention, in its clause: "pneumonia excluded", "bleomycin-free",
   "consolidation - not seen", or after the test that gave it: "sepsis screen negative",
   "DVT - duplex negative" (but "bleomycin omitted after cycle 2" still is exposure).
4. A negation cue before the mention in its clause: list cues ("denies", "no history of",
   "negative for") run over commas ("denies chest pain, SOB or syncope"); short cues ("no",
   "not", "without", "nil") stop at a comma, so "No fever, CXR: RLL pneumonia" still
   fires. Pseudo-negations ("not excluded", "no improvement") are not negations. Some
   cues negate only right before the mention ("avoid bleomycin", "contraindicated").
5. A relative as the subject of the clause: "mother had a DES", "brother, who had BEP";
   not a relative who reports ("daughter reports he has had a chest infection").
6. Hypothetical wording in the clause: "risk of", "if", "to exclude", "safety-netted for",
   "risks include", "score for", and after the mention "as per protocol", "surveillance",
   "risk" - unless it is said to be followed ("sepsis pathway started").
7. Interventions only (a drug, a stent, dialysis): planned, not given - "plan to start
   ABVD", "awaiting PCI", "BEP to start next week", "noradrenaline on standby", "apixaban if
   AF recurs", "Inotropes: standby dobutamine", under a "Plan:" heading, or dated after the
   record's present - unless the clause also says it was given or goes on ("cycle 1 given",
   "continue apixaban", "HD as usual"; a deed still to come, "to be started", is none).
8. History, as the gate allows (`HistoryPolicy`): exposures count whenever they happened;
   states (an infection, ischaemia) resolve - the sentence says "resolved", "previous",
   "as a child", the mention is in the past medical history, or it is dated more than
   the gate's window (`HISTORICAL_DAYS` unless it sets one) before the reference date -
   unless the sentence says it is current
   ("ongoing", "still", "on antibiotics"); structural findings (severe AS) resolve only when
   the record says so or names what resolved them (a past valve replacement).

medspaCy's ConText and clinical sectionizer were measured against these rules on the
screen's corpus (`tests/screen/compare_medspacy.py`): as many positives found, but 37 of
299 hard negatives fired against none, at a twentieth of the throughput and six seconds
more start-up; they are not used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date, timedelta
from enum import StrEnum
from typing import Literal

from concord.screen.cues import Cues, CueSet, phrase_alternation
from concord.screen.dates import times_in
from concord.screen.document import ReadDocument
from concord.screen.sections import SectionKind

NEGATION_WINDOW = 70  # characters between the end of a cue and the mention
TREATED_REACH = 900  # characters after a finding searched for the treatment of its event
TREATED_DAYS = 90  # a treatment dated more than this before the surgery is another event's
LIST_NEGATION_WINDOW = 260  # ...or further, where a list of findings runs on from the cue
LIST_ITEM_WORDS = 5  # the most words an item of such a list has
FAMILY_WINDOW = 90
HYPOTHETICAL_WINDOW = 90
POST_WINDOW = 40
HYPOTHETICAL_AFTER_WORDS = 4  # words between a mention and "as per protocol", "surveillance"
HISTORICAL_DAYS = 56  # an event dated more than 8 weeks before surgery is history
CHECKLIST_LABEL_WORDS = 5  # words allowed between a mention and its checklist answer
TICKBOX_REACH = 160  # characters from a mention to the end of its question's tick boxes
TICKBOX_QUESTION_WORDS = 6  # words of its question allowed after the mention

_BOX_TICKED = r"\[[ \t]*[xX✓✔✗✘*][ \t]*\]|\([ \t]*[xX✓✔*][ \t]*\)|[☒☑✅]"
_BOX_EMPTY = r"\[[ \t]*\]|\([ \t]*\)|[☐□]"
_BOX = rf"(?:{_BOX_TICKED}|{_BOX_EMPTY})"
_TICKBOX_UNSURE = ("unsure", "unknown", "not sure", "don't know", "do not know")

_TIME_WINDOW = (  # one label word of a question: "in the last 3 months", "within the past year"
    r"[ ](?:in|within|during|over)[ ]+(?:the[ ]+)?(?:last|past|previous)[ ]+"
    r"[A-Za-z0-9]+(?:[ ]+(?:days?|weeks?|months?|years?))?"
)
_VERB_CUE = re.compile(r"(?:started|commenced)$", re.IGNORECASE)
_OBJECT_NEXT = re.compile(
    r"\s*(?:on\s+)?(?:(?:a|an|any|the|his|her|their|regular|oral|IV)\s+)*", re.IGNORECASE
)
_BRACKETED = re.compile(r"\([^()\n]*\)")
_LIST_MARKER = re.compile(r"(?:^|[ ])[0-9A-Za-z]{1,3}[).]")  # "2)", "b)", "iii)", "3."
_CLAUSE_BREAK_RE = re.compile(r"[.;:!?](?=\s|$)|\n(?![ \t]*[a-z])|\(|\)")
_FAMILY_BREAK_RE = re.compile(
    r"[.;!?](?=\s|$)|\n|(?<![A-Za-z])(?:but|however|whereas|although|though)(?![A-Za-z])",
    re.IGNORECASE,
)
_POST_LEAD_RE = re.compile(
    r"[\s:,\-–(]*(?:(?:screen|screening|test|testing|tests|swab|PCR|serology|assay|work-?up|"
    r"duplex|doppler|ultrasound|USS|scan|CT|CTPA|V/Q|MRI|angiogram|studies|study|panel)"
    r"[\s:,\-–]*)?(?:(?:is|was|were|are|has\s+been|have\s+been|had\s+been|now|been|being|also|"
    r"deliberately|intentionally|specifically|electively|purposely|purposefully)\s+)*",
    re.IGNORECASE,
)
"""What may stand between a mention and a negation after it: a verb, and the test that
negated it ("sepsis screen negative", "DVT - duplex negative", "vWD screen: negative")."""
_RECENT_SPAN = re.compile(
    r"(?<![A-Za-z])(?:(?:past|last|previous)\s+(?:(?:few|couple\s+of|several|\d{1,2}|one|two|"
    r"three|four|five|six)\s*)?(?:hours?|hrs?|days?|weeks?|wks?|fortnight|months?|mths?)|"
    r"since\s+(?:yesterday|last\s+night|this\s+(?:morning|afternoon|evening|week)|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|admission|arrival))"
    r"(?![A-Za-z])",
    re.IGNORECASE,
)
"""A span of time up to now ("over the past week", "in the last 48 hours", "since Sunday"):
what happened in it is recent, whatever 'past' or 'recurrent' says elsewhere."""
_COMPARED = re.compile(
    r"(?<![A-Za-z])(?:compared\s+(?:with|to)|vs\.?|versus|relative\s+to|than(?:\s+in)?|"
    r"from\s+(?:a\s+)?previous|cf\.?)\s+(?:the\s+|an?\s+)?(?:ECG\s+|echo\s+|scan\s+|one\s+)?"
    r"(?:of\s+|from\s+|in\s+|on\s+|dated\s+)?$",
    re.IGNORECASE,
)
"""Words before a date that make it the date compared with, not the finding's date ("new T
wave inversion compared with 2023")."""
_NEXT_STEP = re.compile(
    r"(?<![A-Za-z])(?:then|followed\s+by|thereafter|subsequently|afterwards|before|prior\s+to)"
    r"(?![A-Za-z])|->|→|=>",
    re.IGNORECASE,
)
"""Words between a mention and a later cue that move on to the next step ("3 x BEP then
surveillance", "ABVD x2 then PET planned"): the cue is the next step's, not the mention's."""
_NOT_BEFORE = re.compile(r"(?<![A-Za-z])(?:not|never|n't|nor)\s+(?:been\s+|yet\s+)?$", re.I)
_EXPOSED_ANYWAY_RE = re.compile(
    r"^\W*(?:\w+\W+){0,2}?(?:after|from\s+(?:cycle|c)\s*[2-9]|from\s+the\s+(?:second|third))",
    re.IGNORECASE,
)


class Reason(StrEnum):
    """Why a mention does not fire."""

    NEGATED = "negated"
    ANSWERED_NO = "answered no"
    FAMILY = "family history"
    HYPOTHETICAL = "hypothetical"
    PLANNED = "planned, not given"
    HISTORY = "history"


class HistoryPolicy(StrEnum):
    """What past mentions mean for a gate."""

    COUNTS = "counts"  # an exposure: bleomycin given in 2005 still counts
    RESOLVES = "resolves"  # a state: pneumonia in 2019 is history
    EXPLICIT = "explicit"  # structural: only "resolved" or a past intervention resolves it


@dataclass(frozen=True)
class Verdict:
    reason: Reason
    cue: str
    time: date | None = None  # for history by its date: the latest day the date can mean

    def describe(self, term: str) -> str:
        return f"'{term}': {self.reason.value} ('{self.cue}')"


@dataclass(frozen=True)
class Situation:
    """What the context rules need to know about the gate and the record."""

    intervention: bool = False
    history: HistoryPolicy = HistoryPolicy.COUNTS
    reference: date | None = None  # surgery date, else the record's present
    resolved_by: frozenset[str] = frozenset()  # concepts whose past mention resolves it
    window_days: int = HISTORICAL_DAYS  # dated more than this before the reference: history
    event: bool = False  # a gate's event window (within_days): the event's date decides


class ContextReader:
    """Reads the context of mentions and values in a prepared document (rules above)."""

    def __init__(self, cues: Cues) -> None:
        self.cues = cues
        # the label never crosses a column gap (two spaces or a tab), a list marker ("2)") or
        # a comma outside the mention's own bracketed list: what follows is the next cell or
        # item, another question whose answer is not this mention's
        self._answer_no_re = re.compile(
            r"(?P<label>(?:[)\]]|(?:,[ ]?[A-Za-z0-9'/+-]+(?:[ ][A-Za-z0-9'/+-]+)?)+\)(?=[ ]*\?)|"
            r"[ ]?\([^)\n]{0,30}\)|"
            rf"{_TIME_WINDOW}|"
            r"[ ][A-Za-z0-9'/+]+(?:-[A-Za-z0-9]+)*|"
            r"[ ]?/[ ]?[A-Za-z0-9'+]+(?:-[A-Za-z0-9]+)*)"
            rf"{{0,{CHECKLIST_LABEL_WORDS}}}?)"
            r"(?P<sep>[ \t]*(?:[:?=]+(?:[ \t]*\|)?|\|+|\t|[ ]{2,}|[-–](?=[ \t]))"
            r"[ \t:?\-–]*)"
            rf"(?P<answer>{cues.checklist_no_alternation})(?![A-Za-z0-9/])"
            r"(?:[ \t]+(?:in|within|during|over|for|since)\s+(?:the\s+)?(?:last|past|previous)?"
            r"[ \t]*[A-Za-z0-9 ]{0,20}?)?"
            r"(?:[ \t]*\([^()\n]{0,30}\))?"
            r"(?=[ \t]*(?:$|\n|[,;.|)]|\t|[ ]{2,}))",
            re.IGNORECASE,
        )
        # a question with tick boxes: the rest of the question the mention is in - a few
        # words and brackets; no box, colon, question mark, full stop, comma, semicolon, dash
        # or column gap, which end it: what follows is another question ("Has a pacemaker.
        # Is it MRI compatible? [ ] Yes [X] No", "Known OSA - CPAP at home? [ ] Yes [X] No")
        # - then options each a box and its word, either way round ("[ ] Yes [X] No")
        word = phrase_alternation([*cues.checklist_yes.phrases, *cues.checklist_no.phrases,
                                   *_TICKBOX_UNSURE])  # fmt: skip
        option = (
            rf"(?:(?P<box>{_BOX})[ \t]*(?P<word>{word})|"
            rf"(?<![A-Za-z0-9'])(?P<word2>{word})[ \t]*(?P<box2>{_BOX}))"
            r"(?![A-Za-z0-9])"
        )
        plain = re.sub(r"\(\?P<\w+>", "(?:", option)
        self._tickbox_re = re.compile(
            r"(?:[ ]?\([^()\n]{0,40}\)|\)|[ ]?[/&+][ ]?|"
            rf"{_TIME_WINDOW}|"
            r"[ ][A-Za-z0-9'][A-Za-z0-9'/+-]*)"
            rf"{{0,{TICKBOX_QUESTION_WORDS}}}?"
            rf"[ \t]*[:?]?[ \t|]*(?P<options>{plain}(?:[ \t|]*{plain}){{1,3}})",
            re.IGNORECASE,
        )
        self._tick_option_re = re.compile(option, re.IGNORECASE)
        self._ticked_re = re.compile(_BOX_TICKED)

    # -- public ---------------------------------------------------------------------------

    def verdict(
        self,
        d: ReadDocument,
        start: int,
        end: int,
        situation: Situation,
        *,
        relatives: bool = True,
    ) -> Verdict | None:
        """Why the mention text[start:end] is not a finding in the patient, or None.
        `relatives=False`: a relative's finding is not a reason (MH susceptibility)."""
        section = self._section(d, start)
        if section is not None and (relatives or section.reason is not Reason.FAMILY):
            return section
        return (
            self.answered_no(d, end)
            or self.negated_after(d, end)
            or self.negated_before(d, start)
            or (self.family(d, start, end) if relatives else None)
            or self.hypothetical(d, start, end)
            or (self.planned(d, start, end, situation) if situation.intervention else None)
            or self.history(d, start, end, situation)
        )

    def value_verdict(self, d: ReadDocument, start: int, end: int) -> Verdict | None:
        """Context that makes a written value not the patient's result: a relative's, a
        protocol's, a hypothetical."""
        return (
            self._section(d, start)
            or self.family(d, start, end)
            or self.hypothetical(d, start, end)
        )

    # -- the rules ------------------------------------------------------------------------

    def _section(self, d: ReadDocument, start: int) -> Verdict | None:
        section = d.sections.at(start)
        if section is None:
            return None
        if section.kind is SectionKind.FAMILY:
            return Verdict(Reason.FAMILY, section.header)
        if section.kind is SectionKind.PROTOCOL:
            return Verdict(Reason.HYPOTHETICAL, section.header)
        return None

    def answered_no(self, d: ReadDocument, end: int) -> Verdict | None:
        """A form answer: the mention, a few label words, a separator, then a 'no' word."""
        _, line_end = d.line_bounds(end)
        m = self._answer_no_re.match(d.text, end, min(line_end, end + 90))
        if m is None or _LIST_MARKER.search(_BRACKETED.sub("", m.group("label"))):
            return self.ticked_no(d, end, line_end)
        return Verdict(Reason.ANSWERED_NO, " ".join(m.group("answer").split()))

    def ticked_no(self, d: ReadDocument, end: int, line_end: int) -> Verdict | None:
        """The question's tick boxes after the mention, with only a 'no' ticked; an
        unanswered question, a 'yes' or an 'unsure' ticked is no verdict."""
        m = self._tickbox_re.match(d.text, end, min(line_end, end + TICKBOX_REACH))
        if m is None:
            return None
        ticked = [
            " ".join((o.group("word") or o.group("word2")).split())
            for o in self._tick_option_re.finditer(m.group("options"))
            if self._ticked_re.fullmatch(o.group("box") or o.group("box2"))
        ]
        if ticked and all(self.cues.checklist_no.regex.fullmatch(w) for w in ticked):
            return Verdict(Reason.ANSWERED_NO, ticked[0])
        return None

    def negated_after(self, d: ReadDocument, end: int) -> Verdict | None:
        """A cue right after the mention: "pneumonia excluded", "bleomycin-free"."""
        text = d.text
        lead = _POST_LEAD_RE.match(text, end, min(len(text), end + POST_WINDOW))
        pos = lead.end() if lead else end
        if "," in text[end:pos] or "\n" in text[end:pos]:
            return None
        m = self.cues.negation_after.match(text, pos)
        if m is None or self._pseudo_at(text, m.start(), m.end()):
            return None
        cue = " ".join(m.group().split())
        if cue.lower() in ("omitted", "withheld") and _EXPOSED_ANYWAY_RE.match(
            text, m.end(), min(len(text), m.end() + 40)
        ):
            return None  # "omitted after cycle 2": it was given before
        return Verdict(Reason.NEGATED, cue)

    def negated_before(self, d: ReadDocument, start: int) -> Verdict | None:
        """The negation cue that governs a mention starting at `start`, in its clause."""
        text = d.text
        for cue in self.cues.negation_direct.finditer(text, max(0, start - 50), start):
            if self.cues.filler.fullmatch(text, cue.end(), start):
                return Verdict(Reason.NEGATED, " ".join(cue.group().split()))
        low = max(0, start - LIST_NEGATION_WINDOW)
        found: str | None = None
        for regex, short in ((self.cues.negation_list, False), (self.cues.negation_short, True)):
            for cue in regex.finditer(text, low, start):
                between = text[cue.end() : start]
                if len(between) > NEGATION_WINDOW and (short or not _a_list(between)):
                    continue  # a list of findings may run on ("Negative for fever, chills, ...")
                if not self._same_clause(text, cue.end(), start, elaboration=not short):
                    continue
                if short and ("," in between or len(between.split()) > 6):
                    continue
                if _VERB_CUE.search(cue.group()) and not _OBJECT_NEXT.fullmatch(between):
                    continue  # "not started on DOAC as already on warfarin": its object only
                if self._pseudo_at(text, cue.start(), cue.end()):
                    continue
                found = cue.group()
        return Verdict(Reason.NEGATED, " ".join(found.split())) if found else None

    def family(self, d: ReadDocument, start: int, end: int) -> Verdict | None:
        """A relative is the subject: "mother had ...", "FHx of ...", "MI (father)"."""
        text = d.text
        left = max(0, start - FAMILY_WINDOW)
        for m in _FAMILY_BREAK_RE.finditer(text, left, start):
            left = m.end()
        relative = None
        for m in self.cues.relatives.finditer(text, left, start):
            relative = m
        if relative is not None:
            between = text[relative.end() : start]
            lead = text[max(left, relative.start() - 16) : relative.start()]
            informant = self.cues.informant.search(between)
            if informant is not None and _PASSIVE_RE.search(between, 0, informant.start()):
                informant = None  # "his father was told he had MH": told, not telling
            if not (
                informant or self.cues.self_subject.search(between) or _OBJECT_OF_RE.search(lead)
            ):
                return Verdict(Reason.FAMILY, relative.group())
        after = _RELATIVE_AFTER_RE.match(text, end, min(len(text), end + 30))
        if after is not None and self.cues.relatives.fullmatch(after.group("who")):
            return Verdict(Reason.FAMILY, after.group("who"))
        return None

    def hypothetical(self, d: ReadDocument, start: int, end: int) -> Verdict | None:
        """Wording that makes the mention a possibility, a risk or a protocol, not a fact."""
        text = d.text
        low = max(0, start - HYPOTHETICAL_WINDOW)
        found: str | None = None
        for cue in self.cues.hypothetical_before.finditer(text, low, start):
            if self._same_clause(
                text, cue.end(), start, terminators=False
            ) and not self.cues.checklist_yes.search(text, cue.end(), start):
                found = cue.group()  # "Complications: yes - MH" answers; it is no risk list
        if found is None:
            right = min(len(text), end + POST_WINDOW)
            after = self.cues.hypothetical_after.search(text, end, right)
            if after is not None and _SEEN_ON.match(text, after.end()):
                after = None  # "varices on surveillance endoscopy": where it was seen
            if after is not None and self._enacted(text, after.end()):
                after = None  # "sepsis pathway started": followed for this patient
            between = text[end : after.start()] if after is not None else ""
            if (
                after is not None
                and "," not in between
                and not _NEXT_STEP.search(between)
                and len(between.split()) <= HYPOTHETICAL_AFTER_WORDS
                and self._same_clause(text, end, end + len(between), terminators=False)
            ):
                found = after.group()
        return Verdict(Reason.HYPOTHETICAL, " ".join(found.split())) if found else None

    def planned(
        self, d: ReadDocument, start: int, end: int, situation: Situation
    ) -> Verdict | None:
        """An intervention not yet given: "plan to start ABVD", "PCI planned", "Plan: BEP"."""
        text = d.text
        left, right = self._clause(d, start, end)
        for done in self.cues.done.finditer(text, left, right):
            if _NOT_BEFORE.search(text, max(left, done.start() - 12), done.start()):
                continue  # "not given" is no sign it was
            if _CONDITION_BEFORE.search(text, max(left, done.start() - 40), done.start()):
                continue  # "if PCI is performed": a condition, not a deed
            if _FUTURE_BEFORE.search(text, max(left, done.start() - 20), done.start()):
                continue  # "to be started", "will be given": still to come
            if self.cues.planned_after.match(text, done.start()):
                continue  # "post-op": a time after the operation, not "post PCI"
            return None  # "cycle 1 given", "continue apixaban", "HD as usual"
        section = d.sections.at(start)
        if section is not None and section.kind is SectionKind.PLAN:
            return Verdict(Reason.PLANNED, section.header)
        for cue in self.cues.planned_before.finditer(text, max(left, start - 60), start):
            if self.cues.filler.fullmatch(text, cue.end(), start):
                return Verdict(Reason.PLANNED, " ".join(cue.group().split()))
        after = self.cues.planned_after.search(text, end, min(right, end + 45))
        between = text[end : after.start()] if after is not None else ""
        if (
            after is not None
            and len(between.split()) <= 3
            and not _NEXT_STEP.search(between)
            and not self._kept_on(between)
            and not (after.group().lower() in _BARE_CONDITIONS and "," in between)
        ):
            return Verdict(Reason.PLANNED, " ".join(after.group().split()))
        label = _LABEL_VALUE.match(text, end, min(len(text), end + 4))
        if label is not None:  # "Inotropes: standby", "Dialysis - to start if ..."
            value = self.cues.planned_before.match(text, label.end())
            if value is not None:
                return Verdict(Reason.PLANNED, " ".join(value.group().split()))
        present = situation.reference or d.written
        if present is not None:
            for when in times_in(text, left, right):
                if when.days_ago is None and when.earliest is not None and when.earliest > present:
                    return Verdict(Reason.PLANNED, f"dated {text[when.start : when.end]}")
        return None

    def _enacted(self, text: str, pos: int) -> bool:
        """Whether a protocol word ending at `pos` is said to be followed now ("pathway
        started", "bundle was completed"), not "not started"."""
        lead = _POST_LEAD_RE.match(text, pos, min(len(text), pos + POST_WINDOW))
        at = lead.end() if lead is not None else pos
        return self.cues.enacted.match(text, at) is not None and not _NOT_BEFORE.search(
            text, max(0, at - 12), at
        )

    def _kept_on(self, between: str) -> bool:
        """Words between an intervention and a planned cue after it that keep it current: a
        restart, a hold or a dose change of a medicine taken now ("apixaban: restart
        post-op", "warfarin 5 mg omit if INR > 3")."""
        medication = self.cues.medication
        return any(
            cue.search(between) is not None
            for cue in (self.cues.done, medication.instruction, medication.held)
        )

    def history(
        self, d: ReadDocument, start: int, end: int, situation: Situation
    ) -> Verdict | None:
        """Why the mention is resolved history, as the gate's history policy allows."""
        if situation.history is HistoryPolicy.COUNTS:
            return None
        text = d.text
        left, right = d.sentence_bounds(start, end)
        parts = (text[left:start], text[end:right])
        if situation.event:
            dated = self._event_date(d, start, end, left, right, situation)
            if dated is not None:
                if dated or not situation.resolved_by:
                    return dated or None  # an event's own date decides, whatever else is said
                # within its window: only a treatment said done ends it ("NSTEMI 18/11 -
                # treated with PCI" is a recent MI, not active ischaemia)
                treated = self._resolved_by(d, left, right, situation)
                when = self.event_time(d, start, end, situation)
                return replace(treated, time=when) if treated is not None else None
        if any(self._current(part) for part in parts):
            return None
        resolution = self._first(self.cues.resolution, parts)
        if resolution is not None:
            return Verdict(Reason.HISTORY, resolution)
        if situation.history is HistoryPolicy.EXPLICIT:
            return self._resolved_by(d, left, right, situation)
        if self._first(self.cues.recent, parts) is not None:
            return None
        if any(_RECENT_SPAN.search(part) for part in parts):
            return None  # "over the past week", "in the last 48 hours": recent, not history
        clause = _semicolon_clause(text, start, end, left, right)
        cue = self._first(self.cues.history, (text[clause[0] : start], text[end : clause[1]]))
        if cue is not None:
            return Verdict(Reason.HISTORY, cue)
        section = d.sections.at(start)
        if section is not None and section.kind is SectionKind.HISTORY:
            return Verdict(Reason.HISTORY, section.header)
        reference = situation.reference or d.written
        times = times_in(text, clause[0], clause[1])  # a date after a ';' is its clause's
        times = [t for t in times if not _COMPARED.search(text, left, t.start)]
        if reference is not None and times:
            nearest = min(times, key=lambda t: min(abs(t.start - end), abs(start - t.end)))
            anchor = d.written or reference
            _, latest = nearest.interval(anchor)
            if latest < reference - timedelta(days=situation.window_days):
                return Verdict(Reason.HISTORY, f"dated {text[nearest.start : nearest.end]}")
        return None

    def _event_date(
        self, d: ReadDocument, start: int, end: int, left: int, right: int, situation: Situation
    ) -> Verdict | Literal[False] | None:
        """For an event with a window (a stroke within 90 days, an MI within 60): the date
        written with it decides. History when it lies outside the window; False (not
        history, whatever "s/p", "previous" or a past-history heading say) when inside; None
        when no date is written with it."""
        reference = situation.reference or d.written
        if reference is None:
            return None
        text = d.text
        own_left, own_right = _semicolon_clause(text, start, end, left, right)
        times = [
            t
            for t in times_in(text, own_left, own_right)
            if not _COMPARED.search(text, left, t.start)
            and (t.days_ago is not None or t.earliest is None or t.earliest <= reference)
        ]
        if not times:
            return None
        nearest = min(times, key=lambda t: min(abs(t.start - end), abs(start - t.end)))
        if nearest.days_ago == (0, 0):
            return False  # "today", "this week", "recently": current at the note's writing
        _, latest = nearest.interval(d.written or reference)
        if latest < reference - timedelta(days=situation.window_days):
            written = text[nearest.start : nearest.end]
            return Verdict(Reason.HISTORY, f"dated {written}", time=latest)
        return False

    def event_time(
        self, d: ReadDocument, start: int, end: int, situation: Situation
    ) -> date | None:
        """The latest day the date written with an event can mean, if one is written."""
        reference = situation.reference or d.written
        if reference is None:
            return None
        left, right = d.sentence_bounds(start, end)
        times = [
            t
            for t in times_in(d.text, left, right)
            if not _COMPARED.search(d.text, left, t.start)
            and (t.days_ago is not None or t.earliest is None or t.earliest <= reference)
        ]
        if not times:
            return None
        nearest = min(times, key=lambda t: min(abs(t.start - end), abs(start - t.end)))
        return nearest.interval(d.written or reference)[1]

    # -- helpers --------------------------------------------------------------------------

    def _resolved_by(
        self, d: ReadDocument, left: int, right: int, situation: Situation
    ) -> Verdict | None:
        """A past intervention that ended the finding ("s/p TAVI 2022", "post-AVR"): said to
        be done, or dated before the reference date; never one awaited or planned."""
        done = Situation(intervention=True, reference=situation.reference)
        for m in d.starting_in(left, right):
            if not m.concepts & situation.resolved_by:
                continue
            if self.planned(d, m.start, m.end, done) or self.hypothetical(d, m.start, m.end):
                continue
            c_left, c_right = self._clause(d, m.start, m.end)
            said_done = self.cues.done.search(d.text, max(c_left, m.start - 40), m.start) or (
                self.cues.done.search(d.text, m.end, min(c_right, m.end + 30))
            )
            past = situation.reference is not None and any(
                t.exact_day is not None
                and t.exact_day < situation.reference
                or t.month is None
                and t.days_ago is None
                and t.latest is not None
                and t.latest < situation.reference
                for t in times_in(d.text, c_left, c_right)
            )
            if said_done or past:
                return Verdict(Reason.HISTORY, f"treated: {d.text[m.start : m.end]}")
        return None

    def treated_after(
        self, d: ReadDocument, pos: int, interventions: frozenset[str], reference: date
    ) -> str | None:
        """An intervention of `interventions` said done in the narrative after `pos` (a
        troponin rise, then "He had PCI with one drug-eluting stent"), not one of the past
        history or dated long before the surgery."""
        if not interventions:
            return None
        text = d.text
        done = Situation(intervention=True, reference=reference)
        for m in d.starting_in(pos, min(len(text), pos + TREATED_REACH)):
            if not m.concepts & interventions:
                continue
            section = d.sections.at(m.start)
            if section is not None and section.kind is SectionKind.HISTORY:
                continue  # a past intervention of the history, not this event's treatment
            if self.planned(d, m.start, m.end, done) or self.hypothetical(d, m.start, m.end):
                continue
            c_left, c_right = self._clause(d, m.start, m.end)
            said_done = self.cues.done.search(text, max(c_left, m.start - 40), m.start) or (
                self.cues.done.search(text, m.end, min(c_right, m.end + 30))
            )
            old = any(
                t.latest is not None and t.latest < reference - timedelta(days=TREATED_DAYS)
                for t in times_in(text, c_left, c_right)
            )
            if said_done and not old:
                return f"treated: {text[m.start : m.end]}"
        return None

    def _current(self, part: str) -> bool:
        """Words that say it is current ("ongoing", "active"), not negated ("no active
        symptoms", "not currently")."""
        return any(
            not _NEGATED_WORD.search(part, max(0, m.start() - 8), m.start())
            for m in self.cues.current.finditer(part)
        )

    @staticmethod
    def _first(regex: CueSet, parts: tuple[str, str]) -> str | None:
        for part in parts:
            m = regex.search(part)
            if m is not None:
                return " ".join(m.group().split())
        return None

    def _same_clause(
        self,
        text: str,
        start: int,
        end: int,
        *,
        terminators: bool = True,
        elaboration: bool = False,
    ) -> bool:
        """Whether text[start:end] holds no clause break (a line that continues the
        sentence in lower case is no break), and with `terminators`, no "but", "however"...
        With `elaboration`, a bracket that lists what the clause names ("(including
        bleomycin)", "(e.g. ABVD, BEP)", "(a) chest pain, (b) syncope") is no break: a
        negation runs through it."""
        found = _CLAUSE_BREAK_RE.search(text, start, min(len(text), end + 2))
        if elaboration:
            while found is not None and found.start() < end:
                skip_to = _elaborates(text, found)
                if skip_to is None:
                    break
                found = _CLAUSE_BREAK_RE.search(text, skip_to, min(len(text), end + 2))
        if found is not None and found.start() < end:
            return False
        return not (terminators and self.cues.terminators.search(text, start, end))

    def _clause(self, d: ReadDocument, start: int, end: int) -> tuple[int, int]:
        text = d.text
        left = max(0, start - 150)
        for m in _CLAUSE_BREAK_RE.finditer(text, left, start):
            left = m.end()
        right_match = _CLAUSE_BREAK_RE.search(text, end, min(len(text), end + 150))
        right = right_match.start() if right_match else min(len(text), end + 150)
        return left, right

    def _pseudo_at(self, text: str, start: int, end: int) -> bool:
        for m in self.cues.pseudo.finditer(text, max(0, start - 25), min(len(text), end + 30)):
            if m.start() <= start < m.end() or start <= m.start() < end:
                return True
        return False


_SEEN_ON = re.compile(
    r"\s+(?:endoscopy|OGD|gastroscopy|colonoscopy|bronchoscopy|cystoscopy|scan|scans|imaging|"
    r"CT|MRI|ultrasound|USS|echo|echocardiogram|X-?ray|CXR|biopsy|bloods|testing|study)"
    r"(?![A-Za-z])",
    re.IGNORECASE,
)
_NEGATED_WORD = re.compile(r"(?<![A-Za-z])(?:no|not|non|nor|never)[\s\-]+$", re.IGNORECASE)
_CONDITION_BEFORE = re.compile(
    r"(?<![A-Za-z])(?:if|unless|once|when|until|should|in\s+case)\s+(?:[A-Za-z]+\s+){0,3}$",
    re.IGNORECASE,
)
_FUTURE_BEFORE = re.compile(
    r"(?<![A-Za-z])(?:to|will|would|should|shall|can|could|may|might|must|needs?\s+to)\s+"
    r"(?:not\s+)?be\s+$",
    re.IGNORECASE,
)
"""Words before a deed that put it in the future ("to be started", "will be given")."""
_LABEL_VALUE = re.compile(r"[ \t]*(?::|-(?=[ \t])|–)[ \t]*")
_BARE_CONDITIONS = frozenset({"if", "should", "in case"})
"""Planned cues after an intervention that only make it conditional without a comma before
them: "apixaban if AF recurs" is not started, "prednisolone 5 mg, double if unwell" is."""
_PASSIVE_RE = re.compile(r"(?<![A-Za-z])(?:was|were|been|being|is|are)\s+$", re.IGNORECASE)
_ELABORATION_RE = re.compile(
    r"\(\s*(?:e\.?\s?g\.?|i\.?\s?e\.?|incl\.?|including|includes|such\s+as|namely|especially|"
    r"specifically|particularly|in\s+particular|for\s+example|any|or|nor|either|neither)"
    r"(?![A-Za-z])|\(\s*(?:[a-h]|[ivx]{1,4}|\d{1,2})\s*\)",
    re.IGNORECASE,
)
_ENUMERATOR_CLOSE_RE = re.compile(r"(?<=\()\s*(?:[a-h]|[ivx]{1,4}|\d{1,2})\s*\)$", re.IGNORECASE)


_LIST_SPLIT = re.compile(r"\s*(?:,|(?<![A-Za-z])(?:and|or|nor)(?![A-Za-z])|/)\s*", re.IGNORECASE)


def _a_list(between: str) -> bool:
    """Whether the words between a negation cue and a mention are items of one list
    ("fever, chills, weight loss, chest pain, palpitations, dyspnea at rest, cough,")."""
    items = [i for i in _LIST_SPLIT.split(between) if i.strip()]
    return len(items) >= 2 and all(len(i.split()) <= LIST_ITEM_WORDS for i in items)


def _semicolon_clause(text: str, start: int, end: int, left: int, right: int) -> tuple[int, int]:
    """The part of the sentence [left, right) holding [start, end) between semicolons:
    "10-12 beers/day; last drink 11/19; prior DTs" - "prior" is the DTs', not the beers'."""
    cut = text.rfind(";", left, start)
    after = text.find(";", end, right)
    return (cut + 1 if cut >= 0 else left), (after if after >= 0 else right)


def _elaborates(text: str, brk: re.Match[str]) -> int | None:
    """Where to read on when a bracket at a clause break opens an elaboration ("(e.g.") or
    an enumerator ("(a)"), or closes an enumerator; None when it is a real break."""
    if brk.group() == "(":
        opener = _ELABORATION_RE.match(text, brk.start())
        return opener.end() if opener is not None else None
    if brk.group() == ")" and _ENUMERATOR_CLOSE_RE.search(text, max(0, brk.start() - 6), brk.end()):
        return brk.end()
    return None


_OBJECT_OF_RE = re.compile(
    r"(?<![A-Za-z])(?:with|by|to|from|and|for|after|lives\s+with|looks\s+after|cares\s+for|"
    r"carer\s+for|seen\s+with|accompanied\s+by)\s+(?:his|her|their|the|a)?\s*$",
    re.IGNORECASE,
)
_RELATIVE_AFTER_RE = re.compile(
    r"[ \t]*(?:\(|-|–|,|:)?[ \t]*(?:in\s+)?(?:his\s+|her\s+|the\s+)?(?:maternal\s+|paternal\s+)?"
    r"(?P<who>[A-Za-z]+)(?:\s+aged\s+\d+)?[ \t]*(?:\)|,|;|\.|$)",
    re.IGNORECASE,
)
