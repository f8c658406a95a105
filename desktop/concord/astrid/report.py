"""The ASTRID report of a run: per-item metrics with every sentence and verdict, the
agreement table (Table 3 layout), refusal accuracy against scope, and the clinical-label
prediction table (Table 2 layout). Plain data for `--json` and the UI."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from concord.astrid.agreement import agreement_table, refusal_vs_scope, render_table
from concord.astrid.clinical import clinical_table, human_features, judge_features, render_clinical
from concord.astrid.grounding import align_sentence
from concord.astrid.items import QaItem
from concord.astrid.prompts import Metric
from concord.astrid.results import QaRun, Verdict
from concord.astrid.scores import item_scores
from concord.astrid.sentences import split_sentences
from concord.astrid.store import AstridStore
from concord.astrid.targets import ItemLabels, astrid_targets, resolve_labels, sentence_value
from concord.domain import Decision, TargetRef
from concord.domain.decision_history import chain_order, standing_decisions


def _mean_sd(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"mean": None, "sd": None}
    return {
        "mean": float(np.mean(values)),
        "sd": float(np.std(values, ddof=1)) if len(values) > 1 else 0.0,
    }


def _verdict_json(v: Verdict | None) -> dict[str, Any] | None:
    if v is None:
        return None
    return {
        "value": v.value,
        "reason": v.reason,
        "status": str(v.status),
        "attempts": v.attempts,
        **({"error": v.error} if v.error else {}),
    }


def item_json(item: QaItem, run: QaRun, labels: ItemLabels | None) -> dict[str, Any]:
    index = {
        (r.repeat, v.item_id, v.metric, v.sentence_index): v
        for r in run.repeats
        for v in r.verdicts
    }
    sentences = []
    for s in split_sentences(item.answer):
        span = align_sentence(s.text, item.context)
        per_run = []
        for rep in run.repeats:
            info = index.get((rep.repeat, item.item_id, Metric.CF_INFO, s.index))
            grounded = index.get((rep.repeat, item.item_id, Metric.CF_GROUNDED, s.index))
            per_run.append(
                {
                    "repeat": rep.repeat,
                    "value": sentence_value(info, grounded),
                    "information": _verdict_json(info),
                    "grounded": _verdict_json(grounded),
                }
            )
        sentences.append(
            {
                "n": s.index + 1,
                "start": s.start,
                "end": s.end,
                "text": s.text,
                "grounding": None
                if span is None
                else {
                    "chunk": span.chunk + 1,
                    "start": span.start,
                    "end": span.end,
                    "score": span.score,
                    "text": item.context[span.chunk][span.start : span.end],
                },
                "runs": per_run,
                "human": None if labels is None else labels.sentences.get(s.index),
            }
        )
    runs: list[dict[str, Any]] = []
    for rep in run.repeats:
        score = next((x for x in rep.scores if x.item_id == item.item_id), None)
        if score is None:
            continue
        runs.append(
            {
                "repeat": rep.repeat,
                "seed": rep.seed,
                "temperature": rep.temperature,
                "cf": score.cf,
                "n_informative": score.n_informative,
                "n_grounded": score.n_grounded,
                "n_ungrounded": score.n_ungrounded,
                "cr": score.cr,
                "cr_reason": _verdict_json(index.get((rep.repeat, item.item_id, Metric.CR, None))),
                "ra_refused": score.ra_refused,
                "ra_reason": _verdict_json(index.get((rep.repeat, item.item_id, Metric.RA, None))),
                "ra_correct": score.ra_correct,
                "complete": score.complete,
                "scores": dict(score.values),
            }
        )
    human = item.labels.model_dump(mode="json")
    if labels is not None:
        human.update(cf=labels.cf, cr=labels.cr, ra=labels.ra, source=labels.source)
    return {
        "item_id": item.item_id,
        "question": item.question,
        "scope": item.scope,
        "context": list(item.context),
        "answer": item.answer,
        "sentences": sentences,
        "runs": runs,
        "mean": {
            "cf": _mean_sd([r["cf"] for r in runs]),
            "cr": _mean_sd([float(r["cr"]) for r in runs if r["cr"] is not None]),
            "ra_refused": _mean_sd(
                [float(r["ra_refused"]) for r in runs if r["ra_refused"] is not None]
            ),
        },
        "scores": {
            spec.name: {
                "label": spec.label,
                **_mean_sd([v for r in runs if (v := r["scores"].get(spec.name)) is not None]),
            }
            for spec in item_scores()
        },
        "human": human,
    }


def run_summary(run: QaRun) -> dict[str, Any]:
    per_rep_cf = [float(np.mean([s.cf for s in r.scores])) for r in run.repeats if r.scores]

    def share(attr: str) -> dict[str, float | None]:
        values = []
        for rep in run.repeats:
            known = [getattr(s, attr) for s in rep.scores if getattr(s, attr) is not None]
            if known:
                values.append(sum(known) / len(known))
        return _mean_sd(values)

    return {
        "mean_cf": _mean_sd(per_rep_cf),
        "cr_relevant_share": share("cr"),
        "ra_refused_share": share("ra_refused"),
        "refusal_accuracy_vs_scope": refusal_vs_scope(run),
        "failed_verdicts": [sum(v.status != "ok" for v in r.verdicts) for r in run.repeats],
    }


def run_report(
    store: AstridStore, run_id: str, *, all_models: bool = True, clinical: bool = True
) -> dict[str, Any]:
    """Everything about a stored run, with agreement over every judge model of its set.
    `clinical=False` skips fitting the clinical-label classifiers (the slow part)."""
    run = store.get_run(run_id)
    items = store.items(run.set_id)
    runs = [store.get_run(r) for r in store.run_ids(run.set_id)] if all_models else [run]
    decisions = [d for r in runs for d in store.repo.decisions(case_id=r.run_id)]
    on_set = store.repo.decisions(case_id=run.set_id)  # blind labels, given before any run
    decisions += [d for d in on_set if not d.target_kind.is_harm]
    decisions = chain_order(decisions)
    labels = resolve_labels(items, decisions)
    table = agreement_table(runs, items, labels)
    human_ok = any(None not in (g.cf, g.cr, g.ra) for g in labels.values())
    tables: dict[str, Any] = {}
    if clinical:
        tables["judge"] = clinical_table(items, judge_features(run))
        if human_ok:
            tables["human"] = clinical_table(items, human_features(labels))
    set_row = store.get_set(run.set_id)
    return {
        "set_id": run.set_id,
        "set_name": set_row["name"],
        "run_id": run.run_id,
        "model": {"name": run.model_name, "sha256": run.model_sha256},
        "prompt_sha256": run.prompt_sha256,
        "settings": run.settings,
        "started_at": run.started_at.isoformat(),
        "ended_at": run.ended_at.isoformat(),
        "items": [item_json(i, run, labels.get(i.item_id)) for i in items],
        "summary": run_summary(run),
        "agreement": {
            "rows": [row.to_json() for row in table],
            "text": render_table(table),
            "decisions_used": len(decisions),
        },
        "clinical": tables,
        "unsafe": unsafe_summary(on_set),
        "targets": [t.model_dump(mode="json") for t in astrid_targets(run, items)],
    }


def unsafe_summary(decisions: Sequence[Decision]) -> dict[str, Any]:
    """The harm labels standing on a set: how many answers and sentences were marked unsafe,
    by severity, and each mark (who, what, how severe)."""
    marks = []
    for d in standing_decisions(decisions):
        if not d.target_kind.is_harm:
            continue
        ref = TargetRef.parse(d.target_id)
        marks.append(
            {
                "item_id": ref.subject,
                "sentence": ref.sentence_number,
                "severity": d.new_value,
                "user": d.user,
            }
        )
    return {
        "answers": len({m["item_id"] for m in marks if m["sentence"] is None}),
        "sentences": len({(m["item_id"], m["sentence"]) for m in marks if m["sentence"]}),
        "items": len({m["item_id"] for m in marks}),
        "by_severity": dict(Counter(str(m["severity"]) for m in marks)),
        "marks": marks,
    }


def render_report(report: dict[str, Any]) -> str:
    """Short plain-text form for the terminal."""
    lines = [
        f"run {report['run_id']}  set {report['set_id']} ({report['set_name']})  "
        f"model {report['model']['name']}",
        "",
    ]
    head = f"{'item':14} {'scope':5} {'CF':>11} {'N':>3} {'CR':>11} {'RA refuses':>11} {'RA ok':>6}"
    lines.append(head)
    for item in report["items"]:
        mean = item["mean"]

        def cell(stat: dict[str, float | None]) -> str:
            return "-" if stat["mean"] is None else f"{stat['mean']:.2f}±{stat['sd']:.2f}"

        first = item["runs"][0] if item["runs"] else {}
        ok = first.get("ra_correct")
        ok_text = "-" if ok is None else "yes" if ok else "NO"
        lines.append(
            f"{item['item_id'][:14]:14} {item['scope'] or '?':5} {cell(mean['cf']):>11} "
            f"{first.get('n_informative', 0):>3} {cell(mean['cr']):>11} "
            f"{cell(mean['ra_refused']):>11} {ok_text:>6}"
        )
    summary = report["summary"]
    ra = summary["refusal_accuracy_vs_scope"]
    if ra["mean"] is not None:
        lines += ["", f"refusal accuracy against scope: {ra['mean']:.2f} ± {ra['sd']:.3f}"]
    unsafe = report.get("unsafe") or {}
    if unsafe.get("items"):
        severities = ", ".join(f"{n} {s}" for s, n in sorted(unsafe["by_severity"].items()))
        lines += [
            "",
            f"marked unsafe by reviewers: {unsafe['items']} item(s) ({unsafe['answers']} "
            f"answer(s), {unsafe['sentences']} sentence(s); {severities})",
        ]
    lines += [
        "",
        "agreement with human labels (one row per judge model; mean ± sd over runs):",
        report["agreement"]["text"],
    ]
    if "judge" in report["clinical"]:
        lines += [
            "",
            "predicting clinician labels from judge CF/CR/RA and scope (held-out F1):",
            render_clinical(report["clinical"]["judge"]),
        ]
    return "\n".join(lines)
