"""User names as people read them: NFKC-normalised, and refused when they could be mistaken
for another user's name.

Two names are confusable when their UTS #39 *skeletons* are equal: every character is mapped
to its prototype in Unicode's confusables data (`resources/security/confusables.txt`, the
Unicode 13.0 file as published, "MA" table), after
NFD, and the result is NFD-normalised again; we also case-fold and drop the separators and
invisible characters a reader does not see. "Dr Smith" with a Cyrillic "і" or a Greek
"Ι", "rn" for "m", or "0" for "O" give the same skeleton as the Latin original. A name that
mixes Latin, Greek or Cyrillic letters inside one word is refused outright, so a look-alike
cannot be registered first either.
"""

from __future__ import annotations

import unicodedata
from functools import cache

from concord import paths
from concord.errors import InputError

MAX_NAME_LENGTH = 64
"""RFC 5280 upper bound for a certificate common name; the printed name on a record."""
LOOKALIKE_SCRIPTS = frozenset({"LATIN", "GREEK", "CYRILLIC"})
"""Scripts whose letters imitate each other; one word may not mix them."""
CONFUSABLES_FILE = ("security", "confusables.txt")
"""Where Unicode's confusables data lives under resources/."""


@cache
def _prototypes() -> dict[str, str]:
    """source character -> prototype string, from Unicode's confusables.txt."""
    path = paths.resources_dir().joinpath(*CONFUSABLES_FILE)
    try:
        return _parse(path.read_text(encoding="utf-8-sig"))
    except OSError as exc:
        raise InputError(
            f"Unicode confusables data cannot be read ({exc.strerror or exc})", subject=path
        ) from exc


def _parse(text: str) -> dict[str, str]:
    table: dict[str, str] = {}
    for line in text.splitlines():
        data = line.split("#", 1)[0].strip()
        if not data:
            continue
        fields = [f.strip() for f in data.split(";")]
        if len(fields) < 3 or fields[2] != "MA":
            continue
        source = "".join(chr(int(h, 16)) for h in fields[0].split())
        target = "".join(chr(int(h, 16)) for h in fields[1].split())
        if len(source) == 1:
            table[source] = target
    return table


def normalise_name(name: str) -> str:
    """NFKC, whitespace runs to one space, trimmed; refuses what cannot be a printed name."""
    text = " ".join(unicodedata.normalize("NFKC", name).split())
    if not text:
        raise InputError("the user name must not be empty")
    if len(text) > MAX_NAME_LENGTH:
        raise InputError(f"the user name is longer than {MAX_NAME_LENGTH} characters", subject=text)
    for char in text:
        category = unicodedata.category(char)
        if category in ("Cc", "Cf", "Co", "Cs", "Cn"):
            raise InputError(
                f"the user name contains an invisible or control character "
                f"(U+{ord(char):04X} {unicodedata.name(char, 'unnamed')})",
                subject=text.encode("unicode_escape").decode("ascii"),
            )
    _refuse_mixed_scripts(text)
    return text


PLACEHOLDER_CATEGORIES = frozenset({"Ps", "Pe", "Pi", "Pf", "Sm", "Sk", "So"})
"""Brackets, quotation marks and symbols: what the app and the records write around or
instead of a name ("root (not signed in)", "—", "<unknown>"), never part of one."""
APOSTROPHES = frozenset({"\u2019", "\u02bc"})
"""Typographic apostrophes (O’Neil) are letters' companions, not quotation marks."""
RESERVED_PHRASES = ("not signed in", "no credential", "unverified")
"""Words Concord prints next to a name to say it is not a signed-in user's."""


def check_printed_name(name: str) -> str:
    """A name as it will be printed on records: it holds a letter, and nothing that Concord
    or a reader takes for a placeholder or a note beside a name (brackets, quotation marks,
    symbols, "not signed in"). InputError otherwise. For new enrolments: names enrolled
    before this rule keep working."""
    if not any(c.isalpha() for c in name):
        raise InputError("the user name must contain a letter", subject=name)
    for char in name:
        if unicodedata.category(char) in PLACEHOLDER_CATEGORIES and char not in APOSTROPHES:
            raise InputError(
                f"the user name contains {char!r}: brackets, quotation marks and symbols are "
                "what Concord prints around names (e.g. 'root (not signed in)'), not part of one",
                subject=name,
            )
    folded = " ".join(name.casefold().replace(".", " ").split())
    for phrase in RESERVED_PHRASES:
        if phrase in folded:
            raise InputError(
                f"the user name contains {phrase!r}, which Concord prints beside names that "
                "are not a signed-in user's",
                subject=name,
            )
    return name


def _script(char: str) -> str | None:
    if not char.isalpha():
        return None
    return unicodedata.name(char, "UNKNOWN").split(" ", 1)[0]


def _refuse_mixed_scripts(text: str) -> None:
    for word in text.split():
        scripts = {s for c in word if (s := _script(c)) in LOOKALIKE_SCRIPTS}
        if len(scripts) > 1:
            raise InputError(
                f"the user name mixes {' and '.join(sorted(s.title() for s in scripts))} "
                "letters in one word, as a look-alike of another name would",
                subject=text.encode("unicode_escape").decode("ascii"),
            )


def _skeleton(text: str) -> str:
    table = _prototypes()
    mapped = "".join(table.get(c, c) for c in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def _visible(text: str) -> str:
    return "".join(
        c for c in text if not (unicodedata.category(c).startswith(("Z", "P", "M")) or c.isspace())
    )


def confusable_keys(name: str) -> frozenset[str]:
    """Keys under which a name collides with its look-alikes: the UTS #39 skeletons of the
    name as written, lower-cased and upper-cased (case hides some look-alikes, "I" and "l",
    and shows others, "Ν" and "v"), each without separators, marks and case."""
    text = unicodedata.normalize("NFKC", name)
    return frozenset(
        _visible(_skeleton(form)).casefold() for form in (text, text.casefold(), text.upper())
    )


def skeleton(name: str) -> str:
    """The one key stored (and indexed as unique) for a name: the case-folded skeleton."""
    text = unicodedata.normalize("NFKC", name).casefold()
    return _visible(_skeleton(text)).casefold()


def confusable_with(name: str, others: list[str]) -> str | None:
    """The first of `others` that a reader could mistake for `name`, if any."""
    keys = confusable_keys(name)
    for other in others:
        if keys & confusable_keys(other):
            return other
    return None
