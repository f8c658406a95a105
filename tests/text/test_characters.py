"""One fold table (`concord.text.characters`): the screen, the verifier and user names fold
the same characters, each with its own reading of them."""

from __future__ import annotations

import unicodedata

import pytest

from concord.accounts.names import confusable_keys, normalise_name
from concord.errors import InputError
from concord.evidence.canonical import TokenText
from concord.screen.reading import reading_text
from concord.text.characters import (
    DASHES,
    DOUBLE_QUOTES,
    LINE_BREAKS,
    LOOK_ALIKE_SCRIPTS,
    LOOK_ALIKES,
    SINGLE_QUOTES,
    SUPERSCRIPT_DIGITS,
)


def tokens(text: str) -> list[str]:
    return TokenText.of(text).tokens()


@pytest.mark.parametrize("dash", list(DASHES))
def test_every_dash_reads_as_a_hyphen_to_the_screen_and_the_verifier(dash: str) -> None:
    assert reading_text(f"EF 25{dash}30 %").text == "EF 25-30 %"
    assert tokens(f"EF 25{dash}30 %") == tokens("EF 25-30 %")


@pytest.mark.parametrize(
    ("quote", "plain"), [(q, "'") for q in SINGLE_QUOTES] + [(q, '"') for q in DOUBLE_QUOTES]
)
def test_every_quote_reads_as_its_ascii_form_to_both(quote: str, plain: str) -> None:
    assert reading_text(f"the {quote}no{quote} box").text == f"the {plain}no{plain} box"
    assert tokens(f"the {quote}no{quote} box") == tokens(f"the {plain}no{plain} box")


@pytest.mark.parametrize("brk", list(LINE_BREAKS))
def test_every_line_break_ends_a_line_for_both(brk: str) -> None:
    assert reading_text(f"K+ 6.3{brk}Na 140").text == "K+ 6.3\nNa 140"
    assert tokens(f"K+ 6.3{brk}Na 140") == tokens("K+ 6.3\nNa 140")


def test_an_exponent_is_one_fact_read_two_ways() -> None:
    # The screen reads the caret its value patterns want; the verifier compares tokens, so
    # each spelling of the exponent is the same token.
    for sup, digit in SUPERSCRIPT_DIGITS.items():
        assert reading_text(f"10{sup}/L").text == f"10^{digit}/L"
        assert tokens(f"10{sup}/L") == tokens(f"10^{digit}/L") == [f"10{digit}", "/", "l"]
    assert reading_text("Plt 45 ×10⁹/L").text == "Plt 45 ×10^9/L"


def test_invisible_characters_are_not_seen_by_readers_and_not_allowed_in_names() -> None:
    assert reading_text("K\u200b+ 6.3").text == "K+ 6.3"
    assert tokens("K\u200b+ 6.3") == tokens("K+ 6.3")
    with pytest.raises(InputError, match="invisible"):
        normalise_name("Dr\u200b Smith")


@pytest.mark.parametrize(("look_alike", "latin"), list(LOOK_ALIKES.items()))
def test_the_screens_look_alikes_agree_with_unicodes_confusables(
    look_alike: str, latin: str
) -> None:
    # The screen reads the look-alike as the Latin letter; user names, from Unicode's data,
    # hold them to be confusable: the two tables cannot drift apart.
    assert reading_text(f"{look_alike}").text == latin
    assert confusable_keys(look_alike) & confusable_keys(latin)
    script = unicodedata.name(look_alike).split()[0]
    assert script in LOOK_ALIKE_SCRIPTS
