"""Prompt text: the shared record block (prefix), the instructions every agent of the
panel shares (preface) and each agent's own part.

The shared prompt prefix is a preamble and the patient record as numbered lines.

The block is byte-identical for every agent and judge on a record, so a runtime can
evaluate it once. Patient text cannot close the block: any spelling of the delimiter word
inside the record (or a document's id or title) is neutralised before it is inserted.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from concord.agents.profiles import AgentProfile, AgentRole
from concord.domain.record import Record
from concord.errors import InputError

BLOCK_OPEN = "<<<PATIENT_RECORD"
BLOCK_CLOSE = "PATIENT_RECORD>>>"
PREAMBLE_FILE = "record_preamble.txt"
_DELIMITER_WORD = re.compile(r"patient[\s_\-]*record", re.IGNORECASE)
_ANGLES = re.compile(r"<{3,}|>{3,}")
NEUTRAL_WORD = "patient-record"


class PromptSet:
    """The prompt files (`resources/prompts/`), read once: name -> text. Build with `load`;
    `Resources` holds the one a run uses, so a candidate prompt folder can be validated
    beside the installed one."""

    def __init__(self, files: Mapping[str, str]) -> None:
        self.files = dict(files)

    @classmethod
    def load(cls, folder: Path | None = None) -> PromptSet:
        if folder is None:
            from concord.paths import resources_dir

            folder = resources_dir() / "prompts"
        if not folder.is_dir():
            raise InputError("prompt folder does not exist", subject=folder)
        try:
            files = {
                p.name: p.read_text(encoding="utf-8")
                for p in sorted(folder.iterdir())
                if p.is_file()
            }
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read a prompt file: {exc}", subject=folder) from exc
        return cls(files)

    @classmethod
    def installed(cls) -> PromptSet:
        """The installed prompt folder, read once per process and folder (for callers that
        are given no prompt set: tests, the bench)."""
        from concord.paths import resources_dir

        folder = resources_dir() / "prompts"
        if folder not in _INSTALLED:
            _INSTALLED[folder] = cls.load(folder)
        return _INSTALLED[folder]

    def text(self, name: str) -> str:
        try:
            return self.files[name]
        except KeyError:
            raise InputError(f"prompt file {name} is missing from the prompt set") from None


_INSTALLED: dict[Path, PromptSet] = {}


def preamble_text(prompts: PromptSet | None = None) -> str:
    return (prompts or PromptSet.installed()).text(PREAMBLE_FILE).strip()


def neutralise(text: str) -> str:
    """Patient text with anything that could read as a block delimiter defused."""
    text = _DELIMITER_WORD.sub(NEUTRAL_WORD, text)
    return _ANGLES.sub(lambda m: m.group(0)[0] * 2, text)


def _one_line(text: str) -> str:
    return " ".join(neutralise(text).split())


def build_record_block(record: Record, prompts: PromptSet | None = None) -> str:
    """Preamble, then every record line as `L<n>: <text>`, grouped by document."""
    parts = [preamble_text(prompts), "", BLOCK_OPEN]
    by_source: dict[str, list[str]] = {}
    for line in record.lines:
        by_source.setdefault(line.source_id, []).append(f"{line.line_id}: {neutralise(line.text)}")
    for document in record.documents:
        title = f" ({_one_line(document.title)})" if document.title.strip() else ""
        parts.append(f"## document {_one_line(document.source_id)}{title}")
        parts.extend(by_source.get(document.source_id, ["(no text)"]))
    parts.append(BLOCK_CLOSE)
    return "\n".join(parts) + "\n\n"


# -- the agent-specific part of the prompt ------------------------------------------------

BRIEF_TEMPLATE_FILE = "agent_brief.txt"  # each agent's own part: role, budget, tags, gates
BRIEF_SHARED_FILE = "agent_brief_shared.txt"  # what every agent of the panel reads first
SURGEON_TEMPLATE_FILE = "surgeon_operation.txt"
OPERATION_MAX_CHARS = 200
NO_OPERATION = "not stated (assume the operation the record most plausibly points to)"


def template_text(name: str, prompts: PromptSet | None = None) -> str:
    return (prompts or PromptSet.installed()).text(name)


def operation_text(operation: str) -> str:
    """The operation as one quoted line (it may come from a model or a user)."""
    cleaned = _one_line(operation)[:OPERATION_MAX_CHARS].replace('"', "'")
    return f'"{cleaned}"' if cleaned else NO_OPERATION


def brief_preface(operation: str, prompts: PromptSet | None = None) -> str:
    """What every agent of the panel reads after the record, before its own part: the
    operation and how a brief is written (`GenerationRequest.preface`: the same text for
    the anaesthetist and each specialist, so it is evaluated once and reused)."""
    return template_text(BRIEF_SHARED_FILE, prompts).format(operation=operation_text(operation))


def brief_prompt(
    profile: AgentProfile,
    specialist_ids: Sequence[str] = (),
    prompts: PromptSet | None = None,
) -> str:
    """The agent's own part after the preface: its role, item budget, evidence tags, the
    gates it owns and (the anaesthetist) whom it may consult."""
    limits = profile.max_items
    gate_instruction = (
        '\nIn "top_risks", "gates" may name the safety gates a risk addresses, from: '
        + ", ".join(profile.gate_ids)
        + "."
        if profile.gate_ids
        else ""
    )
    consult_instruction = (
        '\n- "consult": the specialists who should review this patient before surgery, most '
        "urgent first, from: " + ", ".join(specialist_ids) + "."
        if profile.role == AgentRole.ANAESTHETIST
        else ""
    )
    return template_text(BRIEF_TEMPLATE_FILE, prompts).format(
        title=profile.title,
        title_upper=profile.title.upper(),
        focus=profile.focus,
        tags=", ".join(profile.tags),
        max_evidence=limits.evidence,
        max_top_risks=limits.top_risks,
        max_actions=limits.actions,
        max_triggers=limits.triggers,
        max_monitoring=limits.monitoring,
        max_risk_scores=limits.risk_scores,
        gate_instruction=gate_instruction,
        consult_instruction=consult_instruction,
    )


def surgeon_prompt(profile: AgentProfile, prompts: PromptSet | None = None) -> str:
    return template_text(SURGEON_TEMPLATE_FILE, prompts).format(
        title=profile.title, title_upper=profile.title.upper(), focus=profile.focus
    )


def prompt_sha256(
    template_names: Sequence[str],
    profile: AgentProfile,
    extra: Sequence[str] = (),
    prompts: PromptSet | None = None,
) -> str:
    """Hash of everything that shapes the prompt: preamble, templates, profile (and extras
    such as the anaesthetist's list of specialists)."""
    digest = hashlib.sha256()
    parts = (
        preamble_text(prompts),
        *(template_text(name, prompts) for name in template_names),
        profile.canonical_json(),
        *extra,
    )
    for part in parts:
        digest.update(part.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()
