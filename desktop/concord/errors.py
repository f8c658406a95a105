"""One error base for the whole application.

The core raises these; only the edges (CLI, UI) turn them into a line of text or a dialog.
Every error names what it is about (a file, a model, a case) and the problem, in one line.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


class ConcordError(Exception):
    """Base of every error Concord raises on purpose."""

    def __init__(self, problem: str, *, subject: str | Path | None = None) -> None:
        self.problem = problem
        self.subject = str(subject) if subject is not None else None
        super().__init__(self.one_line())

    def one_line(self) -> str:
        text = f"{self.subject}: {self.problem}" if self.subject else self.problem
        return " ".join(text.split())


class InputError(ConcordError):
    """A file or value given by the user cannot be used (missing, empty, malformed...)."""


def first_validation_error(exc: ValidationError) -> tuple[str, str]:
    """Where pydantic's first complaint is (a dotted path, "" for the whole value) and what
    it says."""
    first = exc.errors()[0]
    return ".".join(str(part) for part in first["loc"]), first["msg"]


def validation_problem(exc: ValidationError) -> str:
    """Pydantic's first complaint in one line: "answer: Field required"."""
    where, what = first_validation_error(exc)
    return f"{where}: {what}" if where else what


class ModelError(ConcordError):
    """A model file is missing, unregistered, has the wrong hash, or the runtime failed."""


class RecordTooLong(ModelError):
    """The record and the prompt leave the model too little of its context to answer: the
    run is refused before anything is decoded. A clinician is told so in plain words
    (`PLAIN`, `ADVICE`); the problem text keeps the token counts for the log."""

    PLAIN = "the record is too long for this model: it leaves the model no room to answer"
    ADVICE = "split the record into smaller parts, or choose a model with a longer context"


class ModelOutputError(ConcordError):
    """A model produced output that does not fit the required schema."""


class StoreError(ConcordError):
    """The database refused a write or is inconsistent."""


class NotFoundError(ConcordError):
    """A record, case, user or target id does not exist."""


class AuthError(ConcordError):
    """Wrong password, unknown user, or a role that may not do this."""


class SigningError(ConcordError):
    """A PDF could not be signed or verified."""


class Cancelled(ConcordError):
    """A long-running job was cancelled by the user."""
