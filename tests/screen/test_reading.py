"""What a reader sees is what the screen reads, and every span maps back to the record."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from concord.screen.reading import SpellingVocabulary, reading_text

INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u200e", "\u200f"]


def test_invisible_characters_are_not_read() -> None:
    assert reading_text("K\u200b+ 6.\u00ad3").text == "K+ 6.3"
    assert reading_text("Pot\u00adassium 4\u200b5").text == "Potassium 45"


def test_full_width_superscripts_and_look_alikes_read_as_seen() -> None:
    assert reading_text("Ｋ＋ ６．２").text == "K+ 6.2"
    assert reading_text("45 ×10⁹/L, AVA 0.8 cm²").text == "45 ×10^9/L, AVA 0.8 cm^2"
    assert reading_text("К+ 6.4").text == "K+ 6.4"  # Cyrillic capital ka
    assert reading_text("EF 25–30 %").text == "EF 25-30 %"


def test_a_right_to_left_override_is_read_in_display_order() -> None:
    # RLO shows "3.6" as "6.3" on screen: the clinician reads 6.3, so does the screen.
    assert reading_text("K+ \u202e3.6\u202c mmol/L").text == "K+ 6.3 mmol/L"


def test_line_endings_and_dotted_acronyms() -> None:
    assert reading_text("A.\r\nB.\rC").text == "A.\nB.\nC"
    assert reading_text("Dx: L.R.T.I. on CXR").text == "Dx: LRTI on CXR"


def test_one_slip_misspellings_read_as_the_word() -> None:
    spelling = SpellingVocabulary(["pneumonia", "bleomycin", "infection"], keep=["injection"])
    read = reading_text("pnuemonia, Bleomicin, chest injection", spelling)
    assert read.text == "pneumonia, Bleomycin, chest injection"


def test_dictation_split_words_and_spelled_letters_read_as_the_term() -> None:
    spelling = SpellingVocabulary(
        ["gastroparesis", "achalasia", "inr", "abvd", "dvt", "septic", "arthritis", "atypical"],
        keep=["typical"],
        abbreviations=["INR", "ABVD", "DVT", "eGFR"],
    )
    read = reading_text("gastro paresis, a chalasia; I N R 2.1 after A B V D; D V T", spelling)
    assert read.text == "gastroparesis, achalasia; INR 2.1 after ABVD; DVT"
    assert reading_text("e G F R 22, a typical pain", spelling).text == "eGFR 22, a typical pain"
    # a real word is never joined to the word before it, nor two lower-case letters read
    assert reading_text("a septic arthritis, grade a b", spelling).text == (
        "a septic arthritis, grade a b"
    )
    original = "Hx: gastro paresis"
    read = reading_text(original, spelling)
    start = read.text.index("gastroparesis")
    a, b = read.span(start, start + len("gastroparesis"))
    assert original[a:b] == "gastro paresis"


def test_a_span_of_a_corrected_word_is_the_written_word() -> None:
    original = "CXR: pnue\u200bmonia"
    spelling = SpellingVocabulary(["pneumonia"])
    read = reading_text(original, spelling)
    start = read.text.index("pneumonia")
    a, b = read.span(start, start + len("pneumonia"))
    assert original[a:b] == "pnue\u200bmonia"


_TEXT = st.text(
    alphabet=st.sampled_from(list("Kk+ 6.3mo/L\nPltΣ５６µ²–") + INVISIBLE + ["\r", "\u202e"]),
    max_size=60,
)


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_every_span_maps_back_inside_the_original(original: str) -> None:
    read = reading_text(original)
    n = len(read.text)
    previous = (0, 0)
    for start in range(n + 1):
        for end in range(start, min(n, start + 6) + 1):
            a, b = read.span(start, end)
            assert 0 <= a <= b <= len(original)
            if end > start and "\u202e" not in original and "." not in original:
                # what the original span reads as holds what was matched (a line feed and
                # the next line's indent read as a space where prose wraps, which its
                # neighbours decide: whitespace is compared as runs)
                alone = _runs(reading_text(original[a:b]).text)
                assert _runs(read.text[start:end]).strip() in alone
        here = read.span(start, start)
        assert here >= previous  # spans move forward with the read text
        previous = here


def _runs(text: str) -> str:
    return re.sub(r"\s+", " ", text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abcK+6.3 \n")), max_size=40), st.data())
def test_inserting_invisible_characters_never_changes_what_is_read(
    base: str, data: st.DataObject
) -> None:
    positions = data.draw(st.lists(st.integers(0, len(base)), max_size=5))
    text = base
    for pos in sorted(positions, reverse=True):
        text = text[:pos] + data.draw(st.sampled_from(INVISIBLE)) + text[pos:]
    assert reading_text(text).text == reading_text(base).text
