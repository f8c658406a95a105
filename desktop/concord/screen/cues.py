"""The context word lists (`resources/lexicon/context.json`), compiled once for the screen.

The file and its model are `concord.text.context_file` (the verifier and the scorecard read
its negation cues too); what follows is the screen's compiled form of it.

Every list is matched case-insensitively on whole words, longest phrase first, with any run
of spaces or a hyphen inside a phrase matching any run of spaces or hyphens. The lists are
data a clinician can read and extend; what they mean is decided in `concord.screen.context`
and `concord.screen.values`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from concord.screen.reading import fold_text
from concord.text.context_file import MedicationIn, read_context_file


def phrase_alternation(phrases: list[str]) -> str:
    """One regex alternation of `phrases`, longest first, whole words, spaces/hyphens loose."""
    parts = []
    for phrase in sorted(
        {fold_text(p).strip().lower() for p in phrases if p.strip()}, key=len, reverse=True
    ):
        words = re.split(r"[\s\-]+", phrase)
        body = r"[\s\-]+".join(re.escape(w) for w in words if w)
        if phrase.startswith("-"):
            body = r"-\s*" + body
        parts.append(body)
    return "|".join(parts)


_WORDS_RE = re.compile(r"[a-z0-9/+']+")
PREFILTER_REACH = 400  # longer stretches go straight to the expression


class CueSet:
    """A word list as one regular expression, with a cheap test before each search.

    Every phrase has a key word (its longest); a stretch of text in which none of the key
    words occurs cannot hold a cue, and the (slower) expression is not run on it. The
    methods mirror `re.Pattern`'s."""

    def __init__(self, phrases: list[str], regex: re.Pattern[str]) -> None:
        self.phrases = tuple(phrases)
        self.regex = regex
        keys: set[str] = set()
        for phrase in phrases:
            words = _WORDS_RE.findall(fold_text(phrase).lower())
            keys.add(max(words, key=len) if words else "")
        self._keys = frozenset(keys)
        self._always = "" in keys  # a phrase with no word: the test cannot be used

    def _may_hold(self, text: str, start: int, end: int) -> bool:
        if self._always or end - start > PREFILTER_REACH:
            return True
        return not self._keys.isdisjoint(_WORDS_RE.findall(text[start:end].lower()))

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> re.Match[str] | None:
        end = len(text) if endpos is None else endpos
        if not self._may_hold(text, pos, end):
            return None
        return self.regex.search(text, pos, end)

    def finditer(
        self, text: str, pos: int = 0, endpos: int | None = None
    ) -> Iterator[re.Match[str]]:
        end = len(text) if endpos is None else endpos
        if not self._may_hold(text, pos, end):
            return iter(())
        return self.regex.finditer(text, pos, end)

    def match(self, text: str, pos: int = 0, endpos: int | None = None) -> re.Match[str] | None:
        return self.regex.match(text, pos, len(text) if endpos is None else endpos)

    def fullmatch(self, text: str) -> re.Match[str] | None:
        return self.regex.fullmatch(text)


def word_re(phrases: list[str], *, flags: int = re.IGNORECASE) -> CueSet:
    """Any of `phrases` as a whole word or phrase (never matches when the list is empty)."""
    body = phrase_alternation(phrases) or r"(?!x)x"
    return CueSet(phrases, re.compile(rf"(?<![A-Za-z0-9])(?:{body})(?![A-Za-z0-9])", flags))


MEDICATION_CUES = tuple(MedicationIn.model_fields)


@dataclass(frozen=True)
class MedicationCues:
    """The medication word lists, compiled (see `MedicationIn` for each list's meaning)."""

    stopped: CueSet
    held: CueSet
    instruction: CueSet
    for_surgery: CueSet
    past_before: CueSet
    course_before: CueSet
    current: CueSet
    intolerance_before: CueSet
    prophylaxis: CueSet
    treatment: CueSet
    non_systemic: CueSet
    short_course: CueSet
    long_term: CueSet


@dataclass(frozen=True)
class Cues:
    """Compiled word lists. Build with `Cues.load`."""

    negation_list: CueSet
    negation_short: CueSet
    negation_direct: CueSet
    negation_after: re.Pattern[str]
    pseudo: CueSet
    checklist_no: CueSet
    checklist_no_alternation: str
    checklist_yes: CueSet
    checklist_unanswered: re.Pattern[str]
    relatives: CueSet
    not_blood: CueSet
    informant: CueSet
    self_subject: CueSet
    hypothetical_before: CueSet
    hypothetical_after: CueSet
    enacted: CueSet
    planned_before: CueSet
    planned_after: CueSet
    done: CueSet
    filler: re.Pattern[str]
    history: CueSet
    current: CueSet
    recent: CueSet
    resolution: CueSet
    now_resolution: CueSet
    target_before: CueSet
    target_after: CueSet
    later: CueSet
    earlier: CueSet
    settled_after: CueSet
    flags: frozenset[str]
    header_words: frozenset[str]
    terminators: CueSet
    section_names: dict[str, str]  # folded lower-case header -> section kind
    medication: MedicationCues
    uncertain: CueSet
    person_name: re.Pattern[str]

    @classmethod
    def load(cls, path: Path) -> Cues:
        raw = read_context_file(path)
        sections: dict[str, str] = {}
        for kind in (
            "family",
            "history",
            "plan",
            "protocol",
            "current",
            "medication",
            "past_medication",
            "allergy",
            "intolerance",
        ):
            for name in getattr(raw.sections, kind):
                sections.setdefault(" ".join(fold_text(name).lower().split()), kind)
        return cls(
            negation_list=word_re(raw.negation.before_list),
            negation_short=word_re(raw.negation.before_short),
            negation_direct=word_re(raw.negation.before_direct),
            negation_after=_after_re(raw.negation.after),
            pseudo=word_re(raw.negation.pseudo),
            checklist_no=word_re(raw.checklist.no),
            checklist_no_alternation=phrase_alternation(raw.checklist.no),
            checklist_yes=word_re(raw.checklist.yes),
            checklist_unanswered=re.compile(
                "|".join(re.escape(fold_text(u)) for u in raw.checklist.unanswered),
                re.IGNORECASE,
            ),
            relatives=word_re(raw.family.relatives),
            not_blood=word_re(raw.family.not_blood),
            informant=word_re(raw.family.informant_verbs),
            self_subject=word_re(raw.family.self),
            hypothetical_before=word_re(raw.hypothetical.before_list),
            hypothetical_after=word_re(raw.hypothetical.after),
            enacted=word_re(raw.hypothetical.enacted),
            planned_before=word_re(raw.planned.before),
            planned_after=word_re(raw.planned.after),
            done=word_re(raw.planned.done),
            filler=re.compile(
                rf"(?:[\s,]*(?<![A-Za-z0-9])(?:{phrase_alternation(raw.planned.filler)})"
                rf"(?![A-Za-z0-9]))*[\s,:\-]*",
                re.IGNORECASE,
            ),
            history=word_re(raw.history.cues),
            current=word_re(raw.history.current),
            recent=word_re(raw.history.recent),
            resolution=word_re(raw.history.resolution),
            now_resolution=word_re(raw.history.now_resolution),
            target_before=word_re(raw.values.target_before),
            target_after=word_re(raw.values.target_after),
            later=word_re(raw.values.later),
            earlier=word_re(raw.values.earlier),
            settled_after=word_re(raw.values.settled_after),
            flags=frozenset(fold_text(f).lower() for f in raw.values.flags),
            header_words=frozenset(fold_text(w).lower() for w in raw.values.header_words),
            terminators=word_re(raw.terminators),
            section_names=sections,
            uncertain=word_re(raw.uncertain),
            person_name=_person_name_re(raw.person_titles),
            medication=MedicationCues(
                **{name: word_re(getattr(raw.medication, name)) for name in MEDICATION_CUES}
            ),
        )


def _person_name_re(titles: list[str]) -> re.Pattern[str]:
    """A title, then the name it introduces: initials and one or two capitalised words
    ("Dr Aki", "Dr. T. Parkinson", "Nurse Tia Morgan"); a second word only where the name
    ends after it ("Dr Jones Pacemaker Clinic" names Dr Jones); group "name" is the name."""
    body = phrase_alternation(titles) or r"(?!x)x"
    return re.compile(
        rf"(?<![A-Za-z0-9])(?i:{body})\.?[ \t]+"
        r"(?P<name>(?:[A-Z]\.?[ \t]+){0,2}[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?"
        r"(?:[ \t]+[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?(?=[ \t]*(?:[,;:().\n]|$|[ \t][a-z])))?)"
        r"(?![A-Za-z0-9])"
    )


def _after_re(phrases: list[str]) -> re.Pattern[str]:
    """Post-cues: hyphen-glued suffixes ("bleomycin-free") and whole words."""
    return re.compile(
        rf"(?:(?<![A-Za-z0-9])|(?<=-))(?:{phrase_alternation(phrases)})(?![A-Za-z0-9])",
        re.IGNORECASE,
    )
