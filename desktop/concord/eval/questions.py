"""Question sets with golden labels: reading JSONL or CSV files into validated objects.

JSONL: one question per line,
    {"id": "q1", "question": "...", "context": "optional passage",
     "answers": [{"expert": "E1", "text": "..."}, "a bare string is fine too"]}
CSV: one golden answer per row, columns `question_id, question, expert, answer`
(`context` optional); rows sharing a `question_id` belong to one question.
"""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from concord.errors import InputError, validation_problem
from concord.store.codec import to_json

SET_ID_PREFIX = "EV-"


class GoldenAnswer(BaseModel):
    """One expert's free-text answer to a question: a golden label."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    expert: str = Field(default="", description="Who wrote it (initials or a role)")
    text: str = Field(min_length=1, description="The expert's answer, verbatim")

    @field_validator("text")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("answer text is blank")
        return value.strip()


class QuestionIn(BaseModel):
    """A question with one or more golden answers, as read from a file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, description="Label of the question inside its set")
    question: str = Field(min_length=1, description="The question put to the model")
    context: str = Field(default="", description="Optional retrieved passage for RAG configs")
    answers: tuple[GoldenAnswer, ...] = Field(min_length=1, description="Golden labels")

    @field_validator("answers", mode="before")
    @classmethod
    def _strings_are_answers(cls, value: Any) -> Any:
        if isinstance(value, list | tuple):
            return [{"text": v} if isinstance(v, str) else v for v in value]
        return value


class QuestionSetIn(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    questions: tuple[QuestionIn, ...] = Field(min_length=1)

    @property
    def content_hash(self) -> str:
        payload = [q.model_dump(mode="json") for q in self.questions]
        return hashlib.sha256(to_json(payload).encode("utf-8")).hexdigest()

    @property
    def set_id(self) -> str:
        return SET_ID_PREFIX + self.content_hash[:12]


def _read_jsonl(path: Path, text: str) -> list[QuestionIn]:
    questions = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            questions.append(QuestionIn.model_validate(json.loads(line)))
        except json.JSONDecodeError as exc:
            raise InputError(f"line {number} is not JSON ({exc.msg})", subject=path) from exc
        except ValidationError as exc:
            raise InputError(f"line {number}: {validation_problem(exc)}", subject=path) from exc
        except (RecursionError, ValueError) as exc:  # nested too deeply, huge number literal
            raise InputError(
                f"line {number}: unreadable JSON ({type(exc).__name__})", subject=path
            ) from None
    return questions


CSV_COLUMNS = ("question_id", "question", "expert", "answer")


def _read_csv(path: Path, text: str) -> list[QuestionIn]:
    reader = csv.DictReader(text.splitlines())
    missing = [c for c in CSV_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise InputError(f"CSV lacks the column(s) {', '.join(missing)}", subject=path)
    grouped: dict[str, dict[str, Any]] = {}
    for number, row in enumerate(reader, start=2):
        qid = (row["question_id"] or "").strip()
        if not qid:
            raise InputError(f"row {number} has no question_id", subject=path)
        entry = grouped.setdefault(
            qid,
            {
                "id": qid,
                "question": row["question"] or "",
                "context": row.get("context") or "",
                "answers": [],
            },
        )
        if (row["question"] or "").strip() != entry["question"].strip():
            raise InputError(f"row {number}: question text differs for {qid}", subject=path)
        entry["answers"].append({"expert": row["expert"] or "", "text": row["answer"] or ""})
    try:
        return [QuestionIn.model_validate(v) for v in grouped.values()]
    except ValidationError as exc:
        raise InputError(validation_problem(exc), subject=path) from exc


def load_question_set(path: Path | str, name: str | None = None) -> QuestionSetIn:
    """Read and validate a question set; any problem is an InputError naming the file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError("file not found", subject=path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the file ({exc})", subject=path) from exc
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json"):
        questions = _read_jsonl(path, text)
    elif suffix == ".csv":
        try:
            questions = _read_csv(path, text)
        except csv.Error as exc:  # e.g. a cell over the csv module's field size limit
            raise InputError(f"unreadable CSV ({exc})", subject=path) from None
    else:
        raise InputError("unsupported question-set format (use .jsonl or .csv)", subject=path)
    if not questions:
        raise InputError("the file holds no questions", subject=path)
    labels = [q.id for q in questions]
    duplicates = sorted({x for x in labels if labels.count(x) > 1})
    if duplicates:
        raise InputError(f"duplicate question id(s): {', '.join(duplicates)}", subject=path)
    return QuestionSetIn(name=name or path.stem, questions=tuple(questions))
