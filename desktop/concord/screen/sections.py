"""Sections of a clinical document: "Family history:", "PMH:", "Plan:", "Protocol:" ...

A section starts at a header - a known name at the start of a line (or after a full stop on
the same line) followed by a colon, a dash or the end of the line - and runs to the next
header or the first blank line after some content. Its kind decides how the screen reads
the mentions inside it: everything under "Family history" is about a relative, everything
under a protocol or consent heading is general text, interventions under "Plan" are not yet
given, and conditions under "Past medical history" are history. The header names live in
`resources/lexicon/context.json`.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from enum import StrEnum

from concord.screen.cues import Cues, phrase_alternation


class SectionKind(StrEnum):
    FAMILY = "family"
    HISTORY = "history"
    PLAN = "plan"
    PROTOCOL = "protocol"
    CURRENT = "current"
    MEDICATION = "medication"
    PAST_MEDICATION = "past_medication"
    ALLERGY = "allergy"
    INTOLERANCE = "intolerance"


@dataclass(frozen=True)
class Section:
    kind: SectionKind
    header: str
    start: int  # where the header starts
    body_start: int  # just after the header's colon or dash
    end: int


class SectionIndex:
    """The sections of one document; `at(pos)` is the section holding a character."""

    def __init__(self, sections: list[Section]) -> None:
        self.sections = sections
        self._starts = [s.start for s in sections]

    def at(self, pos: int) -> Section | None:
        i = bisect_right(self._starts, pos) - 1
        if i < 0:
            return None
        section = self.sections[i]
        return section if section.body_start <= pos < section.end else None


class SectionReader:
    """Finds section headers with the names in the context file."""

    def __init__(self, cues: Cues) -> None:
        self._kinds = cues.section_names
        names = phrase_alternation(list(cues.section_names))
        self._header_re = re.compile(
            rf"[ \t]*(?:[#*>•\-]+[ \t]*)?(?:\d+[.)][ \t]*)?"
            rf"(?P<name>{names})(?![A-Za-z0-9])[ \t]*(?:\([^)\n]{{0,40}}\))?[ \t]*"
            rf"(?P<end>:|-(?=[ \t])|–|\n|$)",
            re.IGNORECASE,
        )
        self._blank_re = re.compile(r"\n[ \t]*\n")
        self._first_words = {re.split(r"[\s\-]+", name)[0] for name in cues.section_names}

    def read(self, text: str) -> SectionIndex:
        headers = []
        for at in _header_positions(text):
            first = _FIRST_WORD_RE.match(text, at)
            if first is None or first.group(1).lower() not in self._first_words:
                continue
            m = self._header_re.match(text, at)
            if m is None:
                continue
            name = " ".join(re.split(r"[\s\-]+", m.group("name").lower()))
            kind = self._kinds.get(name) or self._kinds.get(
                " ".join(m.group("name").lower().split())
            )
            if kind is None:
                continue
            if m.group("end") in ("\n", "") and not _alone_on_line(text, m.start("name"), m.end()):
                continue
            body = m.end() if m.group("end") != "\n" else m.end() - 1
            headers.append((m.start("name"), body, SectionKind(kind), m.group("name")))
        sections: list[Section] = []
        for i, (start, body, kind, name) in enumerate(headers):
            next_start = headers[i + 1][0] if i + 1 < len(headers) else len(text)
            content = re.search(r"\S", text[body:next_start])
            end = next_start
            if content is not None:
                blank = self._blank_re.search(text, body + content.start(), next_start)
                if blank is not None:
                    end = blank.start()
            sections.append(Section(kind, name, start, body, end))
        return SectionIndex(sections)


_FIRST_WORD_RE = re.compile(r"[ \t]*(?:[#*>•\-]+[ \t]*)?(?:\d+[.)][ \t]*)?([A-Za-z/&]+)")
_STARTS_RE = re.compile(r"\n|[.;][ ]{1,2}(?=[A-Z])")


def _header_positions(text: str) -> list[int]:
    """Where a header may start: each line start, and after a full stop on a line."""
    return [0] + [m.end() for m in _STARTS_RE.finditer(text)]


def _alone_on_line(text: str, start: int, end: int) -> bool:
    """A header with no colon counts only when it is the whole line ("FAMILY HISTORY")."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    return not text[line_start:start].strip(" \t#*>•-") and not text[end:line_end].strip()
