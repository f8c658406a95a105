"""The judge pipeline once with the real default model (small: one short item)."""

from __future__ import annotations

import pytest

from concord.astrid.llm_judge import JudgeSettings, judge_items
from concord.astrid.store import AstridStore
from concord.llm.registry import ModelEntry, load_runtime
from concord.store import Repository


@pytest.mark.real_model
def test_default_model_judges_one_item(
    repo: Repository, demo_items, default_entry: ModelEntry
) -> None:
    item = next(i for i in demo_items if i.item_id == "chest-pain")  # 2 short sentences
    runtime = load_runtime(default_entry)
    try:
        events = list(
            judge_items(
                runtime, [item], "QA-SET-real", JudgeSettings(max_tokens=48, max_attempts=2)
            )
        )
    finally:
        runtime.close()
    run = events[-1].run
    assert run is not None
    rep = run.repeat(0)
    score = rep.scores[0]
    assert 0.0 <= score.cf <= 1.0
    metrics = [v.metric for v in rep.verdicts]
    assert metrics.count("cf_info") == 2 and "cr" in metrics and "ra" in metrics
    for v in rep.verdicts:  # constrained output: every verdict parsed or honestly failed
        assert (v.status == "ok") == (v.value is not None)
    store = AstridStore(repo)
    set_id, _ = store.save_set([item], name="real", source="test", user="t")
    store.save_run(run.model_copy(update={"set_id": set_id}), "t")
    assert store.get_run(run.run_id).repeat(0).scores[0] == score
