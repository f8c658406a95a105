"""The context words, `resources/lexicon/context.json`: one vocabulary for every reader.

The words that change what a mention means for the patient (negation, family, hypothetical
or planned wording, history and its resolution, checklist answers, targets, conditions,
sections, medication status) are one file a clinician can read and extend. It is validated
here once, by `ContextFileIn`, and read by:

* the record screen (`concord.screen.cues` compiles every list into its own expressions;
  what each list means there is decided in `concord.screen.context` and `.values`);
* evidence verification (`concord.evidence.context_words`: what a quote must not cut off,
  and the `negated` flag) and the scorecard (`concord.adjudication.gates`: a bullet that
  negates a gate's terms contradicts it instead of addressing it), both through
  `negation_words`: the same negation cues, read with their own scope and window rules.

A cue a clinician adds to `negation.before_list`, `before_short`, `after` or `pseudo`
therefore reaches the screen, the verifier and the scorecard alike.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from concord import paths
from concord.text.resource_file import read_resource_file

CONTEXT_FILE = ("lexicon", "context.json")
"""Where the context words live under resources/."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class NegationIn(_Strict):
    before_list: list[str] = Field(description="Cues that negate a list running over commas")
    before_short: list[str] = Field(description="Cues whose scope a comma ends")
    before_direct: list[str] = Field(
        description="Cues that negate only right before the mention ('avoid bleomycin')"
    )
    after: list[str] = Field(description="Cues right after a mention ('pneumonia excluded')")
    pseudo: list[str] = Field(description="Phrases that look like negation but are not")


class _ChecklistIn(_Strict):
    no: list[str]
    yes: list[str]
    unanswered: list[str]


class _FamilyIn(_Strict):
    relatives: list[str]
    informant_verbs: list[str] = Field(description="A relative who reports is not the subject")
    self: list[str]
    not_blood: list[str] = Field(
        default=[], description="Relatives by marriage or choice: no inherited risk (MH)"
    )


class _HypotheticalIn(_Strict):
    before_list: list[str]
    after: list[str]
    enacted: list[str] = Field(
        default=[],
        description="Words after a protocol or pathway that say it is being followed for this "
        "patient ('sepsis pathway started'): the mention is then no hypothesis",
    )


class _PlannedIn(_Strict):
    before: list[str] = Field(description="Cues right before an intervention ('plan to start')")
    after: list[str] = Field(description="Cues right after it ('ABVD planned')")
    done: list[str] = Field(description="Words that say an intervention has happened")
    filler: list[str] = Field(description="Words allowed between a 'before' cue and the mention")


class _HistoryIn(_Strict):
    cues: list[str] = Field(description="Words that make a mention history ('previous')")
    current: list[str] = Field(description="Words that make it current, whatever else is said")
    recent: list[str] = Field(description="Words of recency that resolution words override")
    resolution: list[str] = Field(description="Words that say it has resolved")
    now_resolution: list[str] = Field(description="'now ...' words that mean it has resolved")


class _ValuesIn(_Strict):
    target_before: list[str]
    target_after: list[str]
    later: list[str]
    earlier: list[str]
    settled_after: list[str]
    flags: list[str]
    header_words: list[str]


class _SectionsIn(_Strict):
    family: list[str]
    history: list[str]
    plan: list[str]
    protocol: list[str]
    current: list[str]
    medication: list[str] = Field(default=[], description="The current medication list")
    past_medication: list[str] = Field(default=[], description="Stopped or past medicines")
    allergy: list[str] = Field(default=[], description="Allergies and adverse reactions")
    intolerance: list[str] = Field(
        default=[], description="Intolerances and side effects only: not taken, not allergies"
    )


class MedicationIn(_Strict):
    """Words that say whether a medicine is taken now (`concord.screen.medication_rules`)."""

    stopped: list[str] = Field(description="Stopped for good ('discontinued', 'came off')")
    held: list[str] = Field(description="Held for now ('on hold', 'last dose')")
    instruction: list[str] = Field(description="To be stopped: still taken ('stop 5 days pre-op')")
    for_surgery: list[str] = Field(description="Stopped or held for this operation")
    past_before: list[str] = Field(description="Before a medicine no longer taken ('was on')")
    course_before: list[str] = Field(description="Before a course that may be over")
    current: list[str] = Field(description="Taken now, whatever else is said ('still on')")
    intolerance_before: list[str] = Field(description="Not taken: intolerant, allergic")
    prophylaxis: list[str] = Field(description="A preventive dose")
    treatment: list[str] = Field(description="A treatment dose")
    non_systemic: list[str] = Field(description="Routes that act locally (inhaled, topical)")
    short_course: list[str] = Field(description="A short course (days), not long-term use")
    long_term: list[str] = Field(description="Long-term use")


class ContextFileIn(_Strict):
    version: str
    description: str = ""
    negation: NegationIn
    checklist: _ChecklistIn
    family: _FamilyIn
    hypothetical: _HypotheticalIn
    planned: _PlannedIn
    history: _HistoryIn
    values: _ValuesIn
    terminators: list[str]
    sections: _SectionsIn
    medication: MedicationIn
    uncertain: list[str] = Field(
        default=[], description="Words that make a diagnosis suspected, not made ('possible OSA')"
    )
    person_titles: list[str] = Field(
        default=[],
        description="Titles before a person's name ('Dr', 'Nurse'): the capitalised words after "
        "one are a name, never a finding ('Dr Aki', 'Nurse Tia Morgan')",
    )


def context_words(context: ContextFileIn) -> frozenset[str]:
    """Every word of every list of the context file, lower case: real words the screen reads
    as cues ("completed", "stopped"), which a spelling correction must never change."""
    words: set[str] = set()

    def collect(value: object) -> None:
        if isinstance(value, str):
            words.update(w.lower() for w in re.findall(r"[A-Za-z]+", value))
        elif isinstance(value, list):
            for item in value:
                collect(item)
        elif isinstance(value, BaseModel):
            for name in type(value).model_fields:
                if name not in ("version", "description"):
                    collect(getattr(value, name))

    collect(context)
    return frozenset(words)


def context_file_path(resources: Path | None = None) -> Path:
    """`<resources>/lexicon/context.json`, the installation's resources by default."""
    return (resources or paths.resources_dir()).joinpath(*CONTEXT_FILE)


def read_context_file(path: Path) -> ContextFileIn:
    """The context file at `path`, validated; InputError naming the file otherwise."""
    return read_resource_file(path, ContextFileIn, "context file")


@dataclass(frozen=True, eq=False)
class NegationWords:
    """The negation cues of the context file as the verifier and the scorecard read them.

    `before` is the screen's `before_list` and `before_short` (a cue before what it
    negates), `after` its `after` list, `pseudo` what looks like negation and is not,
    `resolved` the history words that say a finding has gone (`history.resolution`: the
    verifier reads them as negation after a finding, "hyperkalaemia 6.1 - resolved"),
    `answers_no` the checklist answers that negate a label in its value slot ("Chest pain:
    none"). Where a clause ends is each reader's own scope rule, not a shared list: the
    screen's `terminators` end a cue's reach forwards, the verifier's clause words end it
    both ways. The screen's `before_direct` cues ("avoid", "stop", "withhold") are not among
    these: they negate only as an instruction right before a medicine, and a brief that says
    "avoid bleomycin" or "stop apixaban" addresses the gate rather than denying it.

    Compared and hashed by identity (`negation_words` gives one object per file), so the
    readers' compiled forms are cached on it cheaply."""

    before: tuple[str, ...]
    after: tuple[str, ...]
    pseudo: tuple[str, ...]
    resolved: tuple[str, ...]
    answers_no: tuple[str, ...]

    @classmethod
    def of(cls, context: ContextFileIn) -> NegationWords:
        negation = context.negation
        return cls(
            before=_unique((*negation.before_list, *negation.before_short)),
            after=_unique(negation.after),
            pseudo=_unique(negation.pseudo),
            resolved=_unique(context.history.resolution),
            answers_no=_unique(context.checklist.no),
        )


def _unique(words: Iterable[str]) -> tuple[str, ...]:
    """Lower-case, whitespace collapsed, each once, in the file's order."""
    return tuple(dict.fromkeys(" ".join(w.lower().split()) for w in words if w.strip()))


def negation_words(resources: Path | None = None) -> NegationWords:
    """The negation cues of the context file under `resources`, by default the
    installation's (`concord.paths.resources_dir`: `CONCORD_RESOURCES` or the bundled
    resources). Read once per folder and process (the verifier asks for them for every
    quote): an edit reaches the verifier and the scorecard when Concord next starts, as it
    reaches the screen, which reads the file when it is loaded."""
    return _negation_words(resources, os.environ.get(paths.RESOURCES_ENV))


@lru_cache(maxsize=8)
def _negation_words(resources: Path | None, _env: str | None) -> NegationWords:
    return NegationWords.of(read_context_file(context_file_path(resources)))
