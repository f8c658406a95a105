"""Gate rules on words: a concept named (`lexicon`) or named with a grade (`graded`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import date

from concord.domain.gate import GateStatus
from concord.screen.context import HistoryPolicy, Reason, Situation
from concord.screen.document import ReadDocument
from concord.screen.findings import Finding
from concord.screen.lexicon import Mention
from concord.screen.rules import Explanation, GradedRule, LexiconRule, ReactionElsewhere
from concord.screen.screening import Screening
from concord.screen.values import QuantitySpec

UNLESS_REACH = 1500  # characters around a finding searched for what keeps it a finding
_ATTRIBUTION_RE = re.compile(
    r"(?<![A-Za-z])(?:secondary\s+to|due\s+to|attributed\s+to|attributable\s+to|in\s+the\s+"
    r"(?:context|setting)\s+of|in\s+keeping\s+with|likely\s+(?:from|due\s+to|secondary\s+to)|"
    r"felt\s+to\s+be|thought\s+to\s+be|explained\s+by|because\s+of|related\s+to|caused\s+by|"
    r"reflects?|from|type\s*2|chronically|chronic|demand|non-?\s*ischaemic|non-?\s*cardiac)"
    r"(?![A-Za-z])",
    re.IGNORECASE,
)


def finding(
    gate_id: str,
    status: GateStatus,
    d: ReadDocument,
    start: int,
    end: int,
    detail: str,
    value: float | None = None,
    unit: str = "",
    time: date | None = None,
) -> Finding:
    """A finding at read-text span [start, end) of `d`, mapped to the document's own text."""
    own_start, own_end = d.span(start, end)
    return Finding(gate_id, status, d.source_id, own_start, own_end, detail, value, unit, time)


def lexicon_findings(gate_id: str, rule: LexiconRule, s: Screening) -> Iterator[Finding]:
    """The rule's findings; for an event with a window, a mention with no date of its own
    defers to the record's dated mentions of it, as an undated stent does: where the event
    is dated only outside its window ("CABG 2015"), "s/p CABG" elsewhere is that one."""
    found = list(_lexicon_findings(gate_id, rule, s))
    if rule.within_days is None or rule.history == "counts":
        yield from found
        return
    dated_out = [f for f in found if f.status is GateStatus.NEGATED and f.time is not None]
    dated_in = any(f.status is GateStatus.TRIGGERED and f.time is not None for f in found)
    for f in found:
        if f.status is GateStatus.TRIGGERED and f.time is None and dated_out and not dated_in:
            when = dated_out[0].time
            detail = f"{f.detail}, undated: the record dates it {when.isoformat() if when else ''}"
            yield replace(f, status=GateStatus.NEGATED, detail=detail.rstrip())
        else:
            yield f


def _lexicon_findings(gate_id: str, rule: LexiconRule, s: Screening) -> Iterator[Finding]:
    history = HistoryPolicy(rule.history)
    resolved_by = frozenset(rule.resolved_by)
    near, unless = frozenset(rule.near), frozenset(rule.unless_near)
    allergens = frozenset(rule.other_allergens) | near
    elsewhere = rule.unless_reaction
    for d, m in s.mentions(rule.concepts):
        term = d.text[m.start : m.end]
        if (near or rule.near_sections) and not _near(s, d, m, near, rule.near_sections):
            continue
        if unless and _near(s, d, m, unless, [], done=frozenset(rule.concepts)):
            continue
        if elsewhere is not None and _reaction_of(d, m, elsewhere):
            continue
        if rule.other_allergens:
            to = attached_allergens(d, m, allergens)
            if to and not any(a.concepts & near for a in to):
                written = ", ".join(d.text[a.start : a.end] for a in to)
                detail = f"'{term}' to {written}, not to a drug, latex or chlorhexidine"
                yield finding(gate_id, GateStatus.NEGATED, d, m.start, m.end, detail)
                continue
        situation = s.situation(m, history, resolved_by, rule.within_days)
        verdict = s.context.verdict(d, m.start, m.end, situation)
        if (
            verdict is not None
            and rule.relatives_count
            and verdict.reason is Reason.FAMILY
            and not s.context.cues.not_blood.fullmatch(verdict.cue)
        ):
            relative = verdict.cue
            verdict = s.context.verdict(d, m.start, m.end, situation, relatives=False)
            if verdict is None:
                detail = f"'{term}' in a blood relative ('{relative}'): the patient's risk too"
                yield finding(gate_id, GateStatus.TRIGGERED, d, m.start, m.end, detail)
                continue
        if verdict is not None:
            when = verdict.time if verdict.reason is Reason.HISTORY else None
            detail = verdict.describe(term)
            yield finding(gate_id, GateStatus.NEGATED, d, m.start, m.end, detail, time=when)
            continue
        if not rule.fires:
            continue
        if rule.diagnosed_only:
            doubt = _uncertain(s, d, m)
            if doubt is not None:
                detail = f"'{term}': suspected, not diagnosed ('{doubt}')"
                yield finding(gate_id, GateStatus.NEGATED, d, m.start, m.end, detail)
                continue
        if rule.value_decides and _has_value(s, d, m):
            continue
        treated = s.context.treated_after(d, m.end, frozenset(rule.treated_by), s.clock.reference)
        if treated is not None:
            yield finding(gate_id, GateStatus.NEGATED, d, m.start, m.end, f"'{term}': {treated}")
            continue
        if rule.explained_by is not None:
            why = explained(s, d, m, rule.explained_by)
            if why is not None:
                yield finding(gate_id, GateStatus.NEGATED, d, m.start, m.end, f"'{term}': {why}")
                continue
        when = s.context.event_time(d, m.start, m.end, situation) if situation.event else None
        detail = f"'{term}' in record" + (f" ({when.isoformat()})" if when else "")
        yield finding(gate_id, GateStatus.TRIGGERED, d, m.start, m.end, detail, time=when)


UNCERTAIN_WORDS = 6  # words between an uncertainty cue and the finding it qualifies


def _uncertain(s: Screening, d: ReadDocument, m: Mention) -> str | None:
    """An uncertainty cue in the clause just before the mention ("possible OSA", "she thinks
    he might have sleep apnoea", "?OSA")."""
    start, _ = d.entry_bounds(m.start, m.end)
    low = max(start, m.start - 60)
    found = None
    for cue in s.context.cues.uncertain.finditer(d.text, low, m.start):
        if len(d.text[cue.end() : m.start].split()) <= UNCERTAIN_WORDS:
            found = cue
    if found is None and d.text[max(0, m.start - 1) : m.start] == "?":
        return "?"
    return " ".join(found.group().split()) if found is not None else None


def _near(
    s: Screening,
    d: ReadDocument,
    m: Mention,
    concepts: frozenset[str],
    sections: list[str],
    *,
    done: frozenset[str] = frozenset(),
) -> bool:
    """Whether one of `concepts` is named, not negated, in the mention's item (its list line
    or clause, up to a semicolon: "wasp sting - anaphylaxis; no drug allergies" names no
    drug with the anaphylaxis), or the mention lies in a section of one of the `sections`
    kinds. With `done` (the rule's own concepts), it must also be said done, not planned,
    hypothetical or questioned ("de-labelling planned", "de-labelled?" leave the allergy
    standing), and be this mention's: no other of `done` named between them ("Penicillin
    anaphylaxis, cefalexin allergy de-labelled" de-labels the cefalexin only)."""
    section = d.sections.at(m.start)
    if section is not None and section.kind.value in sections:
        return True
    if not concepts:
        return False
    start, end = d.item_bounds(m.start, m.end)
    if section is not None:
        start = max(start, section.body_start)  # the heading names the list, not the item
    return any(
        other.concepts & concepts
        and (other.start, other.end) != (m.start, m.end)
        and s.context.negated_before(d, other.start) is None
        and not (done and (_not_done(s, d, other) or _another_between(d, m, other, done)))
        for other in d.starting_in(start, end)
    )


def _another_between(d: ReadDocument, m: Mention, other: Mention, concepts: frozenset[str]) -> bool:
    """Whether a mention of `concepts` not coordinated with `m` stands between `m` and
    `other` ("morphine and cefalexin without any reaction" says it of both)."""
    low, high = (m.end, other.start) if m.end <= other.start else (other.end, m.start)
    last = m if m.end <= other.start else None
    for o in d.starting_in(low, high):
        if not (o.concepts & concepts and low <= o.start and o.end <= high):
            continue
        if last is None or not _COORDINATED.match(d.text[last.end : o.start]):
            return True
        last = o
    return False


def _not_done(s: Screening, d: ReadDocument, m: Mention) -> bool:
    """A deed only planned, awaited or hypothetical ("de-labelling planned", "for a
    challenge", "if the challenge is negative")."""
    deed = Situation(intervention=True, reference=s.clock.reference)
    return (
        _QUESTIONED.match(d.text, m.end) is not None
        or s.context.hypothetical(d, m.start, m.end) is not None
        or s.context.planned(d, m.start, m.end, deed) is not None
    )


_QUESTIONED = re.compile(r"[ \t]*\?")  # "de-labelled?": not known to be done
_REACTION_TO = re.compile(
    r"[ \t]*(?:to|from|with|after|following|on|due\s+to|secondary\s+to|caused\s+by)[ \t]+"
    r"(?:(?:the|a|an|his|her|IV|oral)[ \t]+)?$",
    re.IGNORECASE,
)
_WRITTEN_WITH = re.compile(r"^[ \t]*(?:[(\[:=>\-–]|->)[ \t(\[:=>\-–]*$")
_COORDINATED = re.compile(r"^(?:[ \t]*(?:,|/|&|\+|and|or|to|with)[ \t]*)+$", re.IGNORECASE)


def attached_allergens(
    d: ReadDocument, reaction: Mention, concepts: frozenset[str]
) -> list[Mention]:
    """The allergens a reaction is written with, in its item: "anaphylaxis to X" (and what
    is listed with X), else "X (anaphylaxis)" or "X - anaphylaxis", else the nearest; empty
    when the item names none."""
    start, end = d.item_bounds(reaction.start, reaction.end)
    found = [
        o
        for o in d.starting_in(start, end)
        if o.concepts & concepts and (o.start, o.end) != (reaction.start, reaction.end)
    ]
    if not found:
        return []
    text = d.text
    after = [o for o in found if o.start >= reaction.end]
    before = [o for o in found if o.end <= reaction.start]
    nearest: Mention | None = None
    if after and _REACTION_TO.fullmatch(text, reaction.end, after[0].start):
        nearest = after[0]
    elif before and _WRITTEN_WITH.match(text[before[-1].end : reaction.start]):
        nearest = before[-1]
    if nearest is None:

        def gap(o: Mention) -> int:
            return reaction.start - o.end if o.end <= reaction.start else o.start - reaction.end

        nearest = min(found, key=gap)
    i = found.index(nearest)
    lo = hi = i
    while lo > 0 and _COORDINATED.match(text[found[lo - 1].end : found[lo].start]):
        lo -= 1
    while hi + 1 < len(found) and _COORDINATED.match(text[found[hi].end : found[hi + 1].start]):
        hi += 1
    return found[lo : hi + 1]


def _reaction_of(d: ReadDocument, m: Mention, elsewhere: ReactionElsewhere) -> bool:
    """Whether a reaction of `elsewhere` in the mention's item is written with it (the
    mention is one of the allergens the reaction belongs to)."""
    reactions, allergens = frozenset(elsewhere.reactions), frozenset(elsewhere.allergens)
    start, end = d.item_bounds(m.start, m.end)
    for other in d.starting_in(start, end):
        if other.concepts & reactions and (other.start, other.end) != (m.start, m.end):
            to = attached_allergens(d, other, allergens)
            if not to or any((a.start, a.end) == (m.start, m.end) for a in to):
                return True
    return False


def graded_findings(gate_id: str, rule: GradedRule, s: Screening) -> Iterator[Finding]:
    scale = s.scales[rule.scale]
    history = HistoryPolicy(rule.history)
    resolved_by = frozenset(rule.resolved_by)
    for d, m in s.mentions(rule.concepts):
        grade = scale.grade(d.text, m.start, m.end)
        if grade is None or grade.high < rule.at_least:
            continue
        start, end = min(m.start, grade.start), max(m.end, grade.end)
        written = " ".join(d.text[start:end].split())
        if grade.negated:
            detail = f"'{written}': {rule.scale} below the threshold"
            yield finding(gate_id, GateStatus.NEGATED, d, start, end, detail)
            continue
        situation = s.situation(m, history, resolved_by, rule.within_days)
        verdict = s.context.verdict(d, start, end, situation)
        if verdict is not None:
            yield finding(gate_id, GateStatus.NEGATED, d, start, end, verdict.describe(written))
            continue
        detail = f"'{written}' ({rule.scale}: {grade.written.lower()})"
        yield finding(gate_id, GateStatus.TRIGGERED, d, start, end, detail)


def explained(s: Screening, d: ReadDocument, m: Mention, why: Explanation) -> str | None:
    """The stated cause that explains a finding away ("troponin rise attributed to sepsis"),
    unless the document also affirms one of `why.unless` (ongoing chest pain)."""
    left, right = d.paragraph_bounds(m.start, m.end)
    causes, unless = set(why.causes), set(why.unless)
    nearby = d.starting_in(left, right)
    cause = next(
        (
            c
            for c in nearby
            if c.concepts & causes
            and _ATTRIBUTION_RE.search(d.text, max(left, c.start - 45), c.start)
        ),
        None,
    )
    if cause is None:
        return None
    wide_left, wide_right = max(0, m.start - UNLESS_REACH), m.end + UNLESS_REACH
    for u in d.starting_in(wide_left, wide_right):
        if not u.concepts & unless:
            continue
        situation = s.situation(u, HistoryPolicy.RESOLVES)
        if s.context.verdict(d, u.start, u.end, situation) is None:
            return None
    return f"attributed to {d.text[cause.start : cause.end]}"


def _has_value(s: Screening, d: ReadDocument, m: Mention) -> bool:
    """Whether a value of the mention's quantity is written with it ("raised INR 1.3")."""
    for cid in m.concepts:
        concept = s.lexicon.concepts.get(cid)
        if concept is None or concept.value_of is None:
            continue
        spec = QuantitySpec(concept=concept.value_of, quantity=None, plausible=(0.0, 1e9))
        anchor = s.clock.anchor(d.index)
        if s.values.read(d, m, spec, lambda _m: False, anchor) is not None:
            return True
    return False
