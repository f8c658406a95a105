"""A JSON schema as a llama.cpp grammar (GBNF), for constrained decoding.

llama-cpp-python's converter does the work, with two changes:
- a JSON string may not contain raw control characters (the converter lets them through,
  which is invalid JSON; llama.cpp's own C++ converter forbids them too);
- `uniqueItems` on an array of enum values is enforced by the grammar (the converter
  ignores the keyword): each value may appear once, in any order, so a ranked list such as
  the anaesthetist's consults cannot name a specialist twice. The grammar tracks which
  values were used, one rule per set of used values, so it grows as 2^n; above
  MAX_UNIQUE_VALUES values the array falls back to the converter's plain repetition and
  validation alone refuses a repeat.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from concord.errors import ModelError

MAX_UNIQUE_VALUES = 10
_LOOSE_CHAR = r'char ::= [^"\\] |'
_STRICT_CHAR = r'char ::= [^"\\\x7F\x00-\x1F] |'
_OPTIONAL_SPACE = 'space ::= " "?'
_NO_SPACE = 'space ::= ""'


def strict_json_chars(grammar: str) -> str:
    """Forbid raw control characters inside JSON strings."""
    return grammar.replace(_LOOSE_CHAR, _STRICT_CHAR)


def compact_json(grammar: str) -> str:
    """No optional spaces between JSON tokens: the text between two values is then forced
    by the schema alone (`"}, {"text": "` is a choice of spaces otherwise), so it can be
    jumped over instead of decoded token by token (`GrammarConstraint.follow_forced`)."""
    if _OPTIONAL_SPACE not in grammar:
        raise ModelError("the grammar converter's space rule changed", subject="grammar")
    return grammar.replace(_OPTIONAL_SPACE, _NO_SPACE)


def is_unique_enum_array(schema: Mapping[str, Any]) -> bool:
    items = schema.get("items")
    return (
        schema.get("type") == "array"
        and schema.get("uniqueItems") is True
        and isinstance(items, Mapping)
        and isinstance(items.get("enum"), list)
        and 0 < len(items["enum"]) <= MAX_UNIQUE_VALUES
        and len({json.dumps(v) for v in items["enum"]}) == len(items["enum"])
    )


def unique_enum_array_rule(
    literals: list[str],
    min_items: int,
    max_items: int,
    add_rule: Callable[[str, str], str],
    name: str,
) -> str:
    """The body of a rule matching a JSON array of distinct `literals` (GBNF literals of the
    enum values), between min_items and max_items long. `add_rule(name, body)` adds a helper
    rule and returns its name."""
    count = len(literals)
    high = min(max_items, count)
    low = min(min_items, high)
    made: dict[int, str] = {}

    def after(used: int) -> str:
        """What may follow once the values in `used` (a bit set) were written."""
        written = used.bit_count()
        if written >= high:
            return ""
        if used not in made:
            options = " | ".join(
                f"{literals[i]} {after(used | 1 << i)}".rstrip()
                for i in range(count)
                if not used & 1 << i
            )
            more = f'"," space ({options})'
            body = more if written < low else f"({more})?"
            made[used] = add_rule(f"{name}-after-{used:x}", body)
        return made[used]

    if high == 0:
        return '"[" space "]" space'
    first = " | ".join(f"{literals[i]} {after(1 << i)}".rstrip() for i in range(count))
    optional = "?" if low == 0 else ""
    return f'"[" space ({first}){optional} "]" space'


@cache
def _converter_class() -> type:
    try:
        from llama_cpp.llama_grammar import SchemaConverter
    except ImportError as exc:
        raise ModelError("llama-cpp-python is not installed", subject="grammar") from exc

    class Converter(SchemaConverter):
        def visit(self, schema: Any, name: str) -> Any:
            if isinstance(schema, dict) and is_unique_enum_array(schema):
                literals = [self._generate_constant_rule(v) for v in schema["items"]["enum"]]
                base = name or "root"
                body = unique_enum_array_rule(
                    literals,
                    int(schema.get("minItems", 0)),
                    int(schema.get("maxItems", len(literals))),
                    self._add_rule,
                    base,
                )
                return self._add_rule(base, body)
            return super().visit(schema, name)

    return Converter


def schema_grammar(schema: Mapping[str, Any], subject: str = "grammar") -> str:
    """The GBNF grammar for `schema` (root rule `root`)."""
    converter = _converter_class()(
        prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False
    )
    try:
        resolved = converter.resolve_refs(json.loads(json.dumps(schema)), "stdin")
        converter.visit(resolved, "")
        grammar = converter.format_grammar()
    except Exception as exc:  # the converter raises bare Exceptions
        raise ModelError(
            f"cannot turn the JSON schema into a grammar: {exc}", subject=subject
        ) from exc
    return compact_json(strict_json_chars(str(grammar)))
