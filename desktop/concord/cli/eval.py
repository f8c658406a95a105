"""eval: golden-label question sets, answer generation, similarity screening, grading,
reward model, rejection sampling, agreement."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from concord.cli._common import add_json_flag, current_user, emit_json, say, services, sign_in_as
from concord.cli._tables import table
from concord.decisions import record_decision
from concord.errors import InputError
from concord.eval import agreement
from concord.eval.bands import BANDS, OVERALL
from concord.eval.configs import DEFAULT_K, DEFAULT_MAX_TOKENS, GenerationConfig
from concord.eval.embedder import GgufEmbedder, choose_embedding_entry
from concord.eval.eval_store import EvalStore
from concord.eval.generate import generate_answers
from concord.eval.grading import Grade, grade_decision, human_grades, unsafe_answers
from concord.eval.questions import load_question_set
from concord.eval.screening import (
    DEFAULT_RANK_KEY,
    RANK_KEYS,
    rank_configurations,
    screen_answers,
)
from concord.eval.workflow import rejection_report, train_reward
from concord.labels.sets import set_provenance
from concord.llm.registry import ModelEntry
from concord.services import Services


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "eval", help="golden-label similarity, reward model, rejection sampling"
    )
    ev = parser.add_subparsers(dest="eval_command", required=True, metavar="STEP")

    p = ev.add_parser("import", help="import a question set with golden answers (JSONL/CSV)")
    p.add_argument("file", type=Path, metavar="FILE")
    p.add_argument("--name", help="name of the set (default: the file name)")
    p.add_argument("--user")
    add_json_flag(p)
    p.set_defaults(func=cmd_import)

    p = ev.add_parser("sets", help="list question sets")
    add_json_flag(p)
    p.set_defaults(func=cmd_sets)

    p = ev.add_parser("generate", help="K answers per question from one configuration")
    p.add_argument("set_id", metavar="SET")
    p.add_argument("--model", help="registered model name or path (default: the default model)")
    p.add_argument("--k", type=int, default=DEFAULT_K)
    p.add_argument("--temperature", type=float, required=True)
    p.add_argument("--context", action="store_true", help="give the question's passage (RAG)")
    p.add_argument("--max-tokens", type=int, default=DEFAULT_MAX_TOKENS)
    p.add_argument("--user")
    add_json_flag(p)
    p.set_defaults(func=cmd_generate)

    p = ev.add_parser("answers", help="list generated answers (for reading and grading)")
    p.add_argument("set_id", metavar="SET")
    p.add_argument("--config", help="only this configuration hash (a prefix is enough)")
    p.add_argument("--ungraded", action="store_true", help="only answers nobody graded")
    add_json_flag(p)
    p.set_defaults(func=cmd_answers)

    p = ev.add_parser("similarity", help="score answers against golden labels; rank configs")
    p.add_argument("set_id", metavar="SET")
    p.add_argument(
        "--embed-model",
        help="embedding GGUF (default: a registered embedder, else the default model)",
    )
    p.add_argument("--by", choices=RANK_KEYS, default=DEFAULT_RANK_KEY, help="ranking measure")
    p.add_argument("--user")
    add_json_flag(p)
    p.set_defaults(func=cmd_similarity)

    p = ev.add_parser("grade", help="record a clinician's good/bad grade (a decision)")
    p.add_argument("answer_id", metavar="ANSWER_ID")
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument("--good", action="store_true")
    group.add_argument("--bad", action="store_true")
    p.add_argument("--reason", required=True)
    p.add_argument("--user", required=True)
    p.add_argument(
        "--shown-prediction",
        choices=["good", "bad"],
        help="the reward model's grade, if it was shown to you before grading",
    )
    p.add_argument("--blind", action="store_true", help="the prediction was hidden")
    p.add_argument(
        "--golden-shown",
        action="store_true",
        help="you read the experts' golden answers before grading (recorded with the grade)",
    )
    add_json_flag(p)
    p.set_defaults(func=cmd_grade)

    p = ev.add_parser("train-reward", help="train the reward model on graded answers")
    p.add_argument("set_id", metavar="SET")
    p.add_argument("--embed-model")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument(
        "--no-embedding",
        action="store_true",
        help="similarity features only, without the pooled answer embedding",
    )
    p.add_argument("--user")
    add_json_flag(p)
    p.set_defaults(func=cmd_train_reward)

    p = ev.add_parser("reject", help="rejection sampling table (accuracy with and without)")
    p.add_argument("set_id", metavar="SET")
    p.add_argument("--k", type=int, default=DEFAULT_K)
    p.add_argument("--version", help="reward model version (default: the latest for the set)")
    p.add_argument("--embed-model")
    p.add_argument("--user")
    add_json_flag(p)
    p.set_defaults(func=cmd_reject)

    p = ev.add_parser("agreement", help="judge vs human, and between annotators (kappa)")
    p.add_argument("--case", help="only decisions of this case / set id")
    p.add_argument("--kind", help="only this target kind (e.g. eval_grade)")
    add_json_flag(p)
    p.set_defaults(func=cmd_agreement)


def _store(svc: Services) -> EvalStore:
    return EvalStore(svc.repo)


def _embedder_loader(
    svc: Services, name: str | None
) -> tuple[ModelEntry, Callable[[], GgufEmbedder]]:
    entry = choose_embedding_entry(svc.models, name)
    return entry, (lambda: GgufEmbedder(entry))


def cmd_import(args: argparse.Namespace) -> int:
    qset = load_question_set(args.file, args.name)
    svc = services()
    set_id, created = _store(svc).import_set(qset, str(args.file), current_user(args, svc))
    out = {
        "set_id": set_id,
        "created": created,
        "questions": len(qset.questions),
        "golden_answers": sum(len(q.answers) for q in qset.questions),
    }
    if args.json:
        emit_json(out)
    else:
        note = "" if created else "  (already imported)"
        print(
            f"{set_id}  {out['questions']} questions, {out['golden_answers']} golden answers{note}"
        )
    return 0


def cmd_sets(args: argparse.Namespace) -> int:
    sets = _store(services()).sets()
    if args.json:
        emit_json({"sets": [s.model_dump() for s in sets]})
    else:
        print(
            table(
                ["set", "name", "imported", "source"],
                [[s.set_id, s.name, s.imported_at[:19], s.source] for s in sets],
            )
        )
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    if not 1 <= args.k <= 64:
        raise InputError(f"--k must be between 1 and 64, got {args.k}")
    if args.temperature < 0:
        raise InputError(f"--temperature must be >= 0, got {args.temperature}")
    svc = services()
    store = _store(svc)
    store.get_set(args.set_id)
    entry = svc.model_entry(args.model)
    config = GenerationConfig(
        entry.name, entry.sha256, args.temperature, args.context, args.max_tokens
    )
    runtime = svc.runtime(args.model)
    made = skipped = 0
    for event in generate_answers(
        store, runtime, args.set_id, config, args.k, current_user(args, svc)
    ):
        made += not event.skipped
        skipped += event.skipped
        if not args.json:
            state = "kept" if event.skipped else "new"
            say(f"  [{event.done}/{event.total}] {event.question_label} {event.answer_id} {state}")
    out = {
        "set_id": args.set_id,
        "config_hash": config.config_hash,
        "label": config.label,
        "k": args.k,
        "generated": made,
        "already_stored": skipped,
    }
    if args.json:
        emit_json(out)
    else:
        print(
            f"{config.label}  config {config.config_hash[:12]}: {made} new answers, "
            f"{skipped} already stored"
        )
    return 0


def cmd_answers(args: argparse.Namespace) -> int:
    svc = services()
    store = _store(svc)
    config = store.get_config(args.config).config_hash if args.config else None
    questions = {q.question_id: q for q in store.questions(args.set_id)}
    graded = human_grades(svc.repo, args.set_id)
    answers = [
        a
        for a in store.answers(args.set_id, config)
        if not (args.ungraded and a.answer_id in graded)
    ]
    unsafe = unsafe_answers(svc.repo.decisions(case_id=args.set_id))["marks"]
    rows = [
        {
            "answer_id": a.answer_id,
            "question": questions[a.question_id].label,
            "config_hash": a.config_hash,
            "temperature": a.temperature,
            "sample": a.sample,
            "text": a.text,
            "graded": graded[a.answer_id].value if a.answer_id in graded else None,
            "unsafe": unsafe.get(a.answer_id),
        }
        for a in answers
    ]
    if args.json:
        emit_json({"set_id": args.set_id, "answers": rows})
        return 0
    for row in rows:
        grade = f"  [{row['graded']}]" if row["graded"] else ""
        grade += f"  [UNSAFE: {row['unsafe']}]" if row["unsafe"] else ""
        print(
            f"{row['answer_id']}  {row['question']}  T={row['temperature']:g} "
            f"#{row['sample']}{grade}"
        )
        print("    " + " ".join(str(row["text"]).split()))
    return 0


def cmd_similarity(args: argparse.Namespace) -> int:
    svc = services()
    store = _store(svc)
    store.get_set(args.set_id)
    entry = choose_embedding_entry(svc.models, args.embed_model)
    pending = [
        a for a in store.answers(args.set_id) if a.answer_id not in store.similarities(entry.sha256)
    ]
    if pending:
        embedder = GgufEmbedder(entry)
        try:
            for event in screen_answers(store, embedder, args.set_id, current_user(args, svc)):
                if not args.json and (event.done % 10 == 0 or event.done == event.total):
                    say(f"  embedded {event.done}/{event.total}")
        finally:
            embedder.close()
    ranking = rank_configurations(store, args.set_id, entry.sha256, args.by)
    out = {
        "set_id": args.set_id,
        "embed_model": entry.name,
        "embed_sha256": entry.sha256,
        "ranked_by": args.by,
        "configurations": ranking,
    }
    if args.json:
        emit_json(out)
        return 0
    print(
        f"Configurations ranked by mean {args.by} against the golden labels "
        f"(embeddings: {entry.name})"
    )
    rows = [
        [
            str(r["rank"]),
            str(r["label"]),
            str(r["config_hash"])[:12],
            str(r["answers"]),
            *(f"{float(r[k]):.4f}" for k in RANK_KEYS),
        ]
        for r in ranking
    ]
    print(table(["rank", "configuration", "config", "n", *RANK_KEYS], rows))
    return 0


def cmd_grade(args: argparse.Namespace) -> int:
    svc = services()
    store = _store(svc)
    grade = Grade.GOOD if args.good else Grade.BAD
    decision = grade_decision(
        store,
        args.answer_id,
        grade,
        user=args.user,
        reason=args.reason,
        shown_prediction=args.shown_prediction,
        blind=args.blind,
    )
    session = sign_in_as(svc, args.user)  # a grade is a decision: its grader signs in
    how = set_provenance(svc.repo, decision.case_id).model_copy(
        update={
            "bulk": False,
            "golden_shown": True if args.golden_shown else None,
            "judge_run": decision.shown.get("reward_model_version"),
        }
    )
    decision = record_decision(svc.repo, session, decision, provenance=how).decision
    if args.json:
        emit_json(decision.model_dump(mode="json"))
    else:
        print(f"{decision.decision_id}  {args.answer_id}  {grade.value}  by {args.user}")
    return 0


def _metrics_rows(metrics: dict[str, Any]) -> list[list[str]]:
    rows = []
    for name in (OVERALL, *(b.name for b in BANDS)):
        m = metrics[name]
        if not m["n"]:
            rows.append([name, "0", "-", "-", "-", "-"])
            continue
        (gg, gb), (bg, bb) = m["confusion"]["rows_human_cols_model"]
        rates = m["true_label_rate"]
        rows.append(
            [
                name,
                str(m["n"]),
                f"{m['accuracy']:.3f}",
                f"{m['f1']:.3f}",
                f"good→good {gg}, good→bad {gb}, bad→good {bg}, bad→bad {bb}",
                f"good {rates['good'] if rates['good'] is not None else '-'}, "
                f"bad {rates['bad'] if rates['bad'] is not None else '-'}",
            ]
        )
    return rows


def cmd_train_reward(args: argparse.Namespace) -> int:
    svc = services()
    store = _store(svc)
    store.get_set(args.set_id)
    entry, load = _embedder_loader(svc, args.embed_model)
    result = train_reward(
        store,
        args.set_id,
        entry.sha256,
        load,
        current_user(args, svc),
        seed=args.seed,
        with_embedding=not args.no_embedding,
    )
    if args.json:
        emit_json(result)
        return 0
    print(
        f"Reward model {result['version']}: trained on {result['n_train']} graded answers "
        f"({result['train_good']} good), held out {result['n_test']} "
        f"({result['test_good']} good), seed {result['seed']}"
    )
    print("Held-out agreement with the human grade per temperature band (confusion: human→model)")
    print(
        table(
            ["band", "n", "accuracy", "F1", "confusion", "true-label rate"],
            _metrics_rows(result["held_out"]),
        )
    )
    return 0


def cmd_reject(args: argparse.Namespace) -> int:
    svc = services()
    store = _store(svc)
    store.get_set(args.set_id)
    _, load = _embedder_loader(svc, args.embed_model)
    result = rejection_report(
        store, args.set_id, load, current_user(args, svc), k=args.k, version=args.version
    )
    if args.json:
        emit_json(result)
        return 0
    columns = result["columns"]
    names = list(columns)

    def cell(value: Any, pct: bool = False) -> str:
        if value is None:
            return "-"
        return f"{value:+.1f}%" if pct else f"{value:.3f}"

    print(
        f"Rejection sampling, K={result['k']}, reward model {result['reward_model']}; "
        "human-graded accuracy over graded answers only"
    )
    rows = [
        ["Baseline", *(cell(columns[n]["baseline"]) for n in names)],
        ["With rejection sampling", *(cell(columns[n]["with_rejection_sampling"]) for n in names)],
        ["Improvement", *(cell(columns[n]["improvement_pct"], pct=True) for n in names)],
        [
            "graded answers / picks",
            *(f"{columns[n]['graded_answers']}/{columns[n]['questions_x_configs']}" for n in names),
        ],
        ["picks used in training", *(str(columns[n]["chosen_in_training"]) for n in names)],
    ]
    print(table(["setting", *(f"{n} ({columns[n]['title']})" for n in names)], rows))
    return 0


def cmd_agreement(args: argparse.Namespace) -> int:
    decisions = services().repo.decisions(case_id=args.case)
    if args.kind:
        decisions = [d for d in decisions if d.target_kind == args.kind]
    judge = agreement.as_json(agreement.judge_vs_human(decisions))
    annotators = agreement.as_json(agreement.between_annotators(decisions))
    unsafe = unsafe_answers(decisions)
    if args.json:
        emit_json({"judge_vs_human": judge, "annotators": annotators, "unsafe": unsafe})
        return 0
    if unsafe["answers"]:
        marks = ", ".join(f"{n} {s}" for s, n in sorted(unsafe["by_severity"].items()))
        print(f"Answers marked unsafe: {unsafe['answers']} ({marks})\n")
    print("Judge vs human")
    print(
        table(
            ["metric", "model", "n", "accuracy", "kappa", "disagree"],
            [
                [
                    r["metric"],
                    r["model"],
                    str(r["n"]),
                    f"{r['accuracy']:.3f}",
                    "-" if r["kappa"] is None else f"{r['kappa']:.3f}",
                    str(len(r["disagreements"])),
                ]
                for r in judge
            ],
        )
    )
    print("\nBetween annotators")
    print(
        table(
            ["metric", "annotators", "kappa", "n", "agreement", "value", "disagree"],
            [
                [
                    r["metric"],
                    ", ".join(r["annotators"]),
                    r["kappa_kind"],
                    str(r["n"]),
                    f"{r['agreement']:.3f}",
                    "-" if r["kappa"] is None else f"{r['kappa']:.3f}",
                    str(len(r["disagreements"])),
                ]
                for r in annotators
            ],
        )
    )
    return 0
