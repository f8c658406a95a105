from pydantic import BaseModel, ConfigDict


class Frozen(BaseModel):
    """Base for every domain type: immutable, strict about unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")
