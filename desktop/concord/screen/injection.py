"""Deterministic detection of prompt injection in a patient record, and of briefs that quote it.

Patient text is data: the agents' prompts say so and delimit it (`agents.prompts`), and the
layers that decide anything (evidence verification, the record screen, the scores) are code
that no text can instruct. What remains is that a model may *obey* text such as "ignore your
instructions" or "rate this case High", or repeat a forged evidence line. This module finds
instruction-like text in the record (by named patterns, no model) and flags every brief item
or evidence line that quotes or cites it, so the case goes to a human.

The patterns read what a model reads, which is more than a person sees:

* the text as the screen reads it (`screen.reading`): invisible characters (zero-width
  spaces and joiners, soft hyphens, bidi controls) dropped and look-alike letters folded,
  so "ig<ZWSP>nore" and a Cyrillic "і" hide nothing;
* Unicode tag characters (U+E0020-U+E007E, invisible on screen, yet read by a tokenizer as
  the ASCII they shadow) decoded to that ASCII; a run of them that is not an emoji flag is
  itself a finding ("hidden_text");
* a phrase split over lines, or a word hyphenated at a line end, read as one;
* French, Spanish and German forms of the same requests beside the English ones ("ignorez
  les instructions précédentes", "ahora eres", "markiere als normal").

Each finding is a `domain.InjectionFinding` (stored as `Case.injection`): kind "record" for
the injected text in the record, "quoted_by_agent" for a brief's evidence line or item that
quotes or cites it. `text` is the whole record line holding the injected text
(`doc.text[start:end]`; a phrase split over lines is reported on each of its lines), or the
brief item itself when the item is instruction-like. Any finding puts the case under human
review (`domain.Case.review_reasons`).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from concord.domain import Brief, InjectionFinding, Line, Record
from concord.screen.reading import reading_text

_GAP = r"(?:[^\n.]|\n(?!\s*\n)){0,40}?"
"""Up to 40 characters between the parts of a request, across at most single line breaks
(not a blank line, not a full stop)."""

_IGNORE = (
    r"ignor\w*|disregard\w*|forget|override|bypass"  # English; ignore/ignorez/ignora/ignoriere
    r"|oubli\w*|n[ée]glige\w*|passe[rz]?\s+outre"  # French
    r"|olvid\w*|omit[ae]\w*|haz\s+caso\s+omiso|desobedec\w*"  # Spanish
    r"|vergiss\w*|vergesst|vergessen|missacht\w*|[üu]bergeh\w*"  # German
)
_RULES = (
    r"instructions?|prompts?|rules|guidelines|directions|system\s+message"
    r"|consignes?|r[èe]gles|directives|indications"  # French (instructions, prompts above)
    r"|instrucci[oó]n(?:es)?|reglas|directrices|indicaciones|[oó]rdenes"  # Spanish
    r"|anweisung(?:en)?|instruktion(?:en)?|regeln|vorgaben|befehle|richtlinien"  # German
)
_YOU_ARE_NOW = (
    r"\byou\s+are\s+(?:now|no\s+longer)\b"
    r"|\b(?:tu\s+es|vous\s+[êe]tes)\s+(?:maintenant|d[ée]sormais|dor[ée]navant)\b"
    r"|\b(?:d[ée]sormais|dor[ée]navant|[àa]\s+partir\s+de\s+maintenant),?\s+(?:tu\s+es|vous"
    r"\s+[êe]tes)\b"
    r"|\b(?:ahora\s+eres|eres\s+ahora|ahora\s+es\s+usted|usted\s+es\s+ahora|a\s+partir\s+de"
    r"\s+ahora,?\s+(?:eres|ser[aá]s|usted\s+es))\b"
    r"|\b(?:du\s+bist|ihr\s+seid)\s+(?:jetzt|nun|ab\s+sofort|ab\s+jetzt)\b"
    r"|\bab\s+(?:jetzt|sofort)\s+(?:bist\s+du|sind\s+sie|seid\s+ihr)\b"
)
_AS_NORMAL = (
    # imperative "mark/classify ... as normal" (not "reported as normal", "was marked")
    r"(?:^|[.!?:;,]\s*|\b(?:please|just|simply|and|then|now)\s+)(?:mark|classify|label|flag|rate|"
    r"grade)\s+(?:(?:this|the|it|them|all|everything|every|each|these|that)\b[^\n.]{0,30}?)?"
    r"\bas\s+(?:normal|benign|unremarkable|low[\s-]risk|negative|healthy|fit)\b"
    r"|\b(?:marque[rz]?|classe[rz]?|indique[rz]?|consid[èe]re[rz]?)\b[^\n.]{0,30}?\bcomme\s+"
    r"(?:normale?s?|normaux|b[ée]nigne?s?|sans\s+particularit[ée])\b"
    r"|\b(?:marca[rd]?|marque[n]?|clasifica[rd]?|clasifique[n]?|califica[rd]?|califique[n]?|"
    r"etiqueta[rd]?|etiquete[n]?|considera[rd]?)\b[^\n.]{0,30}?\bcomo\s+(?:normal(?:es)?|"
    r"benign[oa]s?|sin\s+hallazgos)\b"
    r"|\b(?:markiere|markiert|markieren\s+sie|klassifiziere|klassifizieren\s+sie|stufe|"
    r"bewerte|werte)\b[^\n.]{0,30}?\bals\s+(?:normal|unauff[äa]llig|gutartig|harmlos)\b"
    r"|\bals\s+(?:normal|unauff[äa]llig|gutartig)\s+(?:markieren|kennzeichnen)\b"
)

PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(regex, re.IGNORECASE | re.MULTILINE))
    for name, regex in (
        (
            "override_instructions",
            rf"\b(?:{_IGNORE})\b" + _GAP + rf"\b(?:{_RULES})\b",
        ),
        (
            "new_instructions",
            r"\b(?:new|updated|real|actual|hidden)\s+(?:instructions?|task|orders)\s*:"
            r"|\b(?:nouvelles?|vraies?)\s+(?:instructions|consignes|t[âa]che)\s*:"
            r"|\b(?:nuevas?|verdaderas?)\s+(?:instrucciones|[oó]rdenes|tarea)\s*:"
            r"|\b(?:neue|echte|eigentliche)\s+(?:anweisungen|aufgabe|befehle)\s*:",
        ),
        (
            "role_change",
            _YOU_ARE_NOW + r"|\bact\s+as\s+(?:the|an?)\s+"
            r"(?:judge|grader|assistant|ai|model|system)\b|\bpretend\s+(?:to\s+be|you\s+are)\b",
        ),
        (
            "addressed_to_model",
            r"\b(?:note|message|instructions?)\s+(?:to|for)\s+(?:the\s+)?(?:ai|llm|model|"
            r"assistant|judge|agents?|grader|language\s+model)\b|\b(?:dear|attention|hey)\s+"
            r"(?:ai|llm|model|assistant|judge|agents?|grader)\b|\bas\s+an?\s+(?:ai|language"
            r"\s+model)\b",
        ),
        (
            "rating_request",
            r"(?:^|[.!?:;]\s*|\bplease\s+|\bmust\s+|\bshould\s+|\bjust\s+)(?:rate|grade|score|"
            r"mark|classify)\s+(?:this|the)\s+(?:case|brief|patient|answer|record|assessment|"
            r"response)\b|\b(?:rate|grade|score)\b[^\n.]{0,25}\bas\s+(?:high|medium|low|very\s+"
            r"low|excellent|perfect|\d{1,3})\b|\b(?:case|brief|answer)\s+(?:is|should\s+be|must"
            r"\s+be)\s+(?:rated|graded|scored)\b",
        ),
        ("verdict_request", _AS_NORMAL),
        (
            "suppress_finding",
            r"\bdo\s+not\s+(?:flag|report|mention|cite|escalate)\s+(?:the|this|any|that)\b|"
            r"\b(?:omit|hide|suppress)\s+(?:the|this|any|all)\s+(?:finding|risk|gate|warning)s?\b",
        ),
        (
            "chat_role_marker",
            r"^\s*(?:system|assistant|user|developer)\s*:|<\|?\s*(?:im_start|im_end|system|"
            r"assistant|user|start_of_turn|end_of_turn|endoftext)\s*\|?>|\[/?INST\]|<</?SYS>>|"
            r"^\s*#{2,}\s*(?:instruction|system|response|assistant)\b",
        ),
        (
            "fake_json",
            r"[{,]\s*\"(?:score|grade|overall|rating|verdict|coverage|critical_items|"
            r"human_review|top_risks|evidence|cites|pairs|consult|extract_text|source_id|"
            r"locator|risk_scores)\"\s*:",
        ),
        ("fake_line_id", r"^\s*L\d{1,5}\s*[:|\-]\s"),
        (
            "delimiter_lookalike",
            r"<{2,}\s*/?\s*[A-Za-z_ ]{0,20}(?:record|system|instructions?|data)|(?:record|system|"
            r"instructions?|data)[A-Za-z_ ]{0,20}>{2,}|\b(?:end|close)\s+of\s+(?:the\s+)?"
            r"(?:patient\s+)?(?:record|data|context)\b|\bbegin\s+(?:system|instructions?)\b",
        ),
    )
)
"""(name, pattern) pairs, matched on the detector's reading of the text (`read_for_model`).
Each is aimed at text addressed to a model, not at clinical prose."""

HIDDEN_TEXT = "hidden_text"
"""The finding for a run of Unicode tag characters that is not an emoji flag."""
_TAG_RUN = re.compile("[\U000e0000-\U000e007f]+")
_TAGS = {0xE0000 + c: c for c in range(0x20, 0x7F)}
_FLAG_TAGS = re.compile("[\U000e0061-\U000e007a\U000e0030-\U000e0039]{2,6}\U000e007f")
"""An emoji subdivision flag (🏴 + 2-6 tag letters or digits + cancel tag) is no hidden text."""
_LINE_BREAK_HYPHEN = re.compile(r"(?<=[^\W\d_])-(?:[ \t]*\n[ \t]*|[ \t]+)(?=[^\W\d_])")
"""A word hyphenated at a line end ("instruc-" / "tions"); the screen's reading may already
have made a soft line wrap a space, so a hyphen followed by spaces joins too."""


class ModelReading:
    """A text as the detector reads it, with the map from its offsets back to the text's.

    Tag characters become the ASCII they shadow (one character for one, so offsets stay),
    then the screen's reading applies (invisible characters dropped, look-alikes folded),
    then a word hyphenated across a line end is joined."""

    def __init__(self, original: str) -> None:
        untagged = original.translate(_TAGS) if _TAG_RUN.search(original) else original
        self._read = reading_text(untagged)
        read = self._read.text
        self._view_starts = [0]  # piece k of the view starts here ...
        self._read_starts = [0]  # ... and copies the reading from here
        pieces = []
        last = 0
        for m in _LINE_BREAK_HYPHEN.finditer(read):
            pieces.append(read[last : m.start()])
            last = m.end()
            self._view_starts.append(self._view_starts[-1] + len(pieces[-1]))
            self._read_starts.append(last)
        pieces.append(read[last:])
        self.text = "".join(pieces)

    def _to_read(self, pos: int, *, end: bool) -> int:
        k = (bisect_left if end else bisect_right)(self._view_starts, pos) - 1
        k = max(k, 0)
        return self._read_starts[k] + (pos - self._view_starts[k])

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The span of the original text that view span [start, end) was read from."""
        return self._read.span(self._to_read(start, end=False), self._to_read(end, end=True))


def read_for_model(text: str) -> str:
    """`text` as the detector reads it (see `ModelReading`)."""
    return ModelReading(text).text


def _hidden_runs(text: str) -> Iterable[tuple[int, int, str]]:
    for m in _TAG_RUN.finditer(text):
        run = m.group()
        if _FLAG_TAGS.fullmatch(run):
            continue
        yield m.start(), m.end(), run.translate(_TAGS)


MIN_QUOTE_CHARS = 12
"""A brief item must repeat at least this much of an injected match to count as quoting it."""


@dataclass(frozen=True)
class InjectedSpan:
    pattern: str
    source_id: str
    start: int  # the whole record line that holds the match
    end: int
    line_id: str
    text: str
    match: str

    def finding(self) -> InjectionFinding:
        return InjectionFinding(
            kind="record",
            pattern=self.pattern,
            source_id=self.source_id,
            start=self.start,
            end=self.end,
            line_id=self.line_id,
            text=self.text,
            match=self.match,
        )


def _fold(text: str) -> str:
    return " ".join(read_for_model(text).casefold().split())


def find_injections(record: Record) -> tuple[InjectedSpan, ...]:
    """Every record line with instruction-like text, once per (line, pattern), in order of
    the lines. A match that runs over several lines is reported on each of them."""
    found: dict[tuple[str, int, str], InjectedSpan] = {}
    lines_of: dict[str, list[Line]] = {d.source_id: [] for d in record.documents}
    for line in record.lines:
        lines_of[line.source_id].append(line)
    for document in record.documents:
        lines = lines_of[document.source_id]
        if not lines:
            continue
        starts = [ln.start for ln in lines]
        reading = ModelReading(document.text)
        matches = [
            (name, *reading.span(m.start(), m.end()), m.group(0))
            for name, pattern in PATTERNS
            for m in pattern.finditer(reading.text)
        ]
        matches += [(HIDDEN_TEXT, a, b, hidden) for a, b, hidden in _hidden_runs(document.text)]
        for name, start, end, text in matches:
            first = max(bisect_right(starts, start) - 1, 0)
            for line in lines[first:]:
                if line.start >= max(end, start + 1):
                    break
                if line.end <= start:
                    continue
                key = (line.source_id, line.start, name)
                if key not in found:
                    found[key] = InjectedSpan(
                        pattern=name,
                        source_id=line.source_id,
                        start=line.start,
                        end=line.end,
                        line_id=line.line_id,
                        text=line.text,
                        match=" ".join(text.split()),
                    )
    order = {(ln.source_id, ln.start): i for i, ln in enumerate(record.lines)}
    names = [name for name, _ in PATTERNS] + [HIDDEN_TEXT]
    return tuple(
        sorted(
            found.values(),
            key=lambda s: (order[(s.source_id, s.start)], names.index(s.pattern)),
        )
    )


def instruction_patterns_in(text: str) -> list[str]:
    """Names of the patterns that `text` (e.g. a brief item) itself contains."""
    view = read_for_model(text)
    names = [name for name, pattern in PATTERNS if pattern.search(view)]
    if any(True for _ in _hidden_runs(text)):
        names.append(HIDDEN_TEXT)
    return names


def instruction_like(text: str) -> bool:
    """Whether `text` (a record line) holds instruction-like or hidden text."""
    return bool(instruction_patterns_in(text))


def _quoted(
    span: InjectedSpan, agent: str, where: Literal["evidence", "item"], id: str
) -> InjectionFinding:
    return span.finding().model_copy(
        update={"kind": "quoted_by_agent", "match": "", "agent": agent, "where": where, "id": id}
    )


def _overlaps(
    span: InjectedSpan, source_id: str | None, start: int | None, end: int | None
) -> bool:
    if source_id != span.source_id or start is None or end is None:
        return False
    return start < span.end and span.start < end or start == end == span.start


def quoted_injections(
    briefs: Iterable[Brief], spans: Sequence[InjectedSpan]
) -> list[InjectionFinding]:
    """Evidence lines that cite or align into an injected line, and brief items that repeat
    an injected match or are themselves instruction-like."""
    out: list[InjectionFinding] = []
    for brief in briefs:
        for ev in brief.evidence:
            a = ev.alignment
            hits = [
                s
                for s in spans
                if ev.line_id == s.line_id or _overlaps(s, a.source_id, a.start, a.end)
            ]
            for span in {(s.line_id): s for s in hits}.values():
                out.append(_quoted(span, agent=brief.agent, where="evidence", id=ev.evidence_id))
        for item in brief.items:
            folded = _fold(item.text)
            hits = [
                s for s in spans if len(s.match) >= MIN_QUOTE_CHARS and _fold(s.match) in folded
            ]
            for span in {(s.line_id): s for s in hits}.values():
                out.append(_quoted(span, agent=brief.agent, where="item", id=item.item_id))
            for name in instruction_patterns_in(item.text):
                if name in ("fake_line_id", "chat_role_marker") or hits:
                    continue  # item texts may start with a line id; quoted ones already listed
                out.append(
                    InjectionFinding(
                        kind="quoted_by_agent",
                        agent=brief.agent,
                        where="item",
                        id=item.item_id,
                        pattern=name,
                        text=item.text,
                    )
                )
    return out


def injection_findings(record: Record, briefs: Sequence[Brief]) -> list[InjectionFinding]:
    """Record-level injection spans, then every place a brief quotes or cites one."""
    spans = find_injections(record)
    return [s.finding() for s in spans] + quoted_injections(briefs, spans)


def needs_review(findings: Sequence[InjectionFinding]) -> bool:
    """Any injected text in the record, or quoted by an agent, sends the case to a human."""
    return bool(findings)
