"""The JSON schema -> GBNF conversion: a ranked list of enum values with uniqueItems cannot
repeat a value. The grammar text is checked here by expanding it; the real llama.cpp
grammar engine is checked on the default model in `test_real_model.py`."""

from __future__ import annotations

import itertools
import json
import re

import pytest

from concord.agents.profiles import load_profiles, specialists
from concord.agents.schema import brief_schema
from concord.domain.record import Record, SourceDocument
from concord.llm.json_grammar import (
    MAX_UNIQUE_VALUES,
    is_unique_enum_array,
    schema_grammar,
    unique_enum_array_rule,
)

pytest.importorskip("llama_cpp")


def consult_schema(values: list[str], min_items: int = 0, max_items: int | None = None) -> dict:
    array = {"type": "array", "items": {"enum": values}, "uniqueItems": True}
    array["minItems"] = min_items
    array["maxItems"] = len(values) if max_items is None else max_items
    return {
        "type": "object",
        "properties": {"consult": array},
        "required": ["consult"],
        "additionalProperties": False,
    }


def rules(grammar: str) -> dict[str, str]:
    return dict(line.split(" ::= ", 1) for line in grammar.splitlines() if " ::= " in line)


def arrays(rule_set: dict[str, str], name: str = "consult") -> set[tuple[str, ...]]:
    """Every array the rule `name` matches (the rule shapes unique_enum_array_rule writes:
    literals, helper rules, alternatives and optional groups), as tuples of values."""

    def expand(body: str) -> set[tuple[str, ...]]:
        body = body.strip()
        if not body:
            return {()}
        optional = body.endswith(")?") and _balanced(body[1:-2]) and body.startswith("(")
        if optional:
            return {()} | expand(body[1:-2])
        if body.startswith('"," space (') and body.endswith(")"):
            out: set[tuple[str, ...]] = set()
            for option in _split_top(body[len('"," space (') : -1], "|"):
                out |= expand(option)
            return out
        literal, _, rest = body.partition(" ")
        value = json.loads(json.loads(literal))
        return {(value, *tail) for tail in (expand(rules_body(rest)) if rest else {()})}

    def rules_body(reference: str) -> str:
        return rule_set[reference.strip()]

    top = rule_set[name]
    inner = re.fullmatch(r'"\[" space \((.*)\)(\??) "\]" space', top)
    assert inner, top
    out = {()} if inner.group(2) else set()
    for option in _split_top(inner.group(1), "|"):
        out |= expand(option)
    return out


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def _split_top(text: str, sep: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == sep and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return [*parts, current]


def ordered_subsets(values: list[str], low: int, high: int) -> set[tuple[str, ...]]:
    return {perm for size in range(low, high + 1) for perm in itertools.permutations(values, size)}


@pytest.mark.parametrize(
    ("values", "low", "high"),
    [(["a", "b", "c"], 0, 3), (["a", "b", "c", "d"], 1, 2), (["x"], 0, 1), (["p", "q"], 2, 2)],
)
def test_the_grammar_matches_exactly_the_arrays_without_a_repeat(values, low, high) -> None:
    grammar = schema_grammar(consult_schema(values, low, high))
    assert arrays(rules(grammar)) == ordered_subsets(values, low, high)


def test_a_bound_below_the_number_of_values_keeps_the_grammar_small() -> None:
    values = [f"s{i}" for i in range(8)]
    full = rules(schema_grammar(consult_schema(values)))
    two = rules(schema_grammar(consult_schema(values, 0, 2)))
    assert sum(name.startswith("consult-after-") for name in full) == 2**8 - 1 - 1
    assert sum(name.startswith("consult-after-") for name in two) == 8


def test_too_many_values_fall_back_to_plain_repetition() -> None:
    values = [f"s{i}" for i in range(MAX_UNIQUE_VALUES + 1)]
    schema = consult_schema(values)
    assert not is_unique_enum_array(schema["properties"]["consult"])
    assert "consult-after-" not in schema_grammar(schema)


def test_an_empty_array_only_when_nothing_may_be_listed() -> None:
    body = unique_enum_array_rule(['"a"'], 0, 0, lambda name, rule: name, "x")
    assert body == '"[" space "]" space'


def test_the_anaesthetists_consults_are_unique_in_its_grammar() -> None:
    # Every array the grammar allows is listed for four specialists (the ordered subsets of
    # ten number 9.9 million); with all of them the grammar has one rule per set of values
    # already written.
    profiles = load_profiles()
    every = [p.id for p in specialists(profiles)]
    ids = ["cardiology", "renal", *[i for i in every if i not in ("cardiology", "renal")][:2]]
    record = Record(
        name="r", documents=(SourceDocument(source_id="a.txt", kind="txt", text="K+ 6.1\n"),)
    )
    schema = brief_schema(profiles["anaesthetist"], record, ids)
    assert schema["properties"]["consult"]["uniqueItems"] is True
    consult = {k: v for k, v in rules(schema_grammar(schema)).items() if k.startswith("consult")}
    listed = arrays(consult)
    assert ("cardiology", "renal") in listed and ("renal", "cardiology") in listed
    assert all(len(set(entry)) == len(entry) for entry in listed)
    assert len(listed) == len(ordered_subsets(ids, 0, len(ids)))

    full = brief_schema(profiles["anaesthetist"], record, every)
    names = [k for k in rules(schema_grammar(full)) if k.startswith("consult")]
    assert len(every) <= MAX_UNIQUE_VALUES and len(names) == 2 ** len(every)
