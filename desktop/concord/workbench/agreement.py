"""The agreement tables of the Agreement page, computed in the database thread: judge vs
human per metric and model, and between annotators. A kappa over fewer than
`MIN_ITEMS_FOR_KAPPA` items is reported as too few to mean anything."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from concord.eval.agreement import RULE_BASED_SCREEN, between_annotators, judge_vs_human
from concord.store import Repository

MIN_ITEMS_FOR_KAPPA = 20
TOO_FEW = f"too few to mean anything (n < {MIN_ITEMS_FOR_KAPPA})"


@dataclass(frozen=True)
class AgreementTables:
    judge: list[dict[str, Any]]
    annotators: list[dict[str, Any]]
    decisions: int


def kappa_text(kappa: float | None, n: int) -> str:
    """κ to two decimals; n/a when it is undefined; too few below MIN_ITEMS_FOR_KAPPA."""
    if n < MIN_ITEMS_FOR_KAPPA:
        return TOO_FEW
    return "n/a" if kappa is None else f"{kappa:.2f}"


def model_names(repo: Repository) -> dict[str, str]:
    """SHA-256 -> a model's name: the model store's entries and the ASTRID judge runs."""
    from concord.astrid.store import AstridStore
    from concord.errors import ConcordError
    from concord.llm.registry import ModelStore
    from concord.llm.scripted import SCRIPTED_SHA256

    names = {SCRIPTED_SHA256: "scripted (test runtime)"}
    with contextlib.suppress(ConcordError, OSError):  # no model store: the hash is shown
        names.update({e.sha256: e.name for e in ModelStore.open().entries()})
    store = AstridStore(repo)
    for run_id in store.run_ids():
        run = store.get_run(run_id)
        names.setdefault(run.model_sha256, run.model_name)
    return names


def agreement_tables(repo: Repository) -> AgreementTables:
    decisions = repo.decisions()
    judge = judge_vs_human(decisions)
    names = model_names(repo)
    for row in judge:  # the core keys a model without a name by its hash prefix
        if row["model"] == RULE_BASED_SCREEN:
            continue
        found = [n for sha, n in names.items() if row["model"] and sha.startswith(row["model"])]
        if found:
            row["model"] = found[0]
    return AgreementTables(judge, between_annotators(decisions), len(decisions))
