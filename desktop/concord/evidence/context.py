"""Whether a run of record tokens is quoted without the words that govern its meaning.

A quote of the record's own words is still not the record's meaning when the clause it
comes from goes on outside it: "No history of | bleomycin exposure", "Right | total hip
replacement", "severe | aortic stenosis", "?| DVT", "MI | ruled out", "Chest pain: | none",
"breast cancer | in mother", "TAVI | planned", "epidural | only if INR < 1.4". `governors`
finds such words: cues of each `ContextKind` before the quote (within a few words, in the
same clause, not past a column gap or a terminator such as "but") or after it (in the
value slot of a label, closing the phrase, or a condition on it). A cue before the quote
does not count when the quote carries a cue of the same kind itself ("Denies chest pain, |
no palpitations"), nor a qualifier of the noun phrase when the quote opens a phrase of its
own ("severe aortic stenosis | with a valve area of 0.8 cm2").

A trailing clause governs only when it negates, conditions or qualifies what was quoted:
a negation or an uncertainty said of it ("MI | ruled out", "DVT | , which was excluded on
duplex", "a thrombus | was suspected on the first study"), a condition closing its phrase
("oxycodone 5 mg every 6 hours | PRN", "with dosing | guidance as needed", "spinal |
provided ..."), a severity or a side ("MR | , moderate to severe"), a plan, a relative. Past
history after a quote ("| , in remission") governs only a quote that does not place what it
says in the past itself or what was done for it: "Hodgkin lymphoma 2009 treated with ABVD"
names its year and its treatment, so a remission after it changes nothing it says (and the
year makes a "history of" before it change nothing either; a treatment alone does not:
"previous | hypertension treated with amlodipine").
"""

from __future__ import annotations

from dataclasses import dataclass

from concord.evidence.canonical import GAP, TokenText
from concord.evidence.clauses import after_scope, before_scope, boundary_before
from concord.evidence.context_words import (
    AFTER,
    BEFORE,
    CHECKLIST,
    CONDITION_WORDS,
    FAMILY_LINKS,
    HISTORY_OF_ITS_OWN,
    LINK_WORDS,
    MEANS_WORDS,
    NEGATION_ANY,
    NEGATION_BEFORE,
    NEW_ITEM_WORDS,
    NOT_A_CUE,
    PARTICIPLE_CONDITIONS,
    PHRASE_WORDS,
    PREDICATE_NEGATIONS,
    PSEUDO_NEGATION,
    QUOTE_OPENERS,
    RELATIVE_WORDS,
    TERMINATOR,
    TREATED,
    ContextKind,
)
from concord.evidence.numbers import is_unit

BEFORE_WORDS = 6
"""How far back (words) a cue may govern a quote."""
AFTER_WORDS = 4
"""How far on (words) a cue after a quote may govern it."""
LABEL_MARKS = frozenset(":-=(")
"""What may stand between a label and its value ("Chest pain: none", "AS (severe)")."""
ANSWER_MARKS = frozenset(":-=")
"""What stands between a label and an answer that is a whole phrase ("Latex: no reaction")."""
PHRASE_ENDS = frozenset(",.;()!?[]")
CONDITION_MARKS = frozenset(",-(")
"""What may stand between a finding and the condition on it ("spinal, unless ...")."""
SIDE_WORDS = frozenset({"side", "sided"})
PHRASE_OPENERS = PHRASE_WORDS - {"and", "or"}
"""A quote opening with one of these starts a phrase of its own: a qualifier or a side
before the noun it follows does not reach it ("severe aortic stenosis | with a valve area
of 0.8 cm2"); "severe | and progressive ..." still goes on the qualified phrase."""
RANGE_WORDS = frozenset({"to", "-"})
"""What joins two severities into one ("moderate to severe")."""
YEARS = range(1900, 2100)
"""A four-digit number in this range, not followed by a unit, is a year."""


@dataclass(frozen=True)
class _Reach:
    """How a cue before a quote reaches it: at most `words` words between, only the
    punctuation in `crosses`, and none of `stops`."""

    words: int
    crosses: frozenset[str]
    stops: frozenset[str] = frozenset()


_NEAR = _Reach(4, frozenset("-/'"), PHRASE_WORDS)
_LABELLED = _Reach(BEFORE_WORDS, frozenset(":-/'()"))
"""Family history reaches across a label ("FH: IHD"); a "Plan:" heading does not make
every plan item hypothetical, so plan words reach only within their phrase."""
REACH_BEFORE: dict[ContextKind, _Reach] = {
    ContextKind.NEGATION: _Reach(BEFORE_WORDS, frozenset(",-/()'\"")),
    ContextKind.LATERALITY: _Reach(3, frozenset(":-'"), PHRASE_WORDS),
    ContextKind.SEVERITY: _NEAR,
    ContextKind.GRADE: _NEAR,
    ContextKind.HEDGE: _NEAR,
    ContextKind.HISTORY: _NEAR,
    ContextKind.FAMILY: _LABELLED,
    ContextKind.PLAN: _Reach(BEFORE_WORDS, frozenset("-/'()")),
}


@dataclass(frozen=True)
class Governor:
    """Record tokens start..end-1 left out of a quote: the cue and what lies between it and
    the quote."""

    kind: ContextKind
    start: int
    end: int


def _blocked(tt: TokenText, start: int, end: int, kind: ContextKind) -> set[int]:
    """Tokens inside phrases that look like cues but are not (pseudo-negations for
    negation; "38 year old" for past history)."""
    found = NOT_A_CUE.find(tt, start, end)
    if kind is ContextKind.NEGATION:
        found += PSEUDO_NEGATION.find(tt, start, end)
    return {k for a, b in found for k in range(a, b)}


def _standalone_letter(tt: TokenText, index: int) -> bool:
    """A one-letter token that is not part of "L4", "mmol/L" or "K+"."""
    if len(tt.token(index)) > 1:
        return True
    glued_before = tt.glued(index) and tt.token(index - 1) not in "(["
    glued_after = (
        index + 1 < len(tt) and tt.glued(index + 1) and tt.token(index + 1) not in ")],.:;"
    )
    return not (glued_before or glued_after)


@dataclass(frozen=True)
class QuoteCues:
    """What a quote brings of its own: the context kinds it carries, whether it holds a
    number, whether it opens a clause of its own, whether it says what was done for it."""

    kinds: frozenset[ContextKind]
    has_number: bool
    opens_clause: bool  # it starts with "but", "reports" ...: what came before ends there
    treated: bool = False  # "lymphoma treated with ABVD": a remission after it changes nothing

    @classmethod
    def of(cls, quote: TokenText) -> QuoteCues:
        kinds = frozenset(kind for kind in BEFORE if _carries(quote, kind))
        opens = bool(len(quote)) and TERMINATOR.match_at(quote, 0, len(quote)) > 0
        treated = bool(TREATED.find(quote, 0, len(quote)))
        return cls(kinds, any(c.isdigit() for c in quote.joined), opens, treated)


def _carries(quote: TokenText, kind: ContextKind) -> bool:
    """Whether the quote has a cue of `kind` of its own (a negation only in its opening
    phrase, before the first comma, colon or full stop, with no word before it but
    QUOTE_OPENERS; past history also as a year or "s/p": `HISTORY_OWN`)."""
    if kind is ContextKind.HISTORY:
        return bool(HISTORY_OF_ITS_OWN.find(quote, 0, len(quote))) or _dated(quote)
    if kind is not ContextKind.NEGATION:
        return bool(BEFORE[kind].find(quote, 0, len(quote)))
    end, words = 0, 0
    while end < len(quote) and words < BEFORE_WORDS and quote.token(end) not in ",;:.":
        words += quote.is_word(end)
        end += 1
    blocked = _blocked(quote, 0, end, kind)
    own = [a for a, _ in BEFORE[kind].find(quote, 0, end) if a not in blocked]
    return bool(own) and all(
        not quote.is_word(k) or quote.token(k) in QUOTE_OPENERS for k in range(own[0])
    )


def _dated(quote: TokenText) -> bool:
    """Whether the quote names a year ("lymphoma 2009", "DVT 03/2015"), not a quantity."""
    for k in range(len(quote)):
        token = quote.token(k)
        year = len(token) == 4 and token.isdigit() and int(token) in YEARS
        if year and (k + 1 == len(quote) or not is_unit(quote.token(k + 1))):
            return True
    return False


def _between(tt: TokenText, start: int, end: int) -> tuple[int, list[str]]:
    """(words, punctuation tokens) in tokens start..end-1."""
    words = sum(tt.is_word(k) for k in range(start, end))
    marks = [tt.token(k) for k in range(start, end) if not tt.is_word(k)]
    return words, marks


def _crosses(tt: TokenText, b: int, start: int, kind: ContextKind) -> bool:
    """Whether a cue of `kind` ending at b reaches over the punctuation up to `start`: the
    marks its reach crosses, and for a relative the comma opening a clause about them
    ("her father, who died of | an MI at 52")."""
    crosses = REACH_BEFORE[kind].crosses
    return all(
        tt.is_word(k)
        or tt.token(k) in crosses
        or (kind is ContextKind.FAMILY and k + 1 < start and tt.token(k + 1) in RELATIVE_WORDS)
        for k in range(b, start)
    )


def _governors_before(tt: TokenText, start: int, quote: QuoteCues) -> list[Governor]:
    scope = start if quote.opens_clause else before_scope(tt, start, BEFORE_WORDS)
    terminators = [  # "and | would"; "not yet" is a negation, not a clause break
        t
        for t in TERMINATOR.find(tt, scope, min(len(tt), start + 1))
        if not (t[0] > 0 and NEGATION_BEFORE.match_at(tt, t[0] - 1, t[0]))
    ]
    low = min(terminators[-1][1], start) if terminators else scope
    # a relative clause after a relative goes on about them ("her mother who had | ...")
    about = [t for t in terminators if tt.token(t[0]) not in RELATIVE_WORDS]
    relatives_low = min(about[-1][1], start) if about else scope
    found = []
    opens_phrase = start < len(tt) and tt.token(start) in PHRASE_OPENERS
    for kind, cues in BEFORE.items():
        if kind in quote.kinds:
            continue
        reach = REACH_BEFORE[kind]
        if opens_phrase and reach.stops:
            continue  # "severe aortic stenosis | with a valve area of 0.8 cm2"
        kind_low = relatives_low if kind is ContextKind.FAMILY else low
        blocked = _blocked(tt, kind_low, start, kind)
        for a, b in reversed(cues.find(tt, kind_low, start)):
            if a in blocked or (kind is ContextKind.LATERALITY and not _standalone_letter(tt, a)):
                continue
            words, marks = _between(tt, b, start)
            if words > reach.words or not _crosses(tt, b, start, kind):
                continue
            if reach.stops.intersection(tt.tokens(b, start)):
                continue
            if kind is ContextKind.NEGATION and "," in marks and quote.has_number:
                continue  # "No LVH, EF 55%": a measurement after the comma is its own finding
            found.append(Governor(kind, a, start))
            break
    if start > 0 and tt.token(start - 1) == "?" and not tt.glued(start - 1):
        found.append(Governor(ContextKind.HEDGE, start - 1, start))  # "?DVT", "? PE"
    return found


def _phrase_ends_at(tt: TokenText, index: int) -> bool:
    return (
        index >= len(tt)
        or tt.token(index) in PHRASE_ENDS
        or boundary_before(tt, index, trailing=True)
        or bool(tt.flags[index] & GAP)
    )


def _linked(tt: TokenText, end: int, a: int) -> bool:
    """Whether only link words stand between a quote ending at `end` and a cue at `a`:
    "PE considered and ruled out", "DVT, which was excluded" (a relative pronoun only
    first)."""
    words = [k for k in range(end, a) if tt.is_word(k)]
    return all(
        tt.token(k) in LINK_WORDS or (i == 0 and tt.token(k) in RELATIVE_WORDS)
        for i, k in enumerate(words)
    )


def _severity_end(tt: TokenText, b: int, high: int) -> int:
    """The end of a severity cue ending at b, taking in a range ("moderate | to severe")."""
    if b + 1 < high and tt.token(b) in RANGE_WORDS:
        length = BEFORE[ContextKind.SEVERITY].match_at(tt, b + 1, high)
        if length:
            return b + 1 + length
    return b


def _after_qualifies(tt: TokenText, kind: ContextKind, end: int, a: int, b: int, high: int) -> bool:
    """Whether the cue at tokens a..b-1 after a quote ending at `end` governs it."""
    words, marks = _between(tt, end, a)
    adjacent = words == 0 and all(m in LABEL_MARKS for m in marks)
    closes = _phrase_ends_at(tt, b)
    if kind in (ContextKind.NEGATION, ContextKind.HISTORY, ContextKind.HEDGE, ContextKind.PLAN):
        linked = _linked(tt, end, a)
        if kind is ContextKind.NEGATION and tt.token(a) in PREDICATE_NEGATIONS:
            plain = all(tt.token(k) in LINK_WORDS for k in range(end, a) if tt.is_word(k))
            return plain and not marks and words <= AFTER_WORDS - 1  # "MRI not performed"
        means = b < len(tt) and tt.token(b) in MEANS_WORDS  # "excluded on duplex"
        return adjacent or (
            (closes or means) and linked and words <= AFTER_WORDS - 1 and "(" not in marks
        )
    if kind in (ContextKind.SEVERITY, ContextKind.LATERALITY):
        if kind is ContextKind.SEVERITY:
            closes = _phrase_ends_at(tt, _severity_end(tt, b, high))
        side = b < len(tt) and tt.token(b) in SIDE_WORDS
        appended = words == 0 and marks == [","]  # "hernia repair, left."
        return (adjacent or appended) and (closes or side)
    if kind is ContextKind.CONDITION:  # "epidural only if", "spinal, unless", "- if"
        participle = b == a + 1 and tt.token(a) in PARTICIPLE_CONDITIONS
        if participle and _phrase_ends_at(tt, b):
            return False
        if words == 0:
            return all(m in CONDITION_MARKS for m in marks)
        between = {tt.token(k) for k in range(end, a) if tt.is_word(k)}
        return not marks and words <= CONDITION_WORDS and not between & NEW_ITEM_WORDS
    if kind is ContextKind.FAMILY:  # "breast cancer | in his mother"
        connectors = [tt.token(k) for k in range(end, a) if tt.is_word(k)]
        return all(w in FAMILY_LINKS for w in connectors) and all(m in LABEL_MARKS for m in marks)
    return False


def _relative_opener(tt: TokenText, end: int, high: int) -> int | None:
    """The relative pronoun opening a clause right after a quote ending at `end` (", which
    was excluded"), else None."""
    at = end
    while at < high and tt.token(at) in CONDITION_MARKS:
        at += 1
    return at if at < high and tt.token(at) in RELATIVE_WORDS else None


def _governors_after(tt: TokenText, end: int, quote: QuoteCues) -> list[Governor]:
    high = after_scope(tt, end, AFTER_WORDS + CONDITION_WORDS)
    relative = _relative_opener(tt, end, high)
    terminators = [t for t in TERMINATOR.find(tt, end, high) if t[0] != relative]
    if terminators:
        high = terminators[0][0]
    if end < high and tt.token(end) == "?":
        return [Governor(ContextKind.HEDGE, end, end + 1)]  # "DVT?"
    found = []
    for kind, cues in AFTER.items():
        if kind is ContextKind.HISTORY and (kind in quote.kinds or quote.treated):
            continue  # "lymphoma 2009 treated with ABVD | , in remission"
        blocked = _blocked(tt, end, high, kind)
        for a, b in cues.find(tt, end, high):
            if a in blocked or (kind is ContextKind.LATERALITY and not _standalone_letter(tt, a)):
                continue
            if _after_qualifies(tt, kind, end, a, b, high):
                found.append(Governor(kind, end, _reach_end(tt, kind, b, high)))
                break
    if not any(g.kind is ContextKind.NEGATION for g in found):
        answer = _negative_answer(tt, end, high, ContextKind.NEGATION in quote.kinds)
        if answer is not None:
            found.append(Governor(ContextKind.NEGATION, end, answer))
    return found


def _reach_end(tt: TokenText, kind: ContextKind, b: int, high: int) -> int:
    """Where a governor after the quote ends: its cue, or a severity's range."""
    return _severity_end(tt, b, high) if kind is ContextKind.SEVERITY else b


def _negative_answer(tt: TokenText, end: int, high: int, negative: bool) -> int | None:
    """The end of a negative answer in the value slot of the label a quote ends on, else
    None: a checklist answer standing alone ("Chest pain: no", "PND   nil"), or, unless the
    quote is `negative` itself ("Does not have GCA - no headache"), a value that opens with a
    negation ("Chlorhexidine: no known reaction", "Smoking - never smoked")."""
    at = end
    while at < high and tt.token(at) in LABEL_MARKS | {"?"}:
        at += 1
    if at >= high or not (at > end or tt.flags[at] & GAP):
        return None
    answer = CHECKLIST.match_at(tt, at, high)
    if answer and _phrase_ends_at(tt, at + answer):
        return at + answer
    if negative or at in _blocked(tt, at, high, ContextKind.NEGATION):
        return None  # "ECG: no change"
    if not (set(tt.tokens(end, at)) <= ANSWER_MARKS or tt.flags[at] & GAP):
        return None  # "Hypertension (not on treatment)": an aside, not the answer
    opening = NEGATION_BEFORE.match_at(tt, at, high)
    return at + opening if opening else None


def governors(tt: TokenText, start: int, end: int, quote: QuoteCues) -> list[Governor]:
    """Words governing record tokens start..end-1 that the quote leaves out, before then
    after, one per kind and side at most."""
    return _governors_before(tt, start, quote) + _governors_after(tt, end, quote)


def negated(tt: TokenText, start: int, end: int) -> bool:
    """Whether a negation cue stands inside tokens start..end-1 (pseudo-negations aside)."""
    blocked = _blocked(tt, start, end, ContextKind.NEGATION)
    return any(a not in blocked for a, _ in NEGATION_ANY.find(tt, start, end))
