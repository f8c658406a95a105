"""The canonical token form: what is folded, what is kept, and that every token points at
its original text."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from concord.evidence import canonical
from concord.evidence.canonical import BULLET, GAP, NEWLINE, SPACE, TokenText


def tokens(text: str) -> list[str]:
    return TokenText.of(text).tokens()


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("K+ 6.3 mmol/L", "k+ 6.3  mmol/l"),
        ("25–30%", "25-30%"),
        ("25−30%", "25—30%"),
        ("haemo-\nglobin", "haemoglobin"),
        ("drug-\n  eluting", "drug-eluting"),
        ("Potas\u200bsium", "Potassium"),
        ("Potas\u00adsium", "Potassium"),
        ("\u202eK+ 6.3", "K+ 6.3"),
        ("1.73m²", "1.73m2"),
        ("×10⁹/L", "x10^9/L"),
        ("×10⁹/L", "x109/L"),
        ("cm^2", "cm²"),
        ("µmol/L", "μmol/L"),
        ("６．３ mmol", "6.3 mmol"),
        ("Simpson’s", "Simpson's"),
        ("“severe”", '"severe"'),
        ("• Hypertension\n- Diabetes", "Hypertension Diabetes"),
        ("| K+ | 6.3 |", "K+ 6.3"),
        ("e\u0301chographie", "\u00e9chographie"),
    ],
)
def test_formatting_folds_to_the_same_tokens(a: str, b: str) -> None:
    assert tokens(a) == tokens(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("K+ 6.3", "K+ 6.8"),
        ("6.3", "63"),
        ("-5", "5"),
        ("< 5", "> 5"),
        ("≥ 5", "> 5"),
        ("45,000", "45000"),
        ("mmol/L", "mmol/kg"),
        ("µmol/L", "umol/L"),
        ("left", "right"),
        ("drug eluting", "drug-eluting"),
        ("5 %", "5"),
        ("x10^9", "x10^12"),
    ],
)
def test_anything_else_stays_different(a: str, b: str) -> None:
    assert tokens(a) != tokens(b)


def test_flags_record_layout() -> None:
    tt = TokenText.of("Hb    131\n- Plt 45 | H\n\nK+ 6.3")
    by_token = dict(zip(tt.tokens(), tt.flags, strict=False))
    assert by_token["131"] & GAP and not by_token["hb"] & GAP
    assert by_token["plt"] & (NEWLINE | BULLET) == NEWLINE | BULLET
    assert by_token["h"] & GAP
    assert tt.glued(tt.tokens().index("+"))  # "K+": the sign is glued to its letter
    assert tt.flags[tt.tokens().index("k")] & SPACE


texts = st.lists(
    st.sampled_from(
        list("abcXYZ019 .,-–:;|•*²⁹µ×^\n\t\r") + ["\u200b", "\u00ad", "\u202e", "  ", "-\n"]
    ),
    max_size=120,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(text=texts)
@example(text="a  \r a")  # a carriage return between wide spaces (found by hypothesis)
@example(text="Hb  121\r\n  g/L  \x0c  LOW  \r")
def test_every_token_points_at_its_original_text(text: str) -> None:
    tt = TokenText.of(text)
    last_end = 0
    for k in range(len(tt)):
        start, end = tt.span(k, k + 1)
        assert last_end <= start < end <= len(text)
        assert tokens(text[start:end]) in ([tt.token(k)], [])  # a lone bullet is layout
        last_end = end


@settings(max_examples=200, deadline=None)
@given(text=texts)
def test_tokens_do_not_depend_on_how_the_text_is_cut_into_blocks(text: str) -> None:
    whole = TokenText.of(text)
    canonical.BLOCK_CHARS = 5
    try:
        cut = TokenText.of(text)
    finally:
        canonical.BLOCK_CHARS = 1 << 20
    assert (cut.joined, list(cut.starts), list(cut.ends), cut.flags) == (
        whole.joined,
        list(whole.starts),
        list(whole.ends),
        whole.flags,
    )
