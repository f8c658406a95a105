"""The judge's questions: each kind of ASTRID verdict is one registered `JudgeQuestion`.

A question is its name (stored as `qa_verdicts.metric`), its prompt file, how its verdict is
parsed (the word that means True and the word that means False; the judge's output is
constrained to one of them), whether it is asked once per answer sentence or once per item,
and whether the judge gives a short reason. The four built-in questions (`Metric`) are
registered here; a new one is one `register_question` call (see README, "How to add a judge
question"), and `llm_judge.judge_item` asks every registered question of every item, stores
its verdicts, and the store refuses a verdict whose question is not registered (the check
that replaced the SQL CHECK list of `qa_verdicts.metric`, migration 9).

The built-in questions feed CF, CR and RA and the desktop's QA page; a registered question's
verdicts are stored, reported and read back, and a registered score
(`concord.astrid.scores.item_score`) can turn them into a per-item score.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from concord.errors import InputError

PREAMBLE_FILE = "astrid_preamble.txt"


class Metric(StrEnum):
    """The built-in questions, by name."""

    CF_INFO = "cf_info"
    CF_GROUNDED = "cf_grounded"
    CR = "cr"
    RA = "ra"


@dataclass(frozen=True)
class JudgeQuestion:
    name: str
    """Stored as the verdict's metric; lower-case letters, digits and '_'."""
    prompt_file: str | Path
    """A file name in resources/prompts/, or a path to the file."""
    words: tuple[str, str]
    """(the word meaning True, the word meaning False): the verdict's only two values."""
    per_sentence: bool = False
    """Asked of each answer sentence (the prompt gets {index} and {sentence}), else once."""
    asks_reason: bool = False
    """The judge adds a short reason (for the reviewer)."""

    def parse(self, word: str) -> bool | None:
        """The verdict's value, or None for a word that is not one of the two."""
        if word == self.words[0]:
            return True
        if word == self.words[1]:
            return False
        return None

    def prompt_path(self) -> Path:
        path = Path(self.prompt_file)
        if path.is_absolute():
            return path
        from concord.paths import resources_dir

        return resources_dir() / "prompts" / path


_QUESTIONS: dict[str, JudgeQuestion] = {}


def register_question(question: JudgeQuestion) -> JudgeQuestion:
    """Add a question the judge asks of every item from now on. InputError for a name
    already taken, a name that is not a plain identifier, or two equal verdict words."""
    name = question.name
    if not name or not all(c.islower() or c.isdigit() or c == "_" for c in name):
        raise InputError(
            "a judge question's name is lower-case letters, digits and _", subject=name
        )
    if name in _QUESTIONS:
        raise InputError("a judge question of that name is registered already", subject=name)
    true_word, false_word = question.words
    if not true_word or true_word == false_word:
        raise InputError("a judge question needs two different verdict words", subject=name)
    _QUESTIONS[name] = question
    from concord.astrid.prompts import prompt_text

    prompt_text.cache_clear()
    return question


def unregister_question(name: str) -> None:
    """Remove a question registered by `register_question` (a test's, a plugin's)."""
    if name in BUILT_IN:
        raise InputError("a built-in judge question cannot be removed", subject=name)
    _QUESTIONS.pop(name, None)
    from concord.astrid.prompts import prompt_text

    prompt_text.cache_clear()


def judge_questions() -> tuple[JudgeQuestion, ...]:
    """Every registered question, built-in ones first, in the order registered."""
    return tuple(_QUESTIONS.values())


def judge_question(name: str) -> JudgeQuestion:
    found = _QUESTIONS.get(str(name))
    if found is None:
        known = ", ".join(_QUESTIONS)
        raise InputError(f"no judge question of that name (registered: {known})", subject=name)
    return found


def is_registered(name: str) -> bool:
    return str(name) in _QUESTIONS


BUILT_IN = frozenset(m.value for m in Metric)

for _question in (
    JudgeQuestion(
        Metric.CF_INFO, "astrid_information.txt", ("information", "conversational"), True
    ),
    JudgeQuestion(Metric.CF_GROUNDED, "astrid_grounded.txt", ("supported", "unsupported"), True),
    JudgeQuestion(Metric.CR, "astrid_relevance.txt", ("relevant", "irrelevant"), asks_reason=True),
    JudgeQuestion(Metric.RA, "astrid_refusal.txt", ("declines", "attempts"), asks_reason=True),
):  # RA's True is a refusal
    _QUESTIONS[_question.name] = _question
