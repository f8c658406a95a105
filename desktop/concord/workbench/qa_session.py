"""The ASTRID labelling session behind the QA review page, without Qt.

A session is a QA set, optionally one judge run over it, and the current reviewer's own
standing decisions. Each item has one row per answer sentence (conversational / grounded /
ungrounded), one for context relevance and one for refusal; its CF is not asked: it is
derived from the reviewer's sentence verdicts by the ASTRID formula and recorded as its own
decision once every sentence is decided (and withdrawn if a sentence is undone), so CF can
never contradict the sentences just given.

Without a judge run the same rows are labelled blind: each label is a decision on the QA
set (case id = set id) with no judge value. With a run, the reviewer's labels on the set
count as their answers on the run's verdicts.

An undo is a new decision that withdraws the reviewer's last one (`decision_history`), never
an edit. Everything the page shows is computed here, in the database thread (including the
code alignment of each answer sentence to the context), so the UI thread only lays it out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from concord.accounts.session import Session
from concord.astrid.grounding import GroundingSpan, align_sentence
from concord.astrid.items import QaItem
from concord.astrid.metrics import cf_counts, conversational_faithfulness
from concord.astrid.prompts import Metric
from concord.astrid.results import QaRun
from concord.astrid.sentences import Sentence, split_sentences
from concord.astrid.store import AstridStore
from concord.astrid.targets import (
    FAILED,
    KIND_VALUES,
    astrid_targets,
    make_astrid_decision,
    make_astrid_label,
    verdict_basis,
)
from concord.astrid.targets import parse_value as parse_astrid_value
from concord.decisions import record_decision
from concord.domain import (
    Decision,
    DecisionAction,
    LabelProvenance,
    Severity,
    Target,
    TargetKind,
    TargetRef,
)
from concord.domain.decision import new_decision_id
from concord.domain.decision_history import UNDO_REASON as UNDO_REASON  # the pages show it
from concord.domain.decision_history import standing_decisions
from concord.domain.decision_history import withdrawal_of as withdrawal
from concord.errors import InputError
from concord.labels.harm import harm_decision
from concord.labels.reasons import CF_REASON as CF_REASON  # re-exported for the pages
from concord.labels.reasons import REST_REASON as REST_REASON
from concord.store import Repository
from concord.store.transaction import write_transaction

SENTENCE, CF, CR, RA = (
    TargetKind.ASTRID_CF_SENTENCE,
    TargetKind.ASTRID_CF,
    TargetKind.ASTRID_CR,
    TargetKind.ASTRID_RA,
)


def target_id(item_id: str, kind: TargetKind, sentence: int | None = None) -> str:
    """The verdict's id (`TargetRef`); `sentence` is 0-based, the id's number 1-based."""
    if kind is SENTENCE:
        if sentence is None:
            raise ValueError("a sentence verdict needs its sentence")
        return TargetRef.astrid_sentence(item_id, sentence + 1).format()
    return TargetRef.astrid_metric(item_id, kind).format()


@dataclass(frozen=True)
class QaChoice:
    """One entry of the page's set/run chooser."""

    set_id: str
    run_id: str | None
    title: str


@dataclass(frozen=True)
class QaRow:
    """One verdict to decide: a sentence of the answer, context relevance or refusal."""

    item_id: str
    target_id: str
    kind: TargetKind
    sentence: int | None  # 0-based, None for CR / RA
    judge: Target | None = None  # the judge's verdict; None: not judged
    judge_reason: str = ""

    @property
    def options(self) -> tuple[str, ...]:
        """The values the reviewer chooses from, in key order (1, 2, 3)."""
        return KIND_VALUES[self.kind]

    @property
    def judge_value(self) -> object | None:
        return None if self.judge is None else self.judge.value

    @property
    def acceptable(self) -> bool:
        """Is there a judge's verdict to accept (not missing, not failed)?"""
        return self.judge is not None and self.judge.value != FAILED


@dataclass(frozen=True)
class QaSession:
    set_id: str
    set_name: str
    run: QaRun | None
    items: tuple[QaItem, ...]
    rows: tuple[QaRow, ...]
    sentences: dict[str, tuple[Sentence, ...]]
    spans: dict[tuple[str, int], GroundingSpan]  # (item id, sentence) -> where in the context
    user: str
    cf_judge: dict[str, float] = field(default_factory=dict)  # item id -> the judge's CF
    mine: dict[str, Decision] = field(default_factory=dict)  # target id -> my standing decision
    others: int = 0  # decisions other reviewers made on this set / run
    start_item: int = 0  # where the reviewer resumes: the first item not fully decided
    set_sha256: str = ""  # the set's content hash (the version its labels are for)

    @property
    def case_ids(self) -> tuple[str, ...]:
        """Whose decisions are this session's: the run's and the set's (labels)."""
        return (self.run.run_id, self.set_id) if self.run else (self.set_id,)

    def item_rows(self, item_id: str) -> list[QaRow]:
        return [r for r in self.rows if r.item_id == item_id]

    def harm(self, item_id: str, sentence: int | None = None) -> str | None:
        """My harm mark's severity on the answer (or its 0-based `sentence`), if any."""
        number = None if sentence is None else sentence + 1
        decision = self.mine.get(TargetRef.astrid_harm(item_id, number).format())
        return None if decision is None else str(decision.new_value)

    def owns(self, target_id: str) -> bool:
        """Is `target_id` one of this session's verdicts, or a harm mark on its items?"""
        if target_id in self.rows_by_target():
            return True
        try:
            ref = TargetRef.parse(target_id)
        except ValueError:
            return False
        return ref.kind.is_harm and ref.kind.is_astrid and ref.subject in self.item_ids

    @property
    def item_ids(self) -> frozenset[str]:
        return frozenset(i.item_id for i in self.items)

    def provenance(self, *, bulk: bool, seconds: float | None) -> LabelProvenance:
        """How a label given now in this session is given (the run shown, the set)."""
        return LabelProvenance(
            bulk=bulk,
            seconds_on_item=None if seconds is None else round(max(0.0, seconds), 2),
            judge_run=None if self.run is None else self.run.run_id,
            set_id=self.set_id,
            set_sha256=self.set_sha256 or None,
        )

    def rows_by_target(self) -> dict[str, QaRow]:
        return {r.target_id: r for r in self.rows}

    def decided(self, row: QaRow) -> bool:
        return row.target_id in self.mine

    def item_done(self, item_id: str) -> bool:
        rows = self.item_rows(item_id)
        return bool(rows) and all(self.decided(r) for r in rows)

    def cf_mine(self, item_id: str) -> float | None:
        decision = self.mine.get(target_id(item_id, CF))
        return None if decision is None else float(decision.new_value)

    @property
    def items_done(self) -> int:
        return sum(self.item_done(i.item_id) for i in self.items)

    @property
    def verdicts_total(self) -> int:
        return len(self.rows)

    @property
    def verdicts_done(self) -> int:
        return sum(self.decided(r) for r in self.rows)

    def item_index(self, item_id: str) -> int:
        return next(n for n, item in enumerate(self.items) if item.item_id == item_id)

    def open_row(self, item_id: str, after: int = -1) -> int | None:
        """The next undecided row of the item after row `after` (wrapping once)."""
        rows = self.item_rows(item_id)
        order = list(range(after + 1, len(rows))) + list(range(0, after + 1))
        return next((n for n in order if not self.decided(rows[n])), None)

    def open_item(self, after: int, skipped: frozenset[str] = frozenset()) -> int | None:
        """The next item (after index `after`, wrapping) with an undecided row, passing over
        the skipped ones unless nothing else is left."""
        n = len(self.items)
        order = [(after + step) % n for step in range(1, n + 1)]
        todo = [i for i in order if not self.item_done(self.items[i].item_id)]
        fresh = [i for i in todo if self.items[i].item_id not in skipped]
        found = fresh or todo
        return found[0] if found else None


@dataclass(frozen=True)
class QaUpdate:
    """What a write changed: the reviewer's standing decisions, and the ones appended."""

    mine: dict[str, Decision]
    others: int
    appended: tuple[Decision, ...]
    withdrawn: Decision | None = None  # the decision an undo withdrew


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
            out.append(QaChoice(set_id, None, f"{name} · {n} items · not judged: label blind"))
    return out


def _judge_reasons(run: QaRun) -> dict[tuple[str, str, int | None], str]:
    reasons: dict[tuple[str, str, int | None], str] = {}
    for v in run.repeat(0).verdicts:
        reasons[(v.item_id, str(v.metric), v.sentence_index)] = v.reason or v.error
    return reasons


def _row_reason(
    reasons: dict[tuple[str, str, int | None], str],
    item_id: str,
    kind: TargetKind,
    sentence: int | None,
) -> str:
    if kind == SENTENCE:
        grounded = reasons.get((item_id, str(Metric.CF_GROUNDED), sentence), "")
        return grounded or reasons.get((item_id, str(Metric.CF_INFO), sentence), "")
    return reasons.get((item_id, str(Metric.CR if kind == CR else Metric.RA), None), "")


def _mine(
    repo: Repository, case_ids: Sequence[str], user: str
) -> tuple[dict[str, Decision], int, list[Decision]]:
    """My standing decision per target over the session's cases, how many decisions others
    made there, and my standing decisions in the order made."""
    wanted = set(case_ids)
    logged = [d for d in repo.decisions() if d.case_id in wanted]
    standing = standing_decisions(logged)
    ordered = [d for d in standing if d.user == user]
    mine = {d.target_id: d for d in ordered}
    others = sum(1 for d in logged if d.user != user)
    return mine, others, ordered


def load_session(repo: Repository, set_id: str, run_id: str | None, user: str) -> QaSession:
    store = AstridStore(repo)
    head = store.get_set(set_id)
    name = head["name"]
    items = tuple(store.items(set_id))
    run = store.get_run(run_id) if run_id else None
    sentences = {i.item_id: tuple(split_sentences(i.answer)) for i in items}
    spans: dict[tuple[str, int], GroundingSpan] = {}
    for item in items:
        for s in sentences[item.item_id]:
            span = align_sentence(s.text, item.context)
            if span is not None:
                spans[(item.item_id, s.index)] = span
    judged = {t.id: t for t in astrid_targets(run, items)} if run else {}
    reasons = _judge_reasons(run) if run else {}
    rows: list[QaRow] = []
    cf_judge: dict[str, float] = {}
    for item in items:
        cf = judged.get(target_id(item.item_id, CF))
        if cf is not None:
            cf_judge[item.item_id] = float(cf.value)
        wanted: list[tuple[TargetKind, int | None]] = [
            (SENTENCE, s.index) for s in sentences[item.item_id]
        ]
        for kind, sentence in [*wanted, (CR, None), (RA, None)]:
            tid = target_id(item.item_id, kind, sentence)
            rows.append(
                QaRow(
                    item.item_id,
                    tid,
                    kind,
                    sentence,
                    judged.get(tid),
                    _row_reason(reasons, item.item_id, kind, sentence) if tid in judged else "",
                )
            )
    case_ids = (run.run_id, set_id) if run else (set_id,)
    mine, others, _ = _mine(repo, case_ids, user)
    session = QaSession(
        set_id,
        name,
        run,
        items,
        tuple(rows),
        sentences,
        spans,
        user,
        cf_judge,
        mine,
        others,
        set_sha256=head["content_sha256"],
    )
    first = session.open_item(-1)
    return replace(session, start_item=first or 0)


# -- deciding -----------------------------------------------------------------------------


def _label(
    session: QaSession, row: QaRow, value: str, user: str, reason: str, *, blind: bool = True
) -> Decision:
    """A label given with no judge's verdict to compare (no run, or none for this row)."""
    return make_astrid_label(
        session.set_id, session.items, row.target_id, value, user=user, reason=reason, blind=blind
    )


def needs_reason(row: QaRow, value: str | None, *, blind: bool) -> bool:
    """Does answering `row` with `value` override a verdict the reviewer can see? (Then it
    needs a reason; a blind answer, an accept or an answer where the judge gave none does
    not.)"""
    if row.judge is None:
        return False
    answer = None if value is None else parse_astrid_value(row.kind, value)
    return verdict_basis(row.judge.value, answer, blind=blind).needs_words


def make_row_decision(
    session: QaSession, row: QaRow, value: str | None, reason: str, *, blind: bool
) -> Decision:
    """Accept the judge's verdict (value None) or give a value, on one row. InputError on a
    bad value, a missing reason for an override, or accepting a verdict the judge failed."""
    user = session.user
    if row.judge is None or session.run is None:
        if value is None:
            raise ValueError("there is no judge's verdict to accept: give a value (1 / 2 / 3)")
        return _label(session, row, value, user, reason)
    if not reason.strip() and needs_reason(row, value, blind=blind):
        raise InputError("an override of a verdict you can see needs a reason")
    return make_astrid_decision(
        session.run,
        session.items,
        row.target_id,
        user=user,
        reason=reason,
        override=value,
        blind=blind,
    )


NOTHING_TO_ACCEPT = "No judge's verdict to accept here: answer with 1 / 2 / 3."
BLIND_BULK = "Blind mode: answer each verdict yourself (1 / 2 / 3)."


def accept_rest(session: QaSession, item_id: str, reason: str, *, blind: bool) -> list[Decision]:
    """Enter: accept the judge on every verdict of the item not decided yet (a bulk accept,
    recorded with `REST_REASON` unless the reviewer typed one); a verdict the judge failed to
    give is left for the reviewer. ValueError in blind mode (it would accept verdicts not
    seen) and when no undecided verdict has a judge's value. Nothing undecided: []."""
    rows = [r for r in session.item_rows(item_id) if not session.decided(r)]
    if not rows:
        return []
    if blind:
        raise ValueError(BLIND_BULK)
    acceptable = [r for r in rows if r.acceptable]
    if not acceptable:
        raise ValueError(NOTHING_TO_ACCEPT)
    said = reason.strip() or REST_REASON
    return [make_row_decision(session, r, None, said, blind=False) for r in acceptable]


def _derived_cf(session: QaSession, mine: dict[str, Decision], item_id: str) -> float | None:
    """CF from my verdicts on every sentence of the item, or None while one is undecided."""
    rows = [r for r in session.item_rows(item_id) if r.kind == SENTENCE]
    values = [mine.get(r.target_id) for r in rows]
    if any(v is None for v in values):
        return None
    words = [str(v.new_value) for v in values if v is not None]
    counts = cf_counts(
        [w != "conversational" for w in words],
        [None if w == "conversational" else w == "grounded" for w in words],
    )
    return round(conversational_faithfulness(counts), 4)


def _cf_decision(
    session: QaSession, item_id: str, cf: float, mine: dict[str, Decision]
) -> Decision:
    sentences = [mine[r.target_id] for r in session.item_rows(item_id) if r.kind == SENTENCE]
    blind = any(d.blind for d in sentences)
    tid = target_id(item_id, CF)
    if session.run is not None and item_id in session.cf_judge:
        return make_astrid_decision(
            session.run,
            session.items,
            tid,
            user=session.user,
            reason=CF_REASON,
            override=str(cf),
            blind=blind,
        )
    item = session.items[session.item_index(item_id)]
    return Decision(
        decision_id=new_decision_id(),
        case_id=session.set_id,
        target_id=tid,
        target_kind=CF,
        action=DecisionAction.OVERRIDE,
        original_value=None,
        new_value=cf,
        reason=CF_REASON,
        user=session.user,
        at=datetime.now(UTC),
        shown={"item_sha256": item.content_sha256(), "set_id": session.set_id},
        blind=blind,
    )


def _follow_cf(session: QaSession, mine: dict[str, Decision], item_ids: set[str]) -> list[Decision]:
    """Keep each item's CF decision in step with its sentence verdicts."""
    made: list[Decision] = []
    for item_id in sorted(item_ids):
        cf = _derived_cf(session, mine, item_id)
        current = mine.get(target_id(item_id, CF))
        if cf is None and current is not None and current.reason == CF_REASON:
            made.append(withdrawal(current, session.user))
        elif cf is not None and (current is None or float(current.new_value) != cf):
            made.append(_cf_decision(session, item_id, cf, mine))
    return made


def store_decisions(
    repo: Repository,
    session: QaSession,
    new: Sequence[Decision],
    signed_in: Session,
    provenance: LabelProvenance | None = None,
) -> QaUpdate:
    """Record the reviewer's decisions (as `signed_in`, through the core's
    `record_decision`, each with `provenance`: how it was given) and the CF each touched item
    now derives, in one transaction."""
    how = provenance or session.provenance(bulk=False, seconds=None)
    with write_transaction(repo.db):
        for decision in new:
            record_decision(repo, signed_in, decision, provenance=_shown(how, decision))
        mine, _, _ = _mine(repo, session.case_ids, session.user)
        items = {TargetRef.parse(d.target_id).subject for d in new}
        derived = _follow_cf(session, mine, items)
        for decision in derived:
            record_decision(repo, signed_in, decision, provenance=_shown(how, decision))
        mine, others, _ = _mine(repo, session.case_ids, session.user)
    return QaUpdate(mine, others, (*new, *derived))


def _shown(how: LabelProvenance, decision: Decision) -> LabelProvenance:
    """A label on the set with no judge value (a harm mark, a label with no run) was
    compared with no run."""
    if decision.original_value is None:
        return how.model_copy(update={"judge_run": None})
    return how


def undo_last(repo: Repository, session: QaSession, signed_in: Session) -> QaUpdate:
    """Withdraw the reviewer's last standing decision in this session (not a derived CF,
    which follows its sentences), as a new decision. Nothing to undo: nothing appended."""
    with write_transaction(repo.db):
        mine, others, ordered = _mine(repo, session.case_ids, session.user)
        last = next((d for d in reversed(ordered) if session.owns(d.target_id)), None)
        if last is None:
            return QaUpdate(mine, others, ())
        undo = withdrawal(last, session.user)
        how = session.provenance(bulk=False, seconds=None)
        record_decision(repo, signed_in, undo, provenance=_shown(how, undo))
        mine, _, _ = _mine(repo, session.case_ids, session.user)
        derived = _follow_cf(session, mine, {TargetRef.parse(last.target_id).subject})
        for decision in derived:
            record_decision(repo, signed_in, decision, provenance=_shown(how, decision))
        mine, others, _ = _mine(repo, session.case_ids, session.user)
    return QaUpdate(mine, others, (undo, *derived), withdrawn=last)


def apply_update(session: QaSession, update: QaUpdate) -> QaSession:
    return replace(session, mine=update.mine, others=update.others)


def make_harm_decision(
    session: QaSession,
    item_id: str,
    sentence: int | None,
    severity: Severity | str,
    reason: str,
    *,
    blind: bool,
) -> Decision:
    """H: mark the answer (or its 0-based `sentence`) unsafe with a severity."""
    item = session.items[session.item_index(item_id)]
    ref = TargetRef.astrid_harm(item_id, None if sentence is None else sentence + 1)
    return harm_decision(
        ref,
        severity,
        case_id=session.set_id,
        user=session.user,
        shown={"item_sha256": item.content_sha256(), "set_id": session.set_id},
        reason=reason,
        blind=blind,
    )
