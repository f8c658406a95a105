"""Concord's own ASTRID judge prompts: the shared item block (prefix) and one question each.

The prefix holds the preamble and the item (question, context chunks, answer sentences)
between QA_ITEM markers, byte-identical for every judge call on the item, so a runtime
evaluates it once. Item text cannot close the block: any spelling of the marker word and
any run of three angle brackets inside it is defused first. Prompt texts live in
`resources/prompts/astrid_*.txt` so that a clinician can read them.
"""

from __future__ import annotations

import hashlib
import re
from functools import cache
from typing import Any

from concord.astrid.items import QaItem
from concord.astrid.questions import PREAMBLE_FILE, judge_question, judge_questions
from concord.astrid.questions import Metric as Metric  # re-exported: the built-in questions
from concord.astrid.sentences import SPLITTER_VERSION, Sentence

BLOCK_OPEN = "<<<QA_ITEM"
BLOCK_CLOSE = "QA_ITEM>>>"
REASON_MAX_CHARS = 100
"""The judge's reason (CR and RA only) is kept short: it is for the reviewer, and every token
costs time on a workstation CPU. Per-sentence CF questions ask for the verdict alone."""
_MARKER_WORD = re.compile(r"qa[\s_\-]*item", re.IGNORECASE)
_ANGLES = re.compile(r"<{3,}|>{3,}")


@cache
def prompt_text(key: str) -> str:
    """The preamble ("preamble") or a registered question's prompt (by its name)."""
    if key == "preamble":
        from concord.paths import resources_dir

        path = resources_dir() / "prompts" / PREAMBLE_FILE
    else:
        path = judge_question(key).prompt_path()
    return path.read_text(encoding="utf-8").strip()


def prompts_sha256() -> str:
    """One hash for the preamble, every registered question's prompt (in registration
    order, the built-in four first) and the sentence splitter: stored with each run."""
    digest = hashlib.sha256(SPLITTER_VERSION.encode())
    for key in ("preamble", *(q.name for q in judge_questions())):
        digest.update(b"\0" + prompt_text(key).encode("utf-8"))
    return digest.hexdigest()


def defuse(text: str) -> str:
    text = _MARKER_WORD.sub("qa-item", text)
    return _ANGLES.sub(lambda m: m.group(0)[0] * 2, text)


def _one_line(text: str) -> str:
    return " ".join(defuse(text).split())


def item_block(item: QaItem, sentences: list[Sentence]) -> str:
    """The prefix shared by every judge call on `item`."""
    parts = [
        prompt_text("preamble"),
        "",
        BLOCK_OPEN,
        "QUESTION:",
        _one_line(item.question),
        "",
        "CONTEXT:",
    ]
    parts += [f"[C{n}] {_one_line(chunk)}" for n, chunk in enumerate(item.context, start=1)]
    parts += ["", "ANSWER (one sentence per line):"]
    parts += [f"[S{s.index + 1}] {_one_line(s.text)}" for s in sentences]
    parts.append(BLOCK_CLOSE)
    return "\n".join(parts) + "\n\n"


def question_prompt(metric: str, sentence: Sentence | None = None) -> str:
    question = judge_question(metric)
    template = prompt_text(question.name)
    if question.per_sentence:
        if sentence is None:
            raise ValueError(f"{metric} is asked per sentence")
        return template.format(index=sentence.index + 1, sentence=_one_line(sentence.text)) + "\n"
    return template + "\n"


def verdict_schema(metric: str) -> dict[str, Any]:
    """The verdict first (the decision does not wait on the explanation), then, for a
    question that asks for one, a short reason."""
    question = judge_question(metric)
    properties: dict[str, Any] = {"verdict": {"enum": list(question.words)}}
    if question.asks_reason:
        properties["reason"] = {"type": "string", "minLength": 1, "maxLength": REASON_MAX_CHARS}
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }
