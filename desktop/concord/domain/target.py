"""Judgement identifiers: what a human can accept or override, as one typed value.

Every decidable judgement has a stable string id that is stored with its decisions and
exported with the labels. `TargetRef` is the only place that builds or reads those strings:

  gate/<gate_id>                              a record-screen gate (does it fire?)
  gate/<gate_id>/disposition                  the clinician's disposition of that red flag
  <specialist>/overall                        a scorecard's overall score
  <specialist>/subscore/<name>                one of its five sub-scores
  <specialist>/disagreement/<disagreement_id> one of its disagreements
  <specialist>/match/<specialist_item>=<anaesthetist_item>
  astrid/<item_id>/cf/sentence/<n>            an ASTRID sentence verdict (n from 1)
  astrid/<item_id>/cf | /cr | /ra             an ASTRID item metric
  astrid/<item_id>/harm                       a harm label on an ASTRID answer (a severity)
  astrid/<item_id>/harm/sentence/<n>          a harm label on one sentence of it
  eval/<answer_id>/grade                      an EVAL good/bad grade
  eval/<answer_id>/harm                       a harm label on an EVAL answer

A harm label has no judge: it is the human's own mark that an answer (or a sentence of it)
is unsafe, with its severity (minor, moderate, major).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class TargetKind(StrEnum):
    GATE = "gate"
    DISPOSITION = "disposition"
    OVERALL = "overall"
    SUBSCORE = "subscore"
    DISAGREEMENT = "disagreement"
    MATCH = "match"
    ASTRID_CF_SENTENCE = "astrid_cf_sentence"
    ASTRID_CF = "astrid_cf"
    ASTRID_CR = "astrid_cr"
    ASTRID_RA = "astrid_ra"
    EVAL_GRADE = "eval_grade"
    ASTRID_HARM = "astrid_harm"
    ASTRID_HARM_SENTENCE = "astrid_harm_sentence"
    EVAL_HARM = "eval_harm"

    @property
    def is_harm(self) -> bool:
        """A human's mark that an answer or a sentence is unsafe (no judge value)."""
        return self in _HARM_KINDS

    @property
    def is_case(self) -> bool:
        """A judgement of a panel case (as opposed to an ASTRID item or an EVAL answer)."""
        return self in _CASE_KINDS

    @property
    def is_astrid(self) -> bool:
        return self in _ASTRID_KINDS


_CASE_KINDS = frozenset(
    {
        TargetKind.GATE,
        TargetKind.DISPOSITION,
        TargetKind.OVERALL,
        TargetKind.SUBSCORE,
        TargetKind.DISAGREEMENT,
        TargetKind.MATCH,
    }
)
_ASTRID_KINDS = frozenset(
    {
        TargetKind.ASTRID_CF_SENTENCE,
        TargetKind.ASTRID_CF,
        TargetKind.ASTRID_CR,
        TargetKind.ASTRID_RA,
        TargetKind.ASTRID_HARM,
        TargetKind.ASTRID_HARM_SENTENCE,
    }
)
_HARM_KINDS = frozenset(
    {TargetKind.ASTRID_HARM, TargetKind.ASTRID_HARM_SENTENCE, TargetKind.EVAL_HARM}
)
_ASTRID_METRICS = {
    "cf": TargetKind.ASTRID_CF,
    "cr": TargetKind.ASTRID_CR,
    "ra": TargetKind.ASTRID_RA,
}
_PART = re.compile(r"^[^/\s]+$")
_RESERVED_HEADS = frozenset({"gate", "astrid", "eval"})


class TargetRefError(ValueError):
    """A string that is not a judgement id."""


@dataclass(frozen=True)
class TargetRef:
    """One judgement's id. `subject` is the gate id, the specialist, the ASTRID item id or the
    EVAL answer id; `detail` the sub-score name, the disagreement id, the match pair
    (`specialist_item=anaesthetist_item`) or the sentence number, as the kind needs."""

    kind: TargetKind
    subject: str
    detail: str = ""

    def __post_init__(self) -> None:
        if not _PART.match(self.subject):
            raise TargetRefError(f"invalid judgement subject {self.subject!r}")
        if self.specialist is not None and self.subject in _RESERVED_HEADS:
            raise TargetRefError(f"{self.subject!r} cannot name a specialist")
        needs_detail = self.kind in _NEEDS_DETAIL
        if needs_detail != bool(self.detail) or (self.detail and "/" in self.detail):
            raise TargetRefError(f"invalid detail {self.detail!r} for a {self.kind} judgement")
        if self.kind in _SENTENCE_KINDS and not (self.detail.isdigit() and int(self.detail) >= 1):
            raise TargetRefError(f"sentence number must be 1 or more, not {self.detail!r}")
        if self.kind is TargetKind.MATCH and self.detail.count("=") != 1:
            raise TargetRefError(f"a match is 'specialist_item=anaesthetist_item': {self.detail}")

    # --- constructors, one per kind ---------------------------------------------------
    @classmethod
    def gate(cls, gate_id: str) -> TargetRef:
        return cls(TargetKind.GATE, gate_id)

    @classmethod
    def disposition(cls, gate_id: str) -> TargetRef:
        """What the clinician decides to do about a triggered gate (no AI value to accept)."""
        return cls(TargetKind.DISPOSITION, gate_id)

    @classmethod
    def overall(cls, specialist: str) -> TargetRef:
        return cls(TargetKind.OVERALL, specialist)

    @classmethod
    def subscore(cls, specialist: str, name: str) -> TargetRef:
        return cls(TargetKind.SUBSCORE, specialist, name)

    @classmethod
    def disagreement(cls, specialist: str, disagreement_id: str) -> TargetRef:
        return cls(TargetKind.DISAGREEMENT, specialist, disagreement_id)

    @classmethod
    def match(cls, specialist: str, specialist_item: str, anaesthetist_item: str) -> TargetRef:
        return cls(TargetKind.MATCH, specialist, f"{specialist_item}={anaesthetist_item}")

    @classmethod
    def astrid_sentence(cls, item_id: str, number: int) -> TargetRef:
        """Sentence `number` (1-based, as shown to the judge and the reviewer)."""
        return cls(TargetKind.ASTRID_CF_SENTENCE, item_id, str(number))

    @classmethod
    def astrid_metric(cls, item_id: str, kind: TargetKind) -> TargetRef:
        if kind not in _ASTRID_METRICS.values():
            raise TargetRefError(f"{kind} is not an ASTRID item metric")
        return cls(kind, item_id)

    @classmethod
    def eval_grade(cls, answer_id: str) -> TargetRef:
        return cls(TargetKind.EVAL_GRADE, answer_id)

    @classmethod
    def astrid_harm(cls, item_id: str, number: int | None = None) -> TargetRef:
        """The harm label of an ASTRID answer, or of its sentence `number` (1-based)."""
        if number is None:
            return cls(TargetKind.ASTRID_HARM, item_id)
        return cls(TargetKind.ASTRID_HARM_SENTENCE, item_id, str(number))

    @classmethod
    def eval_harm(cls, answer_id: str) -> TargetRef:
        return cls(TargetKind.EVAL_HARM, answer_id)

    # --- typed views of the parts -------------------------------------------------------
    @property
    def specialist(self) -> str | None:
        """The scorecard's specialist, for scorecard judgements."""
        if self.kind in (TargetKind.GATE, TargetKind.DISPOSITION):
            return None
        return self.subject if self.kind.is_case else None

    @property
    def gate_id(self) -> str | None:
        """The gate a gate or disposition judgement is about."""
        return self.subject if self.kind in (TargetKind.GATE, TargetKind.DISPOSITION) else None

    @property
    def sentence_number(self) -> int | None:
        """The sentence a sentence verdict (or a sentence's harm label) is about, 1-based."""
        return int(self.detail) if self.kind in _SENTENCE_KINDS else None

    @property
    def match_items(self) -> tuple[str, str] | None:
        """(specialist_item, anaesthetist_item) for a match."""
        if self.kind is not TargetKind.MATCH:
            return None
        specialist_item, _, anaesthetist_item = self.detail.partition("=")
        return specialist_item, anaesthetist_item

    # --- the one format and the one parse ----------------------------------------------
    def format(self) -> str:
        kind, subject, detail = self.kind, self.subject, self.detail
        if kind is TargetKind.GATE:
            return f"gate/{subject}"
        if kind is TargetKind.DISPOSITION:
            return f"gate/{subject}/disposition"
        if kind is TargetKind.OVERALL:
            return f"{subject}/overall"
        if kind in (TargetKind.SUBSCORE, TargetKind.DISAGREEMENT, TargetKind.MATCH):
            return f"{subject}/{kind.value}/{detail}"
        if kind is TargetKind.ASTRID_CF_SENTENCE:
            return f"astrid/{subject}/cf/sentence/{detail}"
        if kind is TargetKind.ASTRID_HARM_SENTENCE:
            return f"astrid/{subject}/harm/sentence/{detail}"
        if kind is TargetKind.ASTRID_HARM:
            return f"astrid/{subject}/harm"
        if kind is TargetKind.EVAL_HARM:
            return f"eval/{subject}/harm"
        if kind.is_astrid:
            metric = next(m for m, k in _ASTRID_METRICS.items() if k is kind)
            return f"astrid/{subject}/{metric}"
        return f"eval/{subject}/grade"

    def __str__(self) -> str:
        return self.format()

    @classmethod
    def parse(cls, text: str) -> TargetRef:
        """The judgement `text` names; TargetRefError when it names none."""
        parts = text.split("/")
        head = parts[0]
        try:
            if head == "gate" and len(parts) == 2:
                return cls.gate(parts[1])
            if head == "gate" and len(parts) == 3 and parts[2] == "disposition":
                return cls.disposition(parts[1])
            if head == "astrid" and len(parts) == 3 and parts[2] in _ASTRID_METRICS:
                return cls(_ASTRID_METRICS[parts[2]], parts[1])
            if head == "astrid" and len(parts) == 5 and parts[2:4] == ["cf", "sentence"]:
                return cls(TargetKind.ASTRID_CF_SENTENCE, parts[1], parts[4])
            if head == "astrid" and len(parts) == 3 and parts[2] == "harm":
                return cls.astrid_harm(parts[1])
            if head == "astrid" and len(parts) == 5 and parts[2:4] == ["harm", "sentence"]:
                return cls(TargetKind.ASTRID_HARM_SENTENCE, parts[1], parts[4])
            if head == "eval" and len(parts) == 3 and parts[2] == "grade":
                return cls.eval_grade(parts[1])
            if head == "eval" and len(parts) == 3 and parts[2] == "harm":
                return cls.eval_harm(parts[1])
            if head not in ("gate", "astrid", "eval"):
                if len(parts) == 2 and parts[1] == "overall":
                    return cls.overall(head)
                if len(parts) == 3 and parts[1] in ("subscore", "disagreement", "match"):
                    return cls(TargetKind(parts[1]), head, parts[2])
        except TargetRefError as error:
            raise TargetRefError(f"not a judgement id: {text!r} ({error})") from None
        raise TargetRefError(f"not a judgement id: {text!r}")


_NEEDS_DETAIL = frozenset(
    {
        TargetKind.SUBSCORE,
        TargetKind.DISAGREEMENT,
        TargetKind.MATCH,
        TargetKind.ASTRID_CF_SENTENCE,
        TargetKind.ASTRID_HARM_SENTENCE,
    }
)
_SENTENCE_KINDS = frozenset({TargetKind.ASTRID_CF_SENTENCE, TargetKind.ASTRID_HARM_SENTENCE})
