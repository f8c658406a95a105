"""What the database thread reads and writes for the ASTRID QA review page (no Qt).

The page works on one *session*: a QA set, optionally one judge run over it, and the
current reviewer's own decisions on that run. Everything the page shows is computed here,
in the database thread (including the code alignment of each answer sentence to the
context), so the UI thread only lays it out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from concord.accounts.session import Session
from concord.astrid.grounding import GroundingSpan, align_sentence
from concord.astrid.items import QaItem
from concord.astrid.load import load_items
from concord.astrid.prompts import Metric
from concord.astrid.results import QaRun
from concord.astrid.sentences import Sentence, split_sentences
from concord.astrid.store import AstridStore
from concord.astrid.targets import astrid_targets
from concord.decisions import record_decision
from concord.domain import Decision, Target, TargetKind, TargetRef
from concord.store import Repository


@dataclass(frozen=True)
class QaChoice:
    """One entry of the page's set/run chooser."""

    set_id: str
    run_id: str | None
    title: str


@dataclass
class QaRow:
    """One decidable verdict (or, before a run, one answer sentence with no verdict)."""

    item_id: str
    sentence: int | None  # 0-based, None for the item-level CF / CR / RA rows
    target: Target | None  # None: the set has not been judged
    judge_reason: str = ""
    mine: Decision | None = None  # this reviewer's latest decision on it

    @property
    def decided(self) -> bool:
        return self.mine is not None


@dataclass
class QaSession:
    set_id: str
    set_name: str
    run: QaRun | None
    items: list[QaItem]
    rows: list[QaRow]
    sentences: dict[str, list[Sentence]]
    spans: dict[tuple[str, int], GroundingSpan]  # (item id, sentence) -> where in the context
    user: str
    others: int = 0  # decisions other reviewers made on this run
    start_item: int = 0  # where the reviewer resumes: the first item not fully decided

    def item_rows(self, item_id: str) -> list[QaRow]:
        return [r for r in self.rows if r.item_id == item_id]

    def item_done(self, item_id: str) -> bool:
        rows = [r for r in self.item_rows(item_id) if r.target is not None]
        return bool(rows) and all(r.decided for r in rows)

    @property
    def judged_items(self) -> list[QaItem]:
        return [
            i for i in self.items if any(r.target is not None for r in self.item_rows(i.item_id))
        ]

    @property
    def items_done(self) -> int:
        return sum(self.item_done(i.item_id) for i in self.items)

    @property
    def verdicts_total(self) -> int:
        return sum(r.target is not None for r in self.rows)

    @property
    def verdicts_done(self) -> int:
        return sum(r.decided for r in self.rows)


@dataclass
class QaImport:
    set_id: str
    created: bool
    items: int
    errors: list[str] = field(default_factory=list)


def qa_choices(repo: Repository) -> list[QaChoice]:
    """Newest first: every judge run, and every set that has no run yet."""
    store = AstridStore(repo)
    out: list[QaChoice] = []
    for row in reversed(store.list_sets()):
        set_id, name, n = row["set_id"], row["name"], row["item_count"]
        run_ids = store.run_ids(set_id)
        for run_id in reversed(run_ids):
            run = store.get_run(run_id)
            repeats = f", {len(run.repeats)} runs" if len(run.repeats) > 1 else ""
            out.append(
                QaChoice(
                    set_id,
                    run_id,
                    f"{name} · {n} items · judged by {run.model_name}{repeats} "
                    f"on {run.started_at:%Y-%m-%d %H:%M} UTC",
                )
            )
        if not run_ids:
            out.append(QaChoice(set_id, None, f"{name} · {n} items · NOT JUDGED YET"))
    return out


def _judge_reasons(run: QaRun) -> dict[tuple[str, str, int | None], str]:
    reasons: dict[tuple[str, str, int | None], str] = {}
    for v in run.repeat(0).verdicts:
        reasons[(v.item_id, str(v.metric), v.sentence_index)] = v.reason or v.error
    return reasons


def _row_reason(reasons: dict[tuple[str, str, int | None], str], ref: TargetRef) -> str:
    item_id = ref.subject
    if ref.sentence_number is not None:
        sentence = ref.sentence_number - 1
        grounded = reasons.get((item_id, str(Metric.CF_GROUNDED), sentence), "")
        return grounded or reasons.get((item_id, str(Metric.CF_INFO), sentence), "")
    if ref.kind is TargetKind.ASTRID_CF:
        return ""
    key = str(Metric.CR) if ref.kind is TargetKind.ASTRID_CR else str(Metric.RA)
    return reasons.get((item_id, key, None), "")


def my_decisions(repo: Repository, run_id: str, user: str) -> tuple[dict[str, Decision], int]:
    """This reviewer's latest decision per target of the run, and how many others made."""
    mine: dict[str, Decision] = {}
    others = 0
    for d in repo.decisions(case_id=run_id):
        if d.user == user:
            mine[d.target_id] = d
        else:
            others += 1
    return mine, others


def load_session(repo: Repository, set_id: str, run_id: str | None, user: str) -> QaSession:
    store = AstridStore(repo)
    name = store.get_set(set_id)["name"]
    items = store.items(set_id)
    run = store.get_run(run_id) if run_id else None
    sentences = {i.item_id: split_sentences(i.answer) for i in items}
    spans: dict[tuple[str, int], GroundingSpan] = {}
    for item in items:
        for s in sentences[item.item_id]:
            span = align_sentence(s.text, item.context)
            if span is not None:
                spans[(item.item_id, s.index)] = span
    rows: list[QaRow] = []
    others = 0
    if run is None:
        for item in items:
            rows += [QaRow(item.item_id, s.index, None) for s in sentences[item.item_id]]
    else:
        mine, others = my_decisions(repo, run.run_id, user)
        reasons = _judge_reasons(run)
        for target in astrid_targets(run, items):
            ref = target.ref
            sentence = None if ref.sentence_number is None else ref.sentence_number - 1
            rows.append(
                QaRow(
                    ref.subject,
                    sentence,
                    target,
                    _row_reason(reasons, ref),
                    mine.get(target.id),
                )
            )
    session = QaSession(set_id, name, run, items, rows, sentences, spans, user, others)
    session.start_item = resume_item(session)
    return session


def resume_item(session: QaSession) -> int:
    """The first judged item this reviewer has not finished (0 when all are done)."""
    for n, item in enumerate(session.items):
        rows = [r for r in session.item_rows(item.item_id) if r.target is not None]
        if rows and not all(r.decided for r in rows):
            return n
    return 0


def append_qa_decision(
    repo: Repository, decision: Decision, session: Session
) -> tuple[dict[str, Decision], int]:
    record_decision(repo, session, decision)
    return my_decisions(repo, decision.case_id, session.name)


def import_qa_file(repo: Repository, path: Path, user: str) -> QaImport:
    items = load_items(path)  # a bad file raises here: nothing is written
    set_id, created = AstridStore(repo).save_set(
        items, name=path.name, source=str(path.resolve()), user=user
    )
    return QaImport(set_id, created, len(items))
