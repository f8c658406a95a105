"""The password policy (the README states it; 21 CFR 11.300).

A password must:

* be at least `MIN_LENGTH` characters long (and at most `MAX_LENGTH`);
* not be, or contain, the user's name (names of four letters or more);
* not be one of the 30,000 most common passwords (zxcvbn's list, compared without case);
* be rated at least `MIN_SCORE` ("safely unguessable") by zxcvbn, which also counts
  dictionary words, keyboard walks, repeats, sequences and dates.

Passwords are never stored: they unlock the user's credential file (scrypt, see
`concord.pki.credentials`).
"""

from __future__ import annotations

from concord.errors import InputError

MIN_LENGTH = 12
MAX_LENGTH = 1024
MIN_SCORE = 3
"""zxcvbn score 0-4; 3 = safely unguessable (moderate protection against offline attack)."""


def check_password(password: str, *, name: str = "") -> None:
    """Raise InputError naming the first rule the password breaks."""
    who = f" for {name}" if name else ""
    if not password or not password.strip():
        raise InputError(f"the password{who} must not be empty")
    if len(password) < MIN_LENGTH:
        raise InputError(f"the password{who} is too short: use at least {MIN_LENGTH} characters")
    if len(password) > MAX_LENGTH:
        raise InputError(f"the password{who} is longer than {MAX_LENGTH} characters")
    folded = password.casefold()
    compact_name = "".join(name.casefold().split())
    compact = "".join(folded.split())
    if compact_name and (
        compact == compact_name or (len(compact_name) >= 4 and compact_name in compact)
    ):
        raise InputError(f"the password{who} must not contain the user name")

    from zxcvbn import zxcvbn
    from zxcvbn.frequency_lists import FREQUENCY_LISTS

    if folded in set(FREQUENCY_LISTS["passwords"]):
        raise InputError(f"the password{who} is one of the most common passwords")
    result = zxcvbn(password, user_inputs=[name, "concord"] if name else ["concord"])
    if int(result["score"]) < MIN_SCORE:
        hint = result.get("feedback", {}).get("warning") or "it is easy to guess"
        raise InputError(
            f"the password{who} is too weak ({str(hint).rstrip('.').lower()}): "
            "use a longer phrase of unrelated words"
        )
