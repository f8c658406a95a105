"""User names (NFKC, UTS #39 confusables, mixed scripts, invisible characters) and the
password policy."""

from __future__ import annotations

import pytest

from concord.accounts.names import confusable_with, normalise_name, skeleton
from concord.accounts.passwords import check_password
from concord.errors import InputError

EXISTING = ["Dr Smith", "Anna Kowalska", "Olga Petrova", "Иван Петров", "Dr O'Neil"]


@pytest.mark.parametrize(
    ("name", "twin"),
    [
        ("DR SMITH", "Dr Smith"),  # case only
        ("Dr. Smith", "Dr Smith"),  # punctuation
        ("Dr Srnith", "Dr Smith"),  # rn for m
        ("DR SMlTH", "Dr Smith"),  # l for I
        ("ΑΝΝΑ Kowalska", "Anna Kowalska"),  # Greek capitals in one word
        ("0lga Petrova", "Olga Petrova"),  # digit zero for O
        ("Ивaн Петров", "Иван Петров"),  # a Latin "a" inside a Cyrillic name (refused as mixed)
        ("Dr O’Neil", "Dr O'Neil"),  # typographic apostrophe
        ("Ｄｒ Ｓｍｉｔｈ", "Dr Smith"),  # fullwidth: NFKC
    ],
)
def test_look_alikes_of_existing_names_are_found(name: str, twin: str) -> None:
    try:
        cleaned = normalise_name(name)
    except InputError as exc:
        assert "mixes" in exc.one_line()
        return
    assert confusable_with(cleaned, EXISTING) == twin


@pytest.mark.parametrize("name", ["Dr Smyth", "Anna Kowalski", "Olga Petrov", "Dr O'Neill"])
def test_different_names_are_not_look_alikes(name: str) -> None:
    assert confusable_with(normalise_name(name), EXISTING) is None


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("Dr Smіth", "mixes Cyrillic and Latin"),
        ("Dr Smiτh", "mixes Greek and Latin"),
        ("Dr\u200bSmith", "invisible"),
        ("Dr Smith\u202e", "invisible"),
        ("   ", "must not be empty"),
        ("x" * 65, "longer than 64"),
    ],
)
def test_names_a_reader_would_misread_are_refused(name: str, why: str) -> None:
    with pytest.raises(InputError, match=why):
        normalise_name(name)


def test_names_in_one_script_are_kept_as_written_after_nfkc() -> None:
    assert normalise_name("  Dr   José  García ") == "Dr José García"
    assert normalise_name("王小明") == "王小明"
    assert normalise_name("Иван Петров") == "Иван Петров"
    assert skeleton("Dr Smith") == skeleton("DR  SMITH")


@pytest.mark.parametrize(
    ("password", "why"),
    [
        ("", "must not be empty"),
        ("12345678", "too short"),
        ("short pass", "too short"),
        ("password1234", "most common"),
        ("qwertyuiop123", "most common"),
        ("qwertyuiopasdf", "too weak"),
        ("Dr Smith rocks 2025", "user name"),
        ("aaaaaaaaaaaaaaaa", "too weak"),
    ],
)
def test_the_password_policy_refuses(password: str, why: str) -> None:
    with pytest.raises(InputError, match=why):
        check_password(password, name="Dr Smith")


@pytest.mark.parametrize("password", ["theatre-list-monday", "correct horse battery staple"])
def test_the_password_policy_accepts_long_unrelated_words(password: str) -> None:
    check_password(password, name="Dr Smith")
