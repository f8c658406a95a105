"""Jump-forward decoding: the text the JSON grammar forces between two values (keys,
quotes, brackets) is not decoded token by token but fed to the model in one call, and the
answer stays what the grammar allows."""

from __future__ import annotations

import json
import string
from collections.abc import Iterator

import pytest

from concord.llm.json_grammar import schema_grammar
from concord.llm.registry import ModelEntry, load_runtime
from concord.llm.runtime import FinishReason, GenerationRequest
from concord.llm.sampling import PROBE_ORDER, GrammarConstraint, names_non_ascii

SCHEMA = {
    "type": "object",
    "properties": {
        "risks": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string", "maxLength": 40},
                    "cites": {"type": "array", "items": {"enum": ["L1", "L2"]}, "maxItems": 2},
                },
                "required": ["text", "cites"],
                "additionalProperties": False,
            },
            "maxItems": 2,
        },
        "grade": {"enum": ["low", "high"]},
    },
    "required": ["risks", "grade"],
    "additionalProperties": False,
}
RECORD = "L1: Potassium 6.3 mmol/L.\nL2: eGFR 22 mL/min/1.73m2.\n"


def test_the_probes_are_every_printable_ascii_character_once() -> None:
    printable = set(string.printable) - set("\t\n\r\x0b\x0c")
    assert set(PROBE_ORDER) == printable and len(PROBE_ORDER) == len(printable)


@pytest.mark.parametrize(
    ("grammar", "beyond"),
    [
        ('u ::= "\\"mmol\\""', False),
        ('char ::= [^"\\\\\\x7F\\x00-\\x1F]', False),  # the JSON string character class
        ('u ::= "\\"\\u00b5mol\\""', True),  # how the converter writes "µmol"
        ('u ::= "\\xB5"', True),
        ('u ::= "\\U0001F600"', True),
        ('u ::= "\u00e9"', True),  # the character itself
    ],
)
def test_a_grammar_naming_a_character_beyond_ascii_is_told_apart(grammar, beyond) -> None:
    assert names_non_ascii(grammar) is beyond


def test_the_agents_brief_grammars_can_be_jumped_through() -> None:
    from concord.agents.profiles import load_profiles
    from concord.agents.schema import brief_schema
    from concord.paths import resources_dir
    from concord.records import load_record

    profiles = load_profiles()
    for path in sorted((resources_dir() / "demo").glob("*.json")):
        record = load_record(path)
        for profile in profiles.values():
            if profile.role.value != "surgeon":
                grammar = schema_grammar(brief_schema(profile, record, ["renal", "cardiology"]))
                assert not names_non_ascii(grammar), (path.name, profile.id)


def test_the_grammar_allows_no_optional_spaces_between_json_tokens() -> None:
    grammar = schema_grammar(SCHEMA)
    assert 'space ::= ""' in grammar and '" "?' not in grammar


@pytest.fixture(scope="module")
def runtime(default_entry: ModelEntry) -> Iterator:
    loaded = load_runtime(default_entry, n_ctx=1024, parallel=2, n_threads=1)
    yield loaded
    loaded.close()


def constraint(runtime, schema: dict = SCHEMA) -> GrammarConstraint:
    return GrammarConstraint(
        runtime._lib, runtime._vocab, schema_grammar(schema), runtime._n_vocab, runtime._probes
    )


def accept_text(runtime, grammar: GrammarConstraint, text: str) -> None:
    for token in runtime.tokenize(text, special=False):
        assert grammar.allows(token), text
        grammar.accept(token)


@pytest.mark.parametrize(
    ("written", "forced"),
    [
        ("{", '"risks":['),  # the first key and its bracket
        ('{"risks":[{', '"text":"'),
        ('{"risks":[{"text":"K', ""),  # inside free text: a choice
        ('{"risks":[{"text":"K+ 6.3"', ',"cites":['),
        ('{"risks":[{"text":"K+ 6.3","cites":["', "L"),  # both values start with L
        ('{"risks":[],', '"grade":"'),
        ('{"risks":[],"grade":"l', 'ow"}'),  # the rest of an enum value and the end
        ('{"risks":[],"grade":"low"}', ""),  # complete: only the end of the answer
    ],
)
def test_the_forced_text_is_exactly_what_the_grammar_leaves_no_choice_about(
    runtime, written: str, forced: str
) -> None:
    grammar = constraint(runtime)
    try:
        accept_text(runtime, grammar, written)
        followed = grammar.follow_forced()
        assert "".join(char for char, _ in followed) == forced
        for char, token in followed:  # each character with a token of its own
            assert runtime._model.detokenize([token]) == char.encode()
        assert grammar.follow_forced() == []  # followed: what comes next is a choice
    finally:
        grammar.close()


@pytest.mark.parametrize(
    "written", ["{", '{"risks":[{"text":"K+ 6.3"', '{"risks":[],', '{"risks":[],"grade":"l']
)
def test_following_the_forced_text_leaves_the_grammar_where_its_tokens_would(
    runtime, written: str
) -> None:
    """Followed character by character, the grammar allows exactly what it allows after the
    same text accepted as the tokenizer writes it, for every candidate token checked."""
    followed, tokenized = constraint(runtime), constraint(runtime)
    try:
        accept_text(runtime, followed, written)
        text = "".join(char for char, _ in followed.follow_forced())
        assert text
        accept_text(runtime, tokenized, written + text)
        candidates = {
            token
            for piece in [*PROBE_ORDER, "L1", "L2", "low", "high", "]}", '"]', "Potassium"]
            for token in runtime.tokenize(piece, special=False)
        }
        assert len(candidates) > len(PROBE_ORDER)
        for token in sorted(candidates):
            assert followed.allows(token) == tokenized.allows(token), token
    finally:
        followed.close()
        tokenized.close()


def test_a_string_at_its_maximum_length_forces_its_closing_quote(runtime) -> None:
    grammar = constraint(runtime)
    try:
        accept_text(runtime, grammar, '{"risks":[{"text":"' + "a" * 40)
        assert "".join(c for c, _ in grammar.follow_forced()) == '","cites":['
    finally:
        grammar.close()


def test_nothing_is_forced_where_a_non_ascii_literal_could_follow(runtime) -> None:
    units = {
        "type": "object",
        "properties": {"unit": {"enum": ["mmol/L", "\u00b5mol/L"]}},
        "required": ["unit"],
        "additionalProperties": False,
    }
    grammar = constraint(runtime, units)
    try:
        accept_text(runtime, grammar, '{"unit":"')
        # "m" is the only ASCII character allowed here, but "\u00b5" is allowed too
        assert grammar.allows(runtime.tokenize("\u00b5", special=False)[0])
        assert grammar.follow_forced() == []
    finally:
        grammar.close()


def ask(question: str, seed: int = 0, temperature: float = 0.0) -> GenerationRequest:
    return GenerationRequest(
        prefix=RECORD,
        prompt=question,
        schema=SCHEMA,
        max_tokens=160,
        seed=seed,
        temperature=temperature,
    )


def test_answers_with_jump_forward_are_valid_and_need_fewer_decoding_steps(
    runtime, default_entry: ModelEntry, monkeypatch: pytest.MonkeyPatch
) -> None:
    questions = ["The main risks as JSON:\n", "Renal risks as JSON:\n"]
    steps: list[int] = []
    original = type(runtime)._decode_batch

    def counted(self) -> None:
        steps.append(int(self._batch.n_tokens))
        original(self)

    monkeypatch.setattr(type(runtime), "_decode_batch", counted)
    jumped = [runtime.generate(ask(q)) for q in questions]
    jumped_steps = len(steps)
    plain_runtime = load_runtime(
        default_entry, n_ctx=1024, parallel=2, n_threads=1, jump_forward=False
    )
    try:
        steps.clear()
        plain = [plain_runtime.generate(ask(q)) for q in questions]
        plain_steps = len(steps)
    finally:
        plain_runtime.close()
    for answer in (*jumped, *plain):
        assert answer.finish_reason == FinishReason.STOP
        data = json.loads(answer.text)
        assert set(data) == {"risks", "grade"} and data["grade"] in {"low", "high"}
    # the forced text went to the model in one call each time: fewer calls a token
    per_token = jumped_steps / sum(a.completion_tokens for a in jumped)
    plain_per_token = plain_steps / sum(a.completion_tokens for a in plain)
    assert per_token < 0.9 * plain_per_token


def test_seeded_sampling_with_jump_forward_repeats_and_stays_valid(runtime) -> None:
    hot = [runtime.generate(ask("Risks as JSON:\n", seed=s, temperature=0.9)) for s in (3, 4, 3)]
    assert hot[0].text == hot[2].text
    for answer in hot:
        if answer.finish_reason == FinishReason.STOP:
            json.loads(answer.text)
