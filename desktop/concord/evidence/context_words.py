"""The words that give a finding its context, by kind: what a quote must not cut off.

Negation cues are those of `concord.evidence.negation` (one list for the whole evidence
package); the other kinds are listed here. Phrases are matched as canonical tokens, so
"h/o", "?" and "family history of" are cues like single words, and a hyphenated compound
("moderate-severe", "left-sided") carries the cues of its parts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from concord.evidence.canonical import TokenText
from concord.evidence.negation import POST_CUES, PRE_CUES, PSEUDO_NEGATIONS, TERMINATORS


class ContextKind(StrEnum):
    NEGATION = "negation"
    LATERALITY = "laterality"
    SEVERITY = "severity"
    GRADE = "grade or class"
    HEDGE = "uncertainty"
    FAMILY = "family history"
    PLAN = "plan"
    HISTORY = "past history"
    CONDITION = "condition"


def _words(text: str) -> tuple[str, ...]:
    """Whitespace-separated cues; a hyphen joins the words of one phrase ("ruled-out")."""
    return tuple(text.split())


LATERALITY = _words(
    "left right bilateral bilaterally unilateral ipsilateral contralateral lt rt l r"
)
SEVERITY = _words(
    """mild mildly moderate moderately severe severely critical critically significant
    significantly marked markedly minimal minimally trivial trace slight slightly small large
    massive extensive gross grossly profound borderline advanced"""
)
GRADE = _words("grade gr class stage nyha ccs asa gold mallampati type pugh")
HEDGE = _words(
    """possible possibly probable probably likely unlikely suspected suspect suspicion
    query questionable presumed presumptive equivocal r/o differential consistent-with
    in-keeping-with suggestive-of compatible-with concerning-for rule-out to-exclude
    cannot-exclude undiagnosed unconfirmed unproven provisional tentative putative
    concern-for worrisome-for question-of risk-of risk-for evaluate-for evaluation-for
    assess-for screen-for screening-for workup-for"""
)
"""Uncertainty before a finding: it is suspected, feared, to be looked for, not diagnosed
("undiagnosed | sleep apnoea", "at risk of | delirium", "evaluate for | CAD")."""
HEDGE_AFTER = _words(
    """? query possible probable likely unlikely suspected questionable not-excluded
    not-ruled-out cannot-be-excluded cannot-be-ruled-out can-not-be-ruled-out
    not-been-ruled-out to-be-excluded to-be-ruled-out not-confirmed unconfirmed
    to-be-confirmed"""
)
FAMILY = _words(
    """family fh fhx mother father mum dad brother sister sibling siblings parent parents
    son daughter grandmother grandfather aunt uncle cousin maternal paternal"""
)
PLAN = _words(
    """planned plan planning plans scheduled booked awaiting await pending proposed listed
    referred consider considering candidate will would should if intended to-start
    to-commence"""
)
PLAN_AFTER = _words("planned pending awaited booked scheduled proposed to-follow")
HISTORY = _words(
    "previous previously prior old former remote childhood resolved h/o hx-of history-of ex"
)
HISTORY_AFTER = _words("resolved resolving in-remission historical previously")
HISTORY_OWN = _words("s/p status-post")
"""A quote with one of these, a history cue or a year of its own already places what it
says in the past: a history cue before or after it ("history of | lymphoma 2009 treated
with ABVD | , in remission") does not change what it says."""
TREATED_WORDS = _words("treated underwent completed s/p status-post")
"""A quote saying what was done for a finding ("lymphoma treated with ABVD") is its history:
an outcome after it ("| , in remission", "| , resolving") changes nothing it says."""
CONDITION_AFTER = _words(
    """if only-if unless provided-that providing-that provided providing as-long-as
    so-long-as subject-to conditional-on conditional-upon dependent-on depending-on
    contingent-on as-needed as-required when-needed when-required when-necessary prn p.r.n
    on-demand"""
)
PARTICIPLE_CONDITIONS = frozenset({"provided", "providing"})
"""A condition only when a clause follows ("spinal | provided platelets remain above 80");
closing the phrase they are participles ("Information leaflet provided.")."""
"""A condition after a finding, a plan or a dose makes it conditional: "epidural | only if INR
< 1.4", "proceed with spinal | unless platelets fall", "oramorph 5 mg | if required",
"oxycodone 5 mg every 6 hours | PRN", "with dosing | guidance as needed"."""
CONDITION_WORDS = 3
"""Words that may stand between a quote and the condition closing its phrase."""
NEW_ITEM_WORDS = frozenset(_words("and or plus with then but"))
"""Between a quote and a condition, one of these starts another item the condition may
belong to ("aspirin daily | and paracetamol as needed")."""
CHECKLIST_NO = _words("no not nil n denies denied deny")
"""Answers that negate a label only when they stand in its value slot ("Chest pain: no")."""
NEGATION_AFTER_EXTRA = _words("nil neg")
NOT_CONTEXT = _words(
    """year-old years-old yr-old yrs-old y-old month-old months-old week-old weeks-old
    day-old days-old hosp-no hospital-no nhs-no ref-no tel-no patient-no unit-no"""
)
"""Phrases that contain a cue word without its meaning ("38 year old", "Hosp no.")."""
CLAUSE_VERBS = _words(
    """reports reported complains complained describes described presents presented
    admits admitted states stated notes noted tells told says said informs informed explains
    explained mentions mentioned which who"""
)
"""Verbs that start a new statement: "Denies chest pain, | reports dyspnoea", "Her daughter
tells me | she has become more breathless" (the teller is not the finding's family)."""
CLAUSE_OPENERS = _words(
    """and-would and-will and-can and-could and-should and-may and-is and-are and-was
    and-were and-has and-have"""
)
"""A coordinated clause with a verb of its own: "never had a transfusion | and would accept
one"; what governs the first clause stops there."""
PREDICATE_NEGATIONS = _words("not never")
"""After a finding, with nothing between but link words, these negate what is said of it:
"MRI not performed", "packed cells are not required"."""
QUOTE_OPENERS = frozenset(
    _words(
        """he she they it there this that patient pt is are was were be been has have had
        does do did can could will would and but also so then the a an"""
    )
)
"""Words that may come before a quote's own negation without being negated by it ("she
does not need bridging"); any other word before it is governed by what precedes the quote
("[no evidence of] metastases and no enlarged nodes")."""
LINK_WORDS = frozenset(
    _words(
        """and now since subsequently then has had have been was were is are fully treated
        considered felt thought deemed believed judged"""
    )
)
FAMILY_LINKS = frozenset(_words("in his her their the a an both"))
"""Words between a finding and the relative it belongs to ("breast cancer in his mother")."""
RELATIVE_WORDS = frozenset(_words("which who whose that"))
"""A relative clause opened right after a quote says something of it (", which was excluded
on CT"): these link a finding to the cue after it."""
MEANS_WORDS = frozenset(_words("on by with at in after following via"))
"""A cue after a finding may go on with how or when ("excluded on duplex", "ruled out by
CT", "suspected on the first study") and still close the finding's phrase; "negative for"
says something of another finding."""
"""Words that may stand between a finding and the cue after it ("PE considered and ruled
out", "pneumonia treated and resolved", "PE was felt unlikely"); any other word makes the
cue another finding's ("Murphy's sign positive, rebound negative")."""
PHRASE_WORDS = frozenset(
    _words("with and or but of on in for to at by from since after before while")
)
"""Words that end the noun phrase a qualifier or laterality word belongs to ("moderate
aortic stenosis with | mildly impaired LV function")."""


def _phrase(text: str) -> tuple[str, ...]:
    """A cue as tokens; in the lists above a hyphen joins the words of a phrase."""
    return tuple(TokenText.of(text.replace("-", " ")).tokens())


@dataclass(frozen=True)
class CueSet:
    """Cue phrases as token tuples, found by their first token."""

    by_first: dict[str, tuple[tuple[str, ...], ...]]
    words: frozenset[str]  # single-token cues, also matched against compound parts

    @classmethod
    def of(cls, phrases: Iterable[str]) -> CueSet:
        cues = sorted({_phrase(p) for p in phrases if p.strip()}, key=len, reverse=True)
        by_first: dict[str, list[tuple[str, ...]]] = {}
        for cue in cues:
            if cue:
                by_first.setdefault(cue[0], []).append(cue)
        words = frozenset(cue[0] for cue in cues if len(cue) == 1)
        return cls({k: tuple(v) for k, v in by_first.items()}, words)

    def match_at(self, tt: TokenText, index: int, end: int) -> int:
        """Length in tokens of the longest cue starting at token `index` and ending by
        `end`, 0 if none. A single-word cue also matches a part of a compound word."""
        first = tt.token(index)
        for cue in self.by_first.get(first, ()):
            if index + len(cue) <= end and tuple(tt.tokens(index, index + len(cue))) == cue:
                return len(cue)
        if tt.is_word(index) and len(first) > 3 and any(p in self.words for p in tt.parts(index)):
            return 1
        return 0

    def find(self, tt: TokenText, start: int, end: int) -> list[tuple[int, int]]:
        """Non-overlapping (start, end) token runs of cues inside start..end-1."""
        found, index = [], start
        while index < end:
            length = self.match_at(tt, index, end)
            if length:
                found.append((index, index + length))
                index += length
            else:
                index += 1
        return found


NEGATION_BEFORE = CueSet.of(PRE_CUES)
NEGATION_AFTER = CueSet.of((*POST_CUES, *NEGATION_AFTER_EXTRA, *PREDICATE_NEGATIONS))
NEGATION_ANY = CueSet.of((*PRE_CUES, *POST_CUES))
PSEUDO_NEGATION = CueSet.of(PSEUDO_NEGATIONS)
NOT_A_CUE = CueSet.of(NOT_CONTEXT)
HISTORY_OF_ITS_OWN = CueSet.of((*HISTORY, *HISTORY_OWN))
TREATED = CueSet.of(TREATED_WORDS)
TERMINATOR = CueSet.of((*TERMINATORS, *CLAUSE_VERBS, *CLAUSE_OPENERS))
CHECKLIST = CueSet.of(CHECKLIST_NO)
BEFORE: dict[ContextKind, CueSet] = {
    ContextKind.NEGATION: NEGATION_BEFORE,
    ContextKind.LATERALITY: CueSet.of(LATERALITY),
    ContextKind.SEVERITY: CueSet.of(SEVERITY),
    ContextKind.GRADE: CueSet.of(GRADE),
    ContextKind.HEDGE: CueSet.of(HEDGE),
    ContextKind.FAMILY: CueSet.of(FAMILY),
    ContextKind.PLAN: CueSet.of(PLAN),
    ContextKind.HISTORY: CueSet.of(HISTORY),
}
AFTER: dict[ContextKind, CueSet] = {
    ContextKind.NEGATION: NEGATION_AFTER,
    ContextKind.LATERALITY: BEFORE[ContextKind.LATERALITY],
    ContextKind.SEVERITY: BEFORE[ContextKind.SEVERITY],
    ContextKind.HEDGE: CueSet.of(HEDGE_AFTER),
    ContextKind.FAMILY: BEFORE[ContextKind.FAMILY],
    ContextKind.PLAN: CueSet.of(PLAN_AFTER),
    ContextKind.HISTORY: CueSet.of(HISTORY_AFTER),
    ContextKind.CONDITION: CueSet.of(CONDITION_AFTER),
}
