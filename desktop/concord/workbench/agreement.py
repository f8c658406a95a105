"""The agreement report behind the Agreement page and `concord agreement`, computed in the
database thread (`labels.agreement`): judge vs human per metric, judge and blindness, between
annotators with intervals, per annotator, gold items and unsafe marks. A kappa over fewer
than `MIN_ITEMS_FOR_KAPPA` items is reported as too few to mean anything."""

from __future__ import annotations

import contextlib

from concord.eval.agreement import RULE_BASED_SCREEN
from concord.labels.agreement import AgreementReport, agreement_report
from concord.store import Repository

MIN_ITEMS_FOR_KAPPA = 20
TOO_FEW = f"too few to mean anything (n < {MIN_ITEMS_FOR_KAPPA})"


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


def agreement_report_named(repo: Repository) -> AgreementReport:
    """The agreement report (`labels.agreement`), with judge models named by the model store
    where the core knows them only by their hash."""
    report = agreement_report(repo)
    names = model_names(repo)
    for row in report.judge:  # the core keys a model without a name by its hash prefix
        if row["model"] == RULE_BASED_SCREEN:
            continue
        found = [n for sha, n in names.items() if row["model"] and sha.startswith(row["model"])]
        if found:
            row["model"] = found[0]
    return report


def agreement_tables(repo: Repository) -> AgreementReport:
    """What the Agreement page shows (computed in the database thread)."""
    return agreement_report_named(repo)
