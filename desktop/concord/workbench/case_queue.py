"""The clinician's review queue of one case, without Qt.

Every decidable judgement of the case, required ones first. The quotes of one brief that
code could not verify in the record (one UNVERIFIED_EVIDENCE disagreement each, repeated in
every comparison the brief takes part in) form ONE entry with the list inside: deciding it
decides each of them. A failed quote that changed a number (a major disagreement) is
required and stays on its own line. Likewise a finding about the anaesthetist brief that
reads word for word the same in several comparisons (the same over-call against each
specialist) is one entry.

Blind mode is the annotator's mode: an entry counts as answered only when THIS reviewer has
decided it (another reviewer's decision reveals nothing), and the verdict stays hidden until
then. "Accept the remaining optional judgements" accepts every optional judgement nobody has
decided yet, with a reason that says it was a bulk accept; it is not offered blind.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from concord.adjudication.judgements import (
    GROUP_PREFIX,
    REPEAT_PREFIX,
    Harm,
    case_judgements,
    disagreement_of,
    quote_brief,
)
from concord.adjudication.targets import case_targets
from concord.domain import (
    Case,
    Decision,
    DecisionAction,
    Disposition,
    Severity,
    Target,
    TargetKind,
)
from concord.domain.decision_history import (
    chain_order,
    is_withdrawal,
    standing_decisions,
    withdrawal_of,
)
from concord.labels.reasons import BULK_REASON as BULK_REASON  # re-exported for the pages
from concord.review import BULK_REASON_PREFIX, make_decision, parse_override

assert BULK_REASON.startswith(BULK_REASON_PREFIX)  # one way a bulk accept reads
__all__ = ["GROUP_PREFIX", "REPEAT_PREFIX", "disagreement_of", "quote_brief"]


@dataclass(frozen=True)
class QueueEntry:
    """One line of the queue: one judgement, or the failed quotes of one brief."""

    key: str  # the target id, or "quotes:<agent>" for a group
    targets: tuple[Target, ...]
    required: bool
    latest: tuple[Decision | None, ...]  # per target: the latest standing decision, anyone's
    mine: tuple[Decision | None, ...]  # per target: this reviewer's
    agent: str | None = None  # a group: whose brief
    harm: Harm = Harm.OPTIONAL

    @property
    def is_disposition(self) -> bool:
        """A red flag: the clinician records what to do about it, there is nothing to accept."""
        return self.target.kind is TargetKind.DISPOSITION

    @property
    def is_group(self) -> bool:
        """Several judgements decided as one (failed quotes, or a repeated finding)."""
        return self.agent is not None or len(self.targets) > 1

    @property
    def is_quotes(self) -> bool:
        return self.agent is not None

    @property
    def target(self) -> Target:
        return self.targets[0]

    @property
    def decided(self) -> bool:
        return all(d is not None for d in self.latest)

    @property
    def answered_by_me(self) -> bool:
        return all(d is not None for d in self.mine)

    def shown_each(self, blind: bool) -> tuple[Decision | None, ...]:
        """Per target, the decision the reviewer may see (blind: only their own)."""
        return self.mine if blind else self.latest

    def shown(self, blind: bool) -> Decision | None:
        """The latest decision the reviewer may see on the entry."""
        found = [d for d in self.shown_each(blind) if d is not None]
        return chain_order(found)[-1] if found else None


def _latest(decisions: Sequence[Decision], user: str | None) -> dict[str, Decision]:
    out: dict[str, Decision] = {}
    for d in standing_decisions(decisions):
        if user is None or d.user == user:
            out[d.target_id] = d
    return out


def build_entries(case: Case, decisions: Sequence[Decision], user: str) -> list[QueueEntry]:
    """The case's judgements (`concord.adjudication.judgements`): required ones in order
    of harm, then optional ones, with the decisions standing on each."""
    latest, mine = _latest(decisions, None), _latest(decisions, user)
    return [
        QueueEntry(
            key=j.key,
            targets=j.targets,
            required=j.required,
            latest=tuple(latest.get(t.id) for t in j.targets),
            mine=tuple(mine.get(t.id) for t in j.targets),
            agent=j.agent,
            harm=j.harm,
        )
        for j in case_judgements(case)
    ]


TOGETHER = timedelta(seconds=5)
"""Decisions made by one action (a group, a bulk accept) carry one reason, made at once."""


def last_standing(decisions: Sequence[Decision], user: str) -> list[Decision]:
    """The user's most recent standing decisions made by one action (one judgement, a
    group, one bulk accept): an undo withdraws them together."""
    mine = [d for d in standing_decisions(decisions) if d.user == user]
    together: list[Decision] = []
    for d in reversed(mine):
        last = together[0] if together else d
        if together and (d.reason != last.reason or last.at - d.at > TOGETHER):
            break
        together.insert(0, d)
    return together


def major_finding(case: Case, entry: QueueEntry) -> bool:
    """A major red flag or a major disagreement: its evidence must be opened before it is
    accepted (or given a disposition)."""
    for target in entry.targets:
        gate_id = target.ref.gate_id
        if gate_id is not None:
            gate = next((g for g in case.gates if g.gate_id == gate_id), None)
            if gate is not None and gate.severity == Severity.MAJOR:
                return True
        d = disagreement_of(case, target)
        if d is not None and d.severity == Severity.MAJOR:
            return True
    return False


def neutral_label(target: Target) -> str:
    """The target's description without the judge's verdict (for blind mode)."""
    ref = target.ref
    if ref.kind is TargetKind.DISPOSITION:
        return target.label  # the clinician's own decision: no verdict to hide
    if ref.kind is TargetKind.GATE:
        return f"Record screen: does this red flag apply? ({ref.subject.replace('_', ' ')})"
    who = ref.subject.capitalize()
    if ref.kind is TargetKind.OVERALL:
        return f"{who}: overall score (0–100)"
    if ref.kind is TargetKind.SUBSCORE:
        return f"{who}: sub-score {ref.detail.replace('_', ' ')} (0–1)"
    if ref.kind is TargetKind.DISAGREEMENT:
        label = target.label
        value = target.value if isinstance(target.value, dict) else {}
        kind, severity = value.get("kind", ""), value.get("severity", "")
        for word in (f"{kind} ({severity})", kind, f"({severity})"):
            label = label.replace(word, "") if word else label
        return f"{who}: disagreement {ref.detail} — " + " ".join(label.split(": ", 1)[-1].split())
    if ref.match_items is not None:
        specialist_item, anaesthetist_item = ref.match_items
        return f"{who}: is {specialist_item} the same as {anaesthetist_item}?"
    return target.id


def judgement_words(case: Case | None, target_id: str) -> str:
    """A judgement as a clinician reads it (its label; a match as the two bullets' words),
    never its id; the id only when the case does not know it."""
    if case is None:
        return target_id
    target = next((t for t in case_targets(case) if t.id == target_id), None)
    if target is None:
        return target_id
    items = target.ref.match_items
    if items is None:
        return target.label
    texts = {(b.agent, i.item_id): i.text for b in case.briefs for i in b.items}
    spec = texts.get((target.ref.subject, items[0]), items[0])
    anaes = texts.get(("anaesthetist", items[1]), items[1])
    return f"{target.ref.subject.capitalize()} “{spec}” matched to anaesthetist “{anaes}”"


def verdict_text(target: Target) -> str:
    value = target.value
    if target.kind == "disposition":
        return "your decision: proceed, postpone, refer or not relevant here"
    if target.kind == "overall":
        return f"{float(value):.1f} / 100"
    if target.kind == "subscore":
        return f"{float(value):.2f} (of 1)"
    if target.kind == "disagreement" and isinstance(value, dict):
        return f"{value.get('kind')} — severity {value.get('severity')}"
    if target.kind == "match":
        return f"matched (by {value})"
    return str(value)


def entry_label(case: Case, entry: QueueEntry, *, visible: bool) -> str:
    """One line for the entry (without the judge's verdict when not `visible`)."""
    if entry.is_group and not entry.is_quotes:
        who = ", ".join(t.ref.subject for t in entry.targets)
        first = entry.target
        text = first.label.split(": ", 1)[-1] if visible else neutral_label(first)
        if not visible:
            text = text.split(" — ", 1)[-1]
        return f"The same in {len(entry.targets)} comparisons ({who}): {text}"
    if entry.is_quotes:
        n = len(entry.targets)
        who = (entry.agent or "").capitalize()
        quotes = len({t.label.split(": ", 1)[-1] for t in entry.targets})
        where = f" (in {n} comparisons)" if n != quotes else ""
        if not visible:
            return f"{who} brief: {quotes} quoted extract(s){where} — do they match the record?"
        return f"{who} brief: {quotes} quote(s) not found in the record as written{where}"
    return entry.target.label if visible else neutral_label(entry.target)


def entry_verdict(entry: QueueEntry) -> str:
    if entry.is_group and not entry.is_quotes:
        return f"{verdict_text(entry.target)} × {len(entry.targets)}"
    if entry.is_quotes:
        severities = sorted({str(t.value.get("severity")) for t in entry.targets})
        return f"UNVERIFIED_EVIDENCE × {len(entry.targets)} — severity {', '.join(severities)}"
    return verdict_text(entry.target)


def disposition_title(value: object) -> str:
    try:
        return Disposition(str(value)).label
    except ValueError:
        return str(value)


def same_value(target: Target, answer: object) -> bool:
    """Does a blind answer agree with the judge? (then it is recorded as an accept)"""
    value = target.value
    if target.kind in ("overall", "subscore"):
        return isinstance(answer, float) and abs(float(value) - answer) < 1e-9
    if target.kind == "disagreement" and isinstance(value, dict):
        return answer in ("confirmed", value.get("severity"))
    if target.kind == "match":
        return answer == "valid"
    return bool(answer == value)


def action_text(decision: Decision) -> str:
    if is_withdrawal(decision):
        return "withdrawn (undo)"
    if decision.target_kind == TargetKind.DISPOSITION:
        return f"disposition: {disposition_title(decision.new_value)}"
    if decision.action == DecisionAction.ACCEPT:
        return "accepted" + (" (blind answer agreed)" if decision.blind else "")
    if decision.original_value is None:
        return "labelled (no judge)"
    return "overridden" + (" (blind answer)" if decision.blind else "")


class CaseQueue:
    """The queue's state: entries, the reviewer's position, blind mode, what was revealed.
    Deciding returns the Decisions to append; `set_decisions` takes the stored history."""

    def __init__(self) -> None:
        self.case: Case | None = None
        self.entries: list[QueueEntry] = []
        self.index = 0
        self.blind = False
        self.user = ""
        self.decisions: list[Decision] = []
        self.revealed: set[str] = set()
        self.evidence_seen: set[str] = set()  # entries whose evidence the reviewer opened

    # content -------------------------------------------------------------------------

    def set_case(self, case: Case | None, decisions: Sequence[Decision]) -> None:
        self.case = case
        self.decisions = list(decisions)
        self.revealed = set()
        self.evidence_seen = set()
        self._rebuild()
        self.index = self.first_undecided()  # resume where the reviewer stopped

    def set_decisions(self, decisions: Sequence[Decision], *, advance: bool = False) -> None:
        self.decisions = list(decisions)
        self._rebuild()
        if advance:
            following = self.next_undecided(self.index, wrap=True)
            if following is not None:
                self.index = following

    def _rebuild(self) -> None:
        self.entries = (
            [] if self.case is None else build_entries(self.case, self.decisions, self.user)
        )
        self.index = min(self.index, max(0, len(self.entries) - 1))

    # position ------------------------------------------------------------------------

    @property
    def current(self) -> QueueEntry | None:
        return self.entries[self.index] if self.entries else None

    def answered(self, entry: QueueEntry) -> bool:
        """Done for this queue: decided by anyone, or (blind) by this reviewer."""
        return entry.answered_by_me if self.blind else entry.decided

    @property
    def total(self) -> int:
        return len(self.entries)

    @property
    def done(self) -> int:
        return sum(1 for e in self.entries if self.answered(e))

    @property
    def required_total(self) -> int:
        return sum(1 for e in self.entries if e.required)

    @property
    def required_outstanding(self) -> int:
        return sum(1 for e in self.entries if e.required and not e.decided)

    @property
    def optional_open(self) -> list[QueueEntry]:
        return [e for e in self.entries if not e.required and not e.decided]

    def first_undecided(self) -> int:
        for i, entry in enumerate(self.entries):
            if not self.answered(entry):
                return i
        return 0

    def next_undecided(self, after: int, *, wrap: bool) -> int | None:
        n = len(self.entries)
        for step in range(1, n + 1):
            i = after + step
            if i >= n and not wrap:
                return None
            if not self.answered(self.entries[i % n]):
                return i % n
        return None

    def go(self, index: int) -> bool:
        """Move to `index` (clamped); True when the position changed."""
        if not self.entries:
            return False
        index = max(0, min(index, len(self.entries) - 1))
        changed = index != self.index
        self.index = index
        return changed

    def find(self, target_id: str) -> int | None:
        """The entry holding this judgement (a group holds several)."""
        for i, entry in enumerate(self.entries):
            if entry.key == target_id or any(t.id == target_id for t in entry.targets):
                return i
        return None

    def visible(self, entry: QueueEntry | None = None) -> bool:
        """May the reviewer see the judge's verdict on this entry?"""
        entry = entry or self.current
        if entry is None:
            return False
        return not self.blind or entry.answered_by_me or entry.key in self.revealed

    # deciding ------------------------------------------------------------------------

    def saw_evidence(self, entry: QueueEntry | None = None) -> None:
        """The reviewer opened the record at this entry's evidence (E)."""
        entry = entry or self.current
        if entry is not None:
            self.evidence_seen.add(entry.key)

    def needs_evidence(self, entry: QueueEntry | None = None) -> bool:
        """A major finding whose evidence the reviewer has not opened yet: it cannot be
        accepted (or given a disposition) before they have looked."""
        entry = entry or self.current
        if entry is None or self.case is None:
            return False
        return entry.key not in self.evidence_seen and major_finding(self.case, entry)

    def _check_evidence(self, entry: QueueEntry) -> None:
        if self.needs_evidence(entry):
            raise ValueError(
                "a major finding: open its evidence in the record first (E), then decide"
            )

    def accept(self, reason: str) -> list[Decision]:
        """Accept the judge's value on the current entry (every quote of a group). Not
        possible blind before answering, nor on a red flag (it needs a disposition), nor on
        a major finding whose evidence the reviewer has not opened."""
        entry, case = self._entry(), self._case()
        if entry.is_disposition:
            raise ValueError(
                "a red flag needs your disposition: proceed, postpone, refer or not relevant"
            )
        if not self.visible(entry):
            raise ValueError("blind mode: give your own answer (O) before seeing the verdict")
        self._check_evidence(entry)
        return [make_decision(case, t.id, user=self.user, reason=reason) for t in entry.targets]

    def dispose(self, disposition: str, reason: str) -> list[Decision]:
        """Record what the clinician will do about the current red flag, with a reason."""
        entry, case = self._entry(), self._case()
        if not entry.is_disposition:
            raise ValueError("a disposition is for a red flag")
        self._check_evidence(entry)
        return [
            make_decision(
                case, entry.target.id, user=self.user, reason=reason, override=disposition
            )
        ]

    def override(self, value: str, reason: str) -> list[Decision]:
        """Override (or, blind, answer) the current entry. InputError on a bad value."""
        entry, case = self._entry(), self._case()
        if entry.is_disposition:
            return self.dispose(value, reason)
        blind = not self.visible(entry)
        made = []
        for target in entry.targets:
            override: str | None = value
            if blind and same_value(target, parse_override(target, value)):
                override = None  # the blind answer agrees with the judge: an accept
            made.append(
                make_decision(
                    case, target.id, user=self.user, reason=reason, override=override, blind=blind
                )
            )
        if blind:
            self.revealed.add(entry.key)
        return made

    def accept_optional(self) -> list[Decision]:
        """Accept every optional judgement nobody has decided yet, recorded as a bulk accept
        (not in blind mode: that would accept verdicts the reviewer has not seen)."""
        if self.blind:
            raise ValueError("blind mode: the remaining judgements need your own answers")
        case = self._case()
        entries = self.optional_open
        targets = [
            t for e in entries for t, last in zip(e.targets, e.latest, strict=True) if last is None
        ]
        reason = BULK_REASON.format(n=len(entries))  # judgements, as every count counts them
        return [make_decision(case, t.id, user=self.user, reason=reason) for t in targets]

    def undo(self) -> list[Decision]:
        """Withdraw this reviewer's last decision on the case (all of a group or a bulk
        accept made with it), each recorded as a withdrawal; [] when there is none."""
        return [withdrawal_of(d, self.user) for d in last_standing(self.decisions, self.user)]

    def _entry(self) -> QueueEntry:
        if self.current is None:
            raise ValueError("no judgement selected")
        return self.current

    def _case(self) -> Case:
        if self.case is None:
            raise ValueError("no case")
        return self.case
