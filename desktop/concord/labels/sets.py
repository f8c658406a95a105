"""The QA or EVAL set a label belongs to, and that set's version (its content hash)."""

from __future__ import annotations

from dataclasses import dataclass

from concord.astrid.store import AstridStore
from concord.domain import Decision, LabelProvenance
from concord.errors import NotFoundError
from concord.eval.eval_store import EvalStore
from concord.store import Repository

QA, EVAL = "qa", "eval"


@dataclass(frozen=True)
class SetVersion:
    kind: str  # "qa" or "eval"
    set_id: str
    name: str
    content_sha256: str

    def json(self) -> dict[str, str]:
        return {
            "kind": self.kind,
            "set_id": self.set_id,
            "name": self.name,
            "content_sha256": self.content_sha256,
        }


def set_version(repo: Repository, set_id: str) -> SetVersion | None:
    """The QA or EVAL set `set_id` held here, or None."""
    try:
        row = AstridStore(repo).get_set(set_id)
        return SetVersion(QA, set_id, row["name"], row["content_sha256"])
    except NotFoundError:
        pass
    try:
        found = EvalStore(repo).get_set(set_id)
        return SetVersion(EVAL, set_id, found.name, found.content_hash)
    except NotFoundError:
        return None


def same_name(repo: Repository, kind: str, name: str) -> SetVersion | None:
    """A set of that kind and file name held here (another version of it, perhaps)."""
    if kind == QA:
        for row in AstridStore(repo).list_sets():
            if row["name"] == name:
                return SetVersion(QA, row["set_id"], row["name"], row["content_sha256"])
        return None
    for s in EvalStore(repo).sets():
        if s.name == name:
            return SetVersion(EVAL, s.set_id, s.name, s.content_hash)
    return None


def set_of(repo: Repository, decision: Decision) -> str | None:
    """The QA or EVAL set of a label: an ASTRID decision's set (its case is the set or a
    judge run over it), an EVAL grade's question set; None for a clinical judgement."""
    kind = decision.target_kind
    if kind.is_astrid:
        store = AstridStore(repo)
        if decision.case_id in store.run_ids():
            return store.get_run(decision.case_id).set_id
        return decision.shown.get("set_id") or decision.case_id
    if kind.value.startswith("eval_"):
        return decision.case_id
    return None


def set_provenance(repo: Repository, set_id: str | None) -> LabelProvenance:
    """The set part of a label's provenance (empty for a clinical judgement)."""
    if set_id is None:
        return LabelProvenance()
    version = set_version(repo, set_id)
    return LabelProvenance(
        set_id=set_id, set_sha256=None if version is None else version.content_sha256
    )
