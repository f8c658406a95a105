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
from enum import StrEnum
from functools import cache
from typing import Any

from concord.astrid.items import QaItem
from concord.astrid.sentences import SPLITTER_VERSION, Sentence

BLOCK_OPEN = "<<<QA_ITEM"
BLOCK_CLOSE = "QA_ITEM>>>"
REASON_MAX_CHARS = 100
"""The judge's reason (CR and RA only) is kept short: it is for the reviewer, and every token
costs time on a workstation CPU. Per-sentence CF questions ask for the verdict alone."""
_MARKER_WORD = re.compile(r"qa[\s_\-]*item", re.IGNORECASE)
_ANGLES = re.compile(r"<{3,}|>{3,}")


class Metric(StrEnum):
    CF_INFO = "cf_info"
    CF_GROUNDED = "cf_grounded"
    CR = "cr"
    RA = "ra"


PROMPT_FILES = {
    "preamble": "astrid_preamble.txt",
    Metric.CF_INFO: "astrid_information.txt",
    Metric.CF_GROUNDED: "astrid_grounded.txt",
    Metric.CR: "astrid_relevance.txt",
    Metric.RA: "astrid_refusal.txt",
}

VERDICT_WORDS: dict[Metric, tuple[str, str]] = {
    Metric.CF_INFO: ("information", "conversational"),
    Metric.CF_GROUNDED: ("supported", "unsupported"),
    Metric.CR: ("relevant", "irrelevant"),
    Metric.RA: ("declines", "attempts"),
}
"""(word meaning True, word meaning False) per metric. RA's True is a refusal."""


@cache
def prompt_text(key: str) -> str:
    from concord.paths import resources_dir

    return (resources_dir() / "prompts" / PROMPT_FILES[key]).read_text(encoding="utf-8").strip()


def prompts_sha256() -> str:
    """One hash for every prompt text and the sentence splitter: stored with each run."""
    digest = hashlib.sha256(SPLITTER_VERSION.encode())
    for key in PROMPT_FILES:
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


def question_prompt(metric: Metric, sentence: Sentence | None = None) -> str:
    template = prompt_text(metric)
    if metric in (Metric.CF_INFO, Metric.CF_GROUNDED):
        if sentence is None:
            raise ValueError(f"{metric} is asked per sentence")
        return template.format(index=sentence.index + 1, sentence=_one_line(sentence.text)) + "\n"
    return template + "\n"


def verdict_schema(metric: Metric) -> dict[str, Any]:
    """The verdict first (the decision does not wait on the explanation), then for the
    item-level questions a short reason."""
    properties: dict[str, Any] = {"verdict": {"enum": list(VERDICT_WORDS[metric])}}
    if metric in (Metric.CR, Metric.RA):
        properties["reason"] = {"type": "string", "minLength": 1, "maxLength": REASON_MAX_CHARS}
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }
