"""How a label was given: kept beside each decision, so a label says what the annotator did.

A decision says what the human decided; its provenance says how: one by one or in bulk,
with the expert golden answers on screen or not, after how many seconds on the item, and
which judge run (or reward model) it was compared with. `None` means "not applicable"
(a clinical judgement has no golden answers; a command-line decision has no time on screen).
Blind or not is the decision's own `blind` field.
"""

from __future__ import annotations

from pydantic import Field

from concord.domain._base import Frozen


class LabelProvenance(Frozen):
    bulk: bool | None = Field(
        default=None,
        description="Accepted with others by one key (bulk accept, the rest of an item), "
        "not decided one by one",
    )
    golden_shown: bool | None = Field(
        default=None,
        description="EVAL: the experts' golden answers were on screen when the grade was given",
    )
    seconds_on_item: float | None = Field(
        default=None,
        ge=0,
        description="Seconds the item (QA item, answer, judgement) had been on screen",
    )
    judge_run: str | None = Field(
        default=None,
        description="The judge run shown (ASTRID run id, reward-model version, case id); "
        "None for a label given with no judge to see",
    )
    set_id: str | None = Field(default=None, description="The QA or EVAL set of the label")
    set_sha256: str | None = Field(default=None, description="That set's content hash")

    def row(self, decision_id: str) -> dict[str, object]:
        """The `label_provenance` row (booleans as 0/1)."""

        def flag(value: bool | None) -> int | None:
            return None if value is None else int(value)

        return {
            "decision_id": decision_id,
            "bulk": flag(self.bulk),
            "golden_shown": flag(self.golden_shown),
            "seconds_on_item": self.seconds_on_item,
            "judge_run": self.judge_run,
            "set_id": self.set_id,
            "set_sha256": self.set_sha256,
        }

    @classmethod
    def from_row(cls, row: dict[str, object]) -> LabelProvenance:
        def flag(value: object) -> bool | None:
            return None if value is None else bool(value)

        seconds = row.get("seconds_on_item")
        return cls(
            bulk=flag(row.get("bulk")),
            golden_shown=flag(row.get("golden_shown")),
            seconds_on_item=None if seconds is None else float(str(seconds)),
            judge_run=None if row.get("judge_run") is None else str(row["judge_run"]),
            set_id=None if row.get("set_id") is None else str(row["set_id"]),
            set_sha256=None if row.get("set_sha256") is None else str(row["set_sha256"]),
        )
