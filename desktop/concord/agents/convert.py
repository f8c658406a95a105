"""Turn a validated answer into the domain Brief, building the evidence pack by code.

The model only names record lines (and may point at some of a line's words); the evidence
line's `source_id`, `locator` and `extract_text` are taken from the record: the extract is
the cited words widened to whole clauses (`concord.evidence.quote`), so it is verbatim and
keeps the words that govern its meaning. Each extract is still checked in place by
`concord.evidence.align.align_span`, which records its span and flags.
"""

from __future__ import annotations

from concord.agents.output import BriefOut, BulletOut
from concord.domain.brief import Brief, BriefItem, BriefSection
from concord.domain.evidence import EvidenceLine, VerifiedEvidence
from concord.domain.record import Line, Record

UNTAGGED = "UNTAGGED"  # tag of a line a bullet cites that the evidence list left out
THRESHOLD_SEPARATOR = " | threshold: "


def locator(record: Record, line: Line) -> str:
    """The line id, plus the page for paged (PDF) documents."""
    page = record.document(line.source_id).page_of(line.start)
    return line.line_id if page is None else f"{line.line_id} p{page}"


def evidence_for(
    record: Record,
    evidence_id: str,
    line: Line,
    tag: str,
    comment: str,
    words: tuple[int, int] | None = None,
) -> VerifiedEvidence:
    from concord.evidence.align import align_span
    from concord.evidence.quote import quote_span

    start, end = quote_span(record, line, words)
    extract = record.document(line.source_id).text[start:end]
    alignment = align_span(record, line.source_id, start, end)
    return VerifiedEvidence(
        evidence_id=evidence_id,
        line=EvidenceLine(
            source_id=line.source_id,
            locator=locator(record, line),
            extract_text=extract,
            tag=tag,
            comment=comment,
        ),
        alignment=alignment,
        line_id=line.line_id,
    )


class _EvidencePack:
    def __init__(self, record: Record, answer: BriefOut) -> None:
        self._record = record
        self.items: list[VerifiedEvidence] = []
        self._by_line: dict[str, list[str]] = {}
        for entry in answer.evidence:
            self._add(record.line_index[entry.line], entry.tag, entry.comment, entry.words)

    def _add(self, line: Line, tag: str, comment: str, words: tuple[int, int] | None) -> str:
        evidence_id = f"E{len(self.items) + 1}"
        self.items.append(evidence_for(self._record, evidence_id, line, tag, comment, words))
        self._by_line.setdefault(line.line_id, []).append(evidence_id)
        return evidence_id

    def ids_for(self, line_ids: tuple[str, ...]) -> tuple[str, ...]:
        """Evidence ids for cited lines; a cited line missing from the pack is added
        (its full text, tag UNTAGGED) so the citation stays traceable."""
        out: list[str] = []
        for line_id in line_ids:
            ids = self._by_line.get(line_id) or [
                self._add(self._record.line_index[line_id], UNTAGGED, "", None)
            ]
            out.extend(i for i in ids if i not in out)
        return tuple(out)


def _items(
    section: BriefSection, bullets: tuple[BulletOut, ...], pack: _EvidencePack
) -> list[BriefItem]:
    items = []
    for rank, bullet in enumerate(bullets, start=1):
        text = bullet.text
        threshold = getattr(bullet, "threshold", None)
        if threshold:
            text = f"{text}{THRESHOLD_SEPARATOR}{threshold}"
        items.append(
            BriefItem(
                item_id=f"{section.value}.{rank}",
                section=section,
                rank=rank,
                text=text,
                cites=pack.ids_for(bullet.cites),
                gate_ids=tuple(getattr(bullet, "gates", ())),
            )
        )
    return items


def to_brief(agent: str, record: Record, answer: BriefOut, **fields: object) -> Brief:
    """The domain Brief for a valid answer; `fields` are Brief's bookkeeping fields."""
    pack = _EvidencePack(record, answer)
    items: list[BriefItem] = []
    items += _items(BriefSection.TOP_RISKS, answer.top_risks, pack)
    items += _items(BriefSection.ACTIONS, answer.actions, pack)
    items += _items(BriefSection.TRIGGERS, answer.triggers, pack)
    items += _items(BriefSection.MONITORING, answer.monitoring, pack)
    for rank, score in enumerate(answer.risk_scores, start=1):
        items.append(
            BriefItem(
                item_id=f"{BriefSection.RISK_SCORES.value}.{rank}",
                section=BriefSection.RISK_SCORES,
                rank=rank,
                text=score,
            )
        )
    return Brief(
        agent=agent,
        items=tuple(items),
        evidence=tuple(pack.items),
        consult=answer.consult,
        **fields,
    )
