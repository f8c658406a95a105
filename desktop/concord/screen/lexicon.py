"""The synonym and abbreviation lexicon: clinical concepts and the words that name them.

A concept has a canonical id (``spo2``), case-insensitive ``terms`` ("oxygen saturation",
"O2 sats"), case-sensitive ``abbreviations`` ("EF", "AS", "DES") and optional regular
expressions for the awkward cases (a bare "K" only counts as potassium when a number
follows it). A concept may ``imply`` others: ABVD implies bleomycin, clopidogrel implies an
antiplatelet. Matching respects word boundaries ("K" never matches inside "OK") and treats
spaces and hyphens inside a term as interchangeable and optional ("drug eluting stent" =
"drug-eluting stent", "O2  sats" = "O2 sats"). Terms are read as the screen reads a record
(`concord.screen.reading`), so "SpO₂" and "SpO2" are one term.

Some written forms mean different things in different notes ("AS": aortic stenosis or
ankylosing spondylitis; a "stent" in the ureter or the LAD). A concept lists those forms
under ``ambiguous`` with the words that confirm or refute its sense: the words near the
mention decide, else the words of the whole document, else the concept's sense stands (a
missed critical finding costs more than a second look).

All literal terms are compiled once, at load, into two trie-shaped regular expressions (one
case-insensitive, one case-sensitive), so a document is scanned twice whatever the size of
the lexicon.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from concord import paths
from concord.errors import InputError, first_validation_error
from concord.screen.reading import fold_text

_ALNUM = "A-Za-z0-9"
_AFTER = f"(?![{_ALNUM}])"
_BEFORE_FIRST = f"(?<![{_ALNUM}].)"
_SEPARATOR = r"[\s\-]*"  # what a space or hyphen inside a term matches
_SEP_TOKEN = "\x00"
_SEPARATORS_RE = re.compile(r"[\s\-]+")
_CONCEPT_ID_RE = re.compile(r"^[a-z][a-z0-9_]*$")


class _AmbiguityIn(BaseModel):
    """Written forms of a concept that can mean something else, and how to tell."""

    model_config = ConfigDict(extra="forbid")

    forms: list[str] = Field(min_length=1, description="Written forms (case as in the terms)")
    confirm: list[str] = Field(default=[], description="Words that confirm this concept")
    refute: list[str] = Field(default=[], description="Words that mean the other sense")
    caps_need_confirm: bool = Field(
        default=False,
        description="In a line written in capitals the form is an ordinary word unless confirmed",
    )
    window: int = Field(default=120, ge=0, description="Characters each side that count as near")


class _ConceptIn(BaseModel):
    """One concept as written in a lexicon file."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Canonical id: lower case, digits and underscores")
    label: str = Field(default="", description="Human name of the concept")
    terms: list[str] = Field(default=[], description="Case-insensitive names")
    abbreviations: list[str] = Field(default=[], description="Case-sensitive names")
    patterns: list[str] = Field(
        default=[],
        description="Regular expressions, case-sensitive; scope flags as (?i:...)",
    )
    pattern_hints: list[str] = Field(
        default=[],
        description="Lower-case substrings; the patterns run only on text containing one",
    )
    implies: list[str] = Field(default=[], description="Concept ids this concept implies")
    measurable: bool = Field(default=False, description="A quantity that is written with a value")
    intervention: bool = Field(
        default=False,
        description="A treatment or procedure: 'plan to start ...' means not yet given",
    )
    value_of: str | None = Field(
        default=None,
        description="Quantity concept whose value may follow ('hyperkalaemic at 6.4')",
    )
    ambiguous: list[_AmbiguityIn] = Field(
        default=[], description="Written forms that may mean something else"
    )


class _LexiconFileIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: str = Field(description="Version of this lexicon file")
    description: str = ""
    concepts: list[_ConceptIn]


@dataclass(frozen=True)
class Concept:
    concept_id: str
    label: str
    terms: tuple[str, ...]
    abbreviations: tuple[str, ...]
    implies: frozenset[str]
    measurable: bool
    intervention: bool = False
    value_of: str | None = None


@dataclass(frozen=True)
class _Ambiguity:
    concept_id: str
    forms: frozenset[str]  # folded (case-insensitive) written forms
    confirm: re.Pattern[str] | None
    refute: re.Pattern[str] | None
    caps_need_confirm: bool
    window: int


def _word_list_re(words: list[str]) -> re.Pattern[str] | None:
    if not words:
        return None
    alternatives = sorted(
        (r"[\s\-]*".join(map(re.escape, fold_text(w).split())) for w in words),
        key=len,
        reverse=True,
    )
    return re.compile(
        rf"(?<![A-Za-z0-9])(?:{'|'.join(alternatives)})(?![A-Za-z0-9])", re.IGNORECASE
    )


@dataclass(frozen=True)
class Mention:
    """One match of the lexicon in a text: the span and every concept it names."""

    start: int
    end: int
    concepts: frozenset[str]
    pattern: bool = False  # matched by a concept's regular expression (it may span words)


def term_key(term: str, *, case_sensitive: bool) -> str:
    """The lookup key of a term: separators removed, case folded unless case-sensitive."""
    key = _SEPARATORS_RE.sub("", term)
    return key if case_sensitive else key.casefold()


def _tokens(term: str) -> list[str]:
    out: list[str] = []
    for char in term.strip():
        if char.isspace() or char == "-":
            if out and out[-1] != _SEP_TOKEN:
                out.append(_SEP_TOKEN)
        else:
            out.append(char)
    return out


class _Trie:
    """Character trie of terms, rendered as one backtracking-friendly regular expression."""

    def __init__(self) -> None:
        self.children: dict[str, _Trie] = {}
        self.terminal = False

    def add(self, tokens: list[str]) -> None:
        node = self
        for token in tokens:
            node = node.children.setdefault(token, _Trie())
        node.terminal = True

    def render(self, last: str = "", *, fold: bool = False) -> str:
        alternatives = []
        for token in sorted(self.children):
            rest = self.children[token].render(token, fold=fold)
            if last:
                edge = _SEPARATOR if token == _SEP_TOKEN else _literal(token, fold)
                alternatives.append(edge + rest)
                continue
            # First characters are plain literals, one alternative per case, so the regex
            # engine can skip ahead to a possible first character; the word boundary is
            # checked after that character.
            before = _BEFORE_FIRST if token.isascii() and token.isalnum() else ""
            variants = {token.lower(), token.upper()} if fold else {token}
            for variant in sorted(variants):
                alternatives.append(re.escape(variant) + before + rest)
        if self.terminal:  # tried last, so the longest term wins
            alternatives.append(_AFTER if last.isascii() and last.isalnum() else "")
        if len(alternatives) == 1:
            return alternatives[0]
        return "(?:" + "|".join(alternatives) + ")"


def _literal(char: str, fold: bool) -> str:
    # Case folding is spelt out as [aA] rather than re.IGNORECASE: the engine can then
    # skip ahead by first character, which makes the scan an order of magnitude faster.
    if fold and char.lower() != char.upper():
        return "[" + re.escape(char.lower()) + re.escape(char.upper()) + "]"
    return re.escape(char)


def _compile_trie(terms: Iterable[str], *, fold: bool) -> re.Pattern[str] | None:
    trie = _Trie()
    count = 0
    for term in terms:
        tokens = _tokens(term.lower() if fold else term)
        if tokens:
            trie.add(tokens)
            count += 1
    return re.compile(trie.render(fold=fold)) if count else None


class Lexicon:
    """Concepts and their names, with precompiled matchers. Build with `Lexicon.load`."""

    def __init__(
        self,
        concepts: dict[str, Concept],
        patterns: dict[str, list[str]],
        hints: dict[str, tuple[str, ...]] | None = None,
        ambiguities: list[_Ambiguity] | None = None,
    ) -> None:
        self.concepts = concepts
        self._sources = (patterns, hints or {}, list(ambiguities or ()))
        self._closure = {cid: self._implied(cid) for cid in concepts}
        self._ci_keys: dict[str, str] = {}
        self._cs_keys: dict[str, str] = {}
        for concept in concepts.values():
            for term in concept.terms:
                self._ci_keys[term_key(term, case_sensitive=False)] = concept.concept_id
            for abbreviation in concept.abbreviations:
                self._cs_keys[term_key(abbreviation, case_sensitive=True)] = concept.concept_id
        self._ci_re = _compile_trie((t for c in concepts.values() for t in c.terms), fold=True)
        self._cs_re = _compile_trie(
            (a for c in concepts.values() for a in c.abbreviations), fold=False
        )
        hints = hints or {}
        # one expression per concept: its patterns as alternatives, run around its hints
        self._patterns = [
            (re.compile("|".join(f"(?:{p})" for p in plist)), cid, hints.get(cid, ()))
            for cid, plist in patterns.items()
            if plist
        ]
        self._ambiguities: dict[str, dict[str, _Ambiguity]] = {}  # concept -> form -> how
        for ambiguity in ambiguities or ():
            for form in ambiguity.forms:
                self._ambiguities.setdefault(ambiguity.concept_id, {})[form] = ambiguity
        self.measurable = frozenset(cid for cid, c in concepts.items() if c.measurable)
        self._valued_by: dict[str, tuple[str, ...]] = {}
        for cid, concept in concepts.items():
            if concept.value_of is not None and concept.value_of != cid:
                self._valued_by[concept.value_of] = (
                    *self._valued_by.get(concept.value_of, ()),
                    cid,
                )

    def _implied(self, concept_id: str) -> frozenset[str]:
        seen = {concept_id}
        stack = [concept_id]
        while stack:
            for implied in self.concepts[stack.pop()].implies:
                if implied not in seen:
                    seen.add(implied)
                    stack.append(implied)
        return frozenset(seen)

    @classmethod
    def load(cls, directory: Path | None = None) -> Lexicon:
        """Every `*.json` file with a "concepts" list in `directory` (default resources/lexicon)."""
        directory = directory or paths.resources_dir() / "lexicon"
        if not directory.is_dir():
            raise InputError("lexicon folder not found", subject=directory)
        concepts: dict[str, Concept] = {}
        patterns: dict[str, list[str]] = {}
        hints: dict[str, tuple[str, ...]] = {}
        ambiguities: list[_Ambiguity] = []
        ci_owner: dict[str, str] = {}
        cs_owner: dict[str, str] = {}
        for path in sorted(directory.glob("*.json")):
            for item in _read_lexicon_file(path):
                _check_concept(item, path, concepts, ci_owner, cs_owner)
                concepts[item.id] = Concept(
                    concept_id=item.id,
                    label=item.label or item.id,
                    terms=tuple(dict.fromkeys(fold_text(t) for t in item.terms)),
                    abbreviations=tuple(dict.fromkeys(fold_text(a) for a in item.abbreviations)),
                    implies=frozenset(item.implies),
                    measurable=item.measurable,
                    intervention=item.intervention,
                    value_of=item.value_of,
                )
                patterns[item.id] = list(item.patterns)
                hints[item.id] = tuple(h.lower() for h in item.pattern_hints)
                ambiguities.extend(
                    _Ambiguity(
                        concept_id=item.id,
                        forms=frozenset(
                            term_key(fold_text(f), case_sensitive=False) for f in a.forms
                        ),
                        confirm=_word_list_re(a.confirm),
                        refute=_word_list_re(a.refute),
                        caps_need_confirm=a.caps_need_confirm,
                        window=a.window,
                    )
                    for a in item.ambiguous
                )
        if not concepts:
            raise InputError("no lexicon concepts found", subject=directory)
        for concept in concepts.values():
            unknown = sorted(concept.implies - concepts.keys())
            if concept.value_of is not None and concept.value_of not in concepts:
                unknown.append(concept.value_of)
            if unknown:
                raise InputError(
                    f"concept {concept.concept_id!r} names unknown {unknown}", subject=directory
                )
        return cls(concepts, patterns, hints, ambiguities)

    def restricted_to(self, needed: Iterable[str]) -> Lexicon:
        """A lexicon of the `needed` concepts, every concept that implies one of them ("ABVD"
        implies bleomycin), and every measurable quantity (a value's label ends the reading
        of another's). Reading a record with it finds the same mentions of those concepts,
        with less to match."""
        wanted = set(needed)
        keep = {
            cid
            for cid, concept in self.concepts.items()
            if concept.measurable or self._closure[cid] & wanted
        }
        # a longer term of another concept that holds a kept term must stay, or its words
        # would be read as the kept one ("upper respiratory tract infection")
        kept_terms = {
            " ".join(_WORDS_RE.findall(t.lower()))
            for cid in keep
            for t in self.concepts[cid].terms + self.concepts[cid].abbreviations
        }
        for cid, concept in self.concepts.items():
            if cid not in keep and any(
                _holds_term(t, kept_terms) for t in concept.terms + concept.abbreviations
            ):
                keep.add(cid)
        concepts = {
            cid: Concept(
                concept_id=c.concept_id,
                label=c.label,
                terms=c.terms,
                abbreviations=c.abbreviations,
                implies=c.implies & keep,
                measurable=c.measurable,
                intervention=c.intervention,
                value_of=c.value_of if c.value_of in keep else None,
            )
            for cid, c in self.concepts.items()
            if cid in keep
        }
        patterns, hints, ambiguities = self._sources
        return Lexicon(
            concepts,
            {cid: p for cid, p in patterns.items() if cid in keep},
            {cid: h for cid, h in hints.items() if cid in keep},
            [a for a in ambiguities if a.concept_id in keep],
        )

    def vocabulary(self) -> set[str]:
        """Every word of every term, for spelling correction."""
        words: set[str] = set()
        for concept in self.concepts.values():
            for term in concept.terms:
                words.update(w.lower() for w in re.findall(r"[A-Za-z]+", term))
        return words

    def abbreviation_forms(self) -> set[str]:
        """Every abbreviation (case-sensitive name) and every one-word term, as written: what
        dictated letters may spell ("I N R", "A B V D")."""
        forms = {a for c in self.concepts.values() for a in c.abbreviations}
        forms.update(t for c in self.concepts.values() for t in c.terms if t.isalpha())
        return forms

    def mentions(self, text: str) -> list[Mention]:
        """Every lexicon match in `text`, in order, each with its concepts (implications added).

        A match of an ambiguous form whose surroundings say it means something else is left
        out."""
        out: list[Mention] = []
        for regex, keys, sensitive in (
            (self._ci_re, self._ci_keys, False),
            (self._cs_re, self._cs_keys, True),
        ):
            if regex is None:
                continue
            for match in regex.finditer(text):
                written = match.group()
                cid = keys.get(written if sensitive else written.lower())
                if cid is None:  # the term was written with other separators
                    cid = keys.get(term_key(written, case_sensitive=sensitive))
                if cid is not None:
                    out.append(Mention(match.start(), match.end(), self._closure[cid]))
        lowered = text.lower() if self._patterns else ""
        for pattern, cid, hint in self._patterns:
            seen: set[int] = set()
            for start, end in _hint_windows(lowered, hint):
                for match in pattern.finditer(text, start, end):
                    if match.end() > match.start() and match.start() not in seen:
                        seen.add(match.start())
                        out.append(
                            Mention(match.start(), match.end(), self._closure[cid], pattern=True)
                        )
        out.sort(key=lambda m: (m.start, -m.end))
        kept = _drop_nested(out)
        if self._ambiguities:
            kept = self._resolve_senses(text, kept)
        return kept

    def _resolve_senses(self, text: str, mentions: list[Mention]) -> list[Mention]:
        document_counts: dict[tuple[int, str], int] = {}

        def count(ambiguity: _Ambiguity, which: str) -> int:
            key = (id(ambiguity), which)
            if key not in document_counts:
                regex = ambiguity.confirm if which == "confirm" else ambiguity.refute
                document_counts[key] = 0 if regex is None else len(regex.findall(text))
            return document_counts[key]

        kept: list[Mention] = []
        for mention in mentions:
            ambiguity = None
            for cid in mention.concepts:
                forms = self._ambiguities.get(cid)
                if forms is not None:
                    written = term_key(text[mention.start : mention.end], case_sensitive=False)
                    ambiguity = forms.get(written)
                    if ambiguity is not None:
                        break
            if ambiguity is None or _sense_holds(text, mention, ambiguity, count):
                kept.append(mention)
        return kept

    def concepts_in(self, text: str) -> frozenset[str]:
        """Canonical ids of every concept named in `text` (implied concepts included)."""
        found: set[str] = set()
        for mention in self.mentions(fold_text(text)):
            found |= mention.concepts
        return frozenset(found)

    def find(self, text: str, concept: str) -> list[tuple[int, int]]:
        """Spans `(start, end)` in `text` naming `concept`; spans inside a longer one dropped."""
        spans = sorted(
            {(m.start, m.end) for m in self.mentions(text) if concept in m.concepts},
            key=lambda s: (s[0], -s[1]),
        )
        return list(_outermost(spans))

    def canonical(self, term: str) -> str | None:
        """The concept id a whole term names ("O2 sats" -> "spo2"), or None."""
        stripped = fold_text(term).strip()
        if stripped in self.concepts:
            return stripped
        cid = self._cs_keys.get(term_key(stripped, case_sensitive=True))
        if cid is None:
            cid = self._ci_keys.get(term_key(stripped, case_sensitive=False))
        if cid is None:
            for pattern, pattern_cid, _ in self._patterns:
                if pattern.fullmatch(stripped):
                    return pattern_cid
        return cid

    def valued_by(self, concept_id: str) -> tuple[str, ...]:
        """Concepts whose value is a value of `concept_id` ("hyperkalaemic at 6.4")."""
        return self._valued_by.get(concept_id, ())

    def implied_by(self, concept_id: str) -> frozenset[str]:
        """The concept and everything it implies."""
        return self._closure.get(concept_id, frozenset())


_WORDS_RE = re.compile(r"[a-z0-9+']+")


def _holds_term(term: str, terms: set[str]) -> bool:
    """Whether a run of `term`'s words is one of `terms` (words lower-cased)."""
    words = _WORDS_RE.findall(term.lower())
    return any(
        " ".join(words[i:j]) in terms
        for i in range(len(words))
        for j in range(i + 1, min(len(words), i + 6) + 1)
        if (i, j) != (0, len(words))
    )


HINT_BEFORE = 80  # characters before a hint where a pattern's match may start
HINT_AFTER = 160  # ...and after it where the match may end


def _hint_windows(lowered: str, hints: tuple[str, ...]) -> list[tuple[int, int]]:
    """Where a pattern needs to run: around each occurrence of one of its hints (merged),
    or the whole text for a pattern without hints. A hint is a substring every match
    contains, so the regex never scans text that cannot match."""
    if not hints:
        return [(0, len(lowered))]
    positions: list[int] = []
    for hint in hints:
        at = lowered.find(hint)
        while at >= 0:
            positions.append(at)
            at = lowered.find(hint, at + 1)
    windows: list[tuple[int, int]] = []
    for at in sorted(positions):
        start, end = max(0, at - HINT_BEFORE), min(len(lowered), at + HINT_AFTER)
        if windows and start <= windows[-1][1]:
            windows[-1] = (windows[-1][0], max(windows[-1][1], end))
        else:
            windows.append((start, end))
    return windows


def _sense_holds(
    text: str,
    mention: Mention,
    ambiguity: _Ambiguity,
    document_count: Callable[[_Ambiguity, str], int],
) -> bool:
    """Whether an ambiguous mention means its concept: near words, then the document's."""
    left = max(0, mention.start - ambiguity.window)
    right = min(len(text), mention.end + ambiguity.window)
    line_start = text.rfind("\n", 0, mention.start) + 1
    line_end = text.find("\n", mention.end)
    line_end = len(text) if line_end < 0 else line_end
    if _inside_refuting(text, mention, ambiguity):
        return False  # "PD" in "PD-L1": the longer form is what is written
    adjacent = _adjacent_sense(text, mention, ambiguity)
    if adjacent is not None:
        return adjacent  # "SFA stent", "ureteric stent", "coronary stent": the word before decides
    near_confirm = _hits(ambiguity.confirm, text, left, right, mention)
    near_refute = _hits(ambiguity.refute, text, left, right, mention)
    if near_refute or near_confirm:
        return near_confirm >= near_refute
    if ambiguity.caps_need_confirm and _in_capitals(text[line_start:line_end]):
        return False
    refuted = document_count(ambiguity, "refute")
    return not (refuted and not document_count(ambiguity, "confirm"))


ADJACENT_REACH = 30  # characters before a form where a qualifier word decides its sense
_ADJACENT_GAP = re.compile(r"[\s,\-/]*(?:[A-Za-z]+[\s\-]+)?$")


def _adjacent_sense(text: str, mention: Mention, ambiguity: _Ambiguity) -> bool | None:
    """The sense a word right before the form gives it (at most one other word between,
    on the same line): refuted, confirmed, or None when no such word stands there."""
    low = max(0, mention.start - ADJACENT_REACH, text.rfind("\n", 0, mention.start) + 1)
    for regex, sense in ((ambiguity.refute, False), (ambiguity.confirm, True)):
        if regex is None:
            continue
        for hit in regex.finditer(text, low, mention.start):
            if _ADJACENT_GAP.fullmatch(text, hit.end(), mention.start):
                return sense
    return None


def _inside_refuting(text: str, mention: Mention, ambiguity: _Ambiguity) -> bool:
    """Whether a refuting form longer than the mention contains it ("PD-L1", "PD-1")."""
    if ambiguity.refute is None:
        return False
    low = max(0, mention.start - ADJACENT_REACH)
    high = min(len(text), mention.end + ADJACENT_REACH)
    return any(
        hit.start() <= mention.start
        and mention.end <= hit.end()
        and hit.end() - hit.start() > mention.end - mention.start
        for hit in ambiguity.refute.finditer(text, low, high)
    )


def _hits(regex: re.Pattern[str] | None, text: str, left: int, right: int, m: Mention) -> int:
    if regex is None:
        return 0
    return sum(
        1
        for hit in regex.finditer(text, left, right)
        if hit.end() <= m.start or hit.start() >= m.end
    )


def _in_capitals(line: str) -> bool:
    """A line written in capitals ("SEEN AS AN OUTPATIENT"): most of its words are upper case."""
    words = re.findall(r"[A-Za-z]{2,}", line)
    if len(words) < 3:
        return False
    return sum(w.isupper() for w in words) >= 0.8 * len(words)


def _drop_nested(mentions: list[Mention]) -> list[Mention]:
    """Drop a mention inside a longer one that already names all its concepts ("TnT" in
    "hs-TnT"), or inside a longer term of another concept, whose words say what it means
    ("MH" in "MH cart", "pacemaker" in "gastric pacemaker"); a regular expression's match
    (which may span several findings) only hides what it names. `mentions` is sorted by
    start, longest first."""
    kept: list[Mention] = []
    open_: list[Mention] = []  # kept mentions that may still contain a later one
    for mention in mentions:
        if open_:
            open_ = [o for o in open_ if o.end > mention.start]
        if any(
            mention.end <= o.end
            and (
                mention.concepts <= o.concepts
                or not o.pattern
                and not mention.pattern
                and o.end - o.start > mention.end - mention.start
            )
            for o in open_
        ):
            continue
        kept.append(mention)
        open_.append(mention)
    return kept


def _outermost(spans: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    last_end = -1
    for start, end in spans:
        if end <= last_end:
            continue
        last_end = end
        yield start, end


def _read_lexicon_file(path: Path) -> list[_ConceptIn]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read lexicon file: {exc}", subject=path) from exc
    if not isinstance(raw, dict) or "concepts" not in raw:
        return []  # e.g. units.json: not a concept file
    try:
        return _LexiconFileIn.model_validate(raw).concepts
    except ValidationError as exc:
        where, problem = first_validation_error(exc)
        raise InputError(f"invalid lexicon file at {where}: {problem}", subject=path) from exc


def _check_concept(
    item: _ConceptIn,
    path: Path,
    concepts: dict[str, Concept],
    ci_owner: dict[str, str],
    cs_owner: dict[str, str],
) -> None:
    if not _CONCEPT_ID_RE.match(item.id):
        raise InputError(f"bad concept id {item.id!r}", subject=path)
    if item.id in concepts:
        raise InputError(f"duplicate concept id {item.id!r}", subject=path)
    for terms, owner, sensitive in (
        (item.terms, ci_owner, False),
        (item.abbreviations, cs_owner, True),
    ):
        for term in terms:
            key = term_key(fold_text(term), case_sensitive=sensitive)
            if not key:
                raise InputError(f"empty term in concept {item.id!r}", subject=path)
            if owner.get(key, item.id) != item.id:
                raise InputError(
                    f"term {term!r} of {item.id!r} already names {owner[key]!r}", subject=path
                )
            owner[key] = item.id
    for pattern in item.patterns:
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise InputError(
                f"bad pattern {pattern!r} in {item.id!r}: {exc}", subject=path
            ) from exc
        if compiled.groups:
            raise InputError(
                f"pattern {pattern!r} in {item.id!r} must use (?:...) groups", subject=path
            )
