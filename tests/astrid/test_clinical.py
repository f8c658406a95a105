"""Clinical-label prediction (Table 2 layout): computed, and flagged when the data is small."""

from __future__ import annotations

import random

from concord.astrid.clinical import clinical_table, predict_target
from concord.astrid.items import HumanLabels, QaItem


def synthetic(n: int, seed: int = 0) -> tuple[list[QaItem], dict]:
    """Harmful exactly when CF is low and the question is in scope (plus no noise)."""
    rng = random.Random(seed)
    items, features = [], {}
    for k in range(n):
        cf, cr, ra = rng.choice([0.0, 0.33, 1.0]), rng.random() < 0.5, rng.random() < 0.3
        scope = rng.choice(["in", "out"])
        harmful = cf < 0.5 and not ra
        items.append(
            QaItem(
                item_id=f"i{k}",
                question="q",
                context=("c",),
                answer="a.",
                scope=scope,
                labels=HumanLabels(
                    harmful=harmful, helpful=not harmful, inappropriate="yes" if harmful else "no"
                ),
            )
        )
        features[f"i{k}"] = (cf, float(cr), float(ra))
    return items, features


def test_enough_data_gives_meaningful_table() -> None:
    items, features = synthetic(120)
    got = predict_target(items, features, "harmful")
    assert got["computed"] and not got["too_small"]
    models = [row["model"] for row in got["rows"]]
    assert models == ["RandomForest", "SVM", "Gaussian Naive Bayes", "Neural Network", "Average"]
    forest = got["rows"][0]["f1"]
    assert set(forest) == {"Harmful", "Unharmful"} and forest["Harmful"] > 0.9


def test_small_data_is_flagged(demo_items) -> None:
    features = {
        i.item_id: (i.labels.cf, float(i.labels.cr), float(i.labels.ra)) for i in demo_items
    }
    table = clinical_table(demo_items, features)
    harmful = table["targets"]["harmful"]
    assert harmful["computed"] and harmful["too_small"]
    assert harmful["note"].startswith("TOO SMALL TO MEAN ANYTHING")
    inappropriate = table["targets"]["inappropriate"]
    assert inappropriate["class_counts"]["Slightly"] == 2


def test_single_class_cannot_be_computed() -> None:
    items, features = synthetic(10)
    same = [i.model_copy(update={"labels": HumanLabels(harmful=False)}) for i in items]
    got = predict_target(same, features, "harmful")
    assert not got["computed"] and "cannot be computed" in got["note"]
