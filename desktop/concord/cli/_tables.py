"""Plain-text tables for the terminal."""

from __future__ import annotations

from collections import Counter

from concord.domain import Case, CaseMode


def table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)
    ]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(out)


MODE_TEXT = {
    CaseMode.CLINICAL: "clinical",
    CaseMode.DEMONSTRATION: "DEMO",
    CaseMode.SILENT: "SILENT",
}
"""How `concord cases` marks a case's mode ('-': run before site validation)."""


def case_summary(case: Case, record_name: str, *, cap: float | None = None) -> str:
    """The case as a few lines and a table; `cap`: the overall cap on a missed major gate of
    the case's scoring config."""
    fired = [g.gate_id for g in case.gates if g.status.value == "triggered"]
    head = [
        f"Case {case.case_id}  record {case.record_id}  ({record_name})",
        f"  mode: {case.mode_label}",
        f"  operation: {case.operation}  [{case.operation_source}]",
        f"  red flags (record screen): {', '.join(fired) if fired else 'none'}",
    ]
    if case.mutual_omissions:
        head.append(f"  MUTUAL OMISSION (no brief addressed): {', '.join(case.mutual_omissions)}")
    failed = [b.agent for b in case.briefs if b.status.value == "failed"]
    if failed:
        head.append(f"  failed briefs (schema-invalid after retries): {', '.join(failed)}")
    rows = []
    for card in case.scorecards:
        counts = Counter(d.kind.label for d in card.disagreements)
        rows.append(
            [
                card.specialist,
                f"{card.overall:5.1f}",
                card.grade,
                ("capped" + (f" ≤{cap:g}" if cap is not None else "")) if card.capped else "-",
                "YES" if card.human_review else "no",
                ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "-",
            ]
        )
    body = table(["specialist", "overall", "grade", "cap", "review", "disagreements"], rows)
    return "\n".join(head) + "\n" + "\n".join("  " + line for line in body.splitlines())
