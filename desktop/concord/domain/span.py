"""A span: `(source_id, start, end)` in characters of one document's text."""

from __future__ import annotations

from pydantic import Field, model_validator

from concord.domain._base import Frozen


class Span(Frozen):
    source_id: str = Field(description="Id of the source document the span points into")
    start: int = Field(ge=0, description="Start offset in characters of the document text")
    end: int = Field(ge=0, description="End offset (exclusive) in characters")

    @model_validator(mode="after")
    def _ordered(self) -> Span:
        if self.end < self.start:
            raise ValueError(f"span end {self.end} before start {self.start}")
        return self


class SpanText(Span):
    text: str = Field(description="Exactly document.text[start:end]")
