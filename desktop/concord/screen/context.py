"""Context around a mention: negation, hypothetical wording, history that has resolved.

The record screen reads negation its own way, on purpose: a negated mention does not fire
a gate, so here a cue's scope is narrower (short cues stop at a comma, report verbs end
it) than in `concord.evidence.negation`, which decides whether an extract may be reported
as verified and so errs towards "negated". The two share the clause terminators. The
rules, in one place:

* A negation cue ("no", "denies", "negative for", "no history of", "never received",
  "without", "nil") before a mention negates it when both are in the same clause: the
  scope ends at a line break or sentence end, at the terminators ("but", "however",
  "although", "except"...), at report verbs ("shows", "confirmed", "diagnosed"...), and
  is at most `NEGATION_WINDOW` characters. Short cues ("no", "not", "without", "nil")
  also stop at a comma, so "No fever, CXR: RLL pneumonia" still fires; list cues
  ("denies", "no history of", "negative for") run over commas ("denies chest pain, SOB
  or syncope").
* A cue after the mention in the same clause ("pneumonia excluded", "consolidation not
  seen") negates it too.
* Hypothetical wording ("risk of", "to prevent", "watch for", "if") is treated as a
  negation: it is not a finding in the patient.
* History that has resolved is only a reason not to fire for *state* gates (a chest
  infection, ischaemia), never for exposures (bleomycin, a stent): the sentence says
  "resolved", "fully recovered", "previous", "history of", "as a child", or dates the
  event more than `HISTORICAL_DAYS` before the reference date, and does not also say
  "current", "now", "ongoing", "active" or "new".
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from concord.evidence.negation import TERMINATORS
from concord.screen.dates import dates_in

NEGATION_WINDOW = 60  # characters between the end of a cue and the mention
POST_NEGATION_WINDOW = 30
HISTORICAL_DAYS = 56  # an event dated > 8 weeks before surgery is history

_LIST_CUES = (
    r"denies|denied|deny|denying|no\s+(?:past\s+|previous\s+|prior\s+|known\s+|personal\s+)?"
    r"(?:history|hx|h/o|evidence|signs?|symptoms?|features?|suggestion|previous)(?:\s+of)?|"
    r"negative\s+for|-ve\s+for|neg\s+for|free\s+of|never\s+(?:had|received|been\s+given|"
    r"treated\s+with|given|exposed\s+to)|not\s+(?:had|received|been\s+given|been\s+treated\s+with|"
    r"exposed\s+to)|no\s+known|absence\s+of|ruled\s+out|excluded|not\s+known\s+to\s+have|"
    r"did\s+not\s+(?:receive|have)|has\s+not\s+(?:had|received)|no\s+exposure\s+to|"
    r"no\s+further|resolution\s+of|resolved"
)
_SHORT_CUES = r"no|not|without|nil|non|none"
_HYPOTHETICAL_CUES = (
    r"(?:at\s+)?risks?\s+of|to\s+(?:prevent|avoid|reduce)|prevention\s+of|prophylaxis\s+(?:against|"
    r"for)|watch\s+(?:out\s+)?for|monitor\s+for|safety[\s-]*netted\s+(?:for|about)|signs\s+of|"
    r"in\s+case\s+of|if|unless|should\s+(?:she|he|they|the\s+patient)\s+develop"
)
_CUE_RE = re.compile(
    rf"(?<![A-Za-z0-9])(?:(?P<list>{_LIST_CUES})|(?P<hyp>{_HYPOTHETICAL_CUES})|"
    rf"(?P<short>{_SHORT_CUES}))(?![A-Za-z0-9])",
    re.IGNORECASE,
)
_TERMINATOR_WORDS = "|".join(r"\s+".join(map(re.escape, t.split())) for t in TERMINATORS)
_REPORT_WORDS = (
    r"shows?|showed|shown|showing|reveal(?:s|ed)?|demonstrat(?:es|ed)|confirm(?:s|ed)|"
    r"consistent\s+with|diagnosed|found|now|currently|presents?|presented|presenting|admitted|"
    r"started|commenced|has|had|with|on"
)
_SCOPE_BREAK_RE = re.compile(
    rf"[.;:!?](?:\s|$)|\n|(?<![A-Za-z])(?:{_TERMINATOR_WORDS}|{_REPORT_WORDS})(?![A-Za-z])",
    re.IGNORECASE,
)
_POST_NEGATION_RE = re.compile(
    r"[\s:,\-–]*(?:(?:is|was|were|are|has\s+been|have\s+been|now)\s+)?"
    r"(?P<cue>excluded|ruled\s+out|not\s+(?:seen|found|present|detected|identified|demonstrated"
    r"|confirmed|shown)|absent|negative|neg|unlikely|nil|none|resolved|fully\s+resolved)"
    r"(?![A-Za-z])",
    re.IGNORECASE,
)
_SENTENCE_END_RE = re.compile(r"[.;!?](?=\s|$)|\n")
_HISTORY_RE = re.compile(
    r"(?<![A-Za-z])(?:resolved|fully\s+recovered|recovered|cleared|completed\s+(?:a\s+)?"
    r"(?:course|treatment)|successfully\s+treated|treated\s+in|previous|previously|prior|past|"
    r"remote|old|h/o|hx\s+of|history\s+of|as\s+a\s+child|in\s+childhood|childhood|"
    r"years\s+ago|\d+\s*(?:years?|yrs?)\s+ago|last\s+year|in\s+the\s+past)(?![A-Za-z])",
    re.IGNORECASE,
)
_CURRENT_RE = re.compile(
    r"(?<![A-Za-z])(?:current|currently|now|ongoing|active|new|acute|this\s+week|today|"
    r"presenting|presents|started\s+on|commenced|on\s+antibiotics|being\s+treated|unresolved|"
    r"not\s+resolved|persistent|persisting)(?![A-Za-z])",
    re.IGNORECASE,
)
_MASK_RE = re.compile(
    r"\([^()\n]*[A-Za-zµ][^()\n]*\)|\[[^\[\]\n]*\]|"
    r"(?<![A-Za-z0-9])(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[/.\-]\d{1,2}[/.\-]\d{2,4}|\d{1,2}:\d{2})"
    r"(?![A-Za-z0-9])"
)


def sentence_bounds(text: str, start: int, end: int, reach: int = 300) -> tuple[int, int]:
    """The sentence (or line) around text[start:end], at most `reach` characters each side."""
    left = max(0, start - reach)
    for m in _SENTENCE_END_RE.finditer(text, left, start):
        left = m.end()
    right_match = _SENTENCE_END_RE.search(text, end, min(len(text), end + reach))
    right = right_match.start() if right_match else min(len(text), end + reach)
    return left, right


def negation_cue_before(text: str, start: int) -> str | None:
    """The negation or hypothetical cue that governs a mention starting at `start`."""
    window_start = max(0, start - NEGATION_WINDOW - 40)
    found: str | None = None
    for cue in _CUE_RE.finditer(text, window_start, start):
        between = text[cue.end() : start]
        if len(between) > NEGATION_WINDOW or _SCOPE_BREAK_RE.search(between):
            continue
        if cue.group("short") and "," in between:
            continue
        found = cue.group(0)
    return " ".join(found.split()) if found else None


def negation_cue_after(text: str, end: int) -> str | None:
    """A cue right after a mention: "pneumonia excluded", "consolidation: not seen"."""
    m = _POST_NEGATION_RE.match(text, end, min(len(text), end + POST_NEGATION_WINDOW))
    return " ".join(m.group("cue").split()) if m else None


def historical_cue(text: str, start: int, end: int, reference: date) -> str | None:
    """Why the mention is resolved history, or None when it may be current."""
    left, right = sentence_bounds(text, start, end)
    sentence_before, sentence_after = text[left:start], text[end:right]
    if _CURRENT_RE.search(sentence_before) or _CURRENT_RE.search(sentence_after):
        return None
    cue = _HISTORY_RE.search(sentence_before) or _HISTORY_RE.search(sentence_after)
    if cue is not None:
        return " ".join(cue.group(0).split())
    cutoff = reference - timedelta(days=HISTORICAL_DAYS)
    for when in dates_in(text, left, right):
        if when.latest is not None and when.latest < cutoff:
            return f"dated {text[when.start : when.end]}"
    return None


def masked(text: str) -> str:
    """`text` with bracketed remarks, dates and times blanked (same length, same offsets).

    Used to read values: "K+ (mmol/L) 12/10/2026: 6.3 [3.5-5.3]" reads as K+ 6.3.
    """
    return _MASK_RE.sub(lambda m: " " * len(m.group()), text)
