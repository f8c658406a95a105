"""Who wrote each audit row, which anchors the chain expects, and clocks that ran backwards.

* Attribution: every version-2 row that carries a signature must verify with the key its user
  was enrolled with at that point of the chain. The rows that move a case (decisions, status
  changes, signatures) must be signed; any other row of an enrolled user without a signature
  is a warning (written by a process where they had not signed in). A failed sign-in names the
  user it tried and is, by its nature, not theirs to sign.
* Anchors: the anchor files ``anchors.json`` lists are recorded in the chain when they change
  (`store.anchor.note_anchor_config`). A listed file that is missing, or whose last head is
  behind the chain's (it stopped growing: unmounted, made read-only, replaced), is a problem; a
  file dropped from the list, or a list changed since the last write, is a warning.
* Clocks: rows stamped earlier than the row before them (`store.clock`) are warnings.
"""

from __future__ import annotations

from pathlib import Path

from concord.integrity.report import Problem
from concord.integrity.trail import Trail
from concord.pki.credentials import verify_signature
from concord.store.anchor import configured_anchor_files, read_anchor

MUST_BE_SIGNED = ("sign", "case status")
"""Actions whose rows only their signed-in actor can write (and every `decide (...)`)."""
UNAUTHENTICATED = ("sign-in failed",)
"""Actions that name a user who, by definition, did not sign in."""
MAX_LISTED = 20
"""Warnings of one kind listed one by one; the rest are counted."""

PublicKeys = dict[str, list[tuple[int, str]]]
"""name -> (seq of the enrolment, public key), in chain order."""


def key_at(keys: PublicKeys, name: str, seq: int) -> str | None:
    """The key `name` was enrolled with at chain position `seq`."""
    found = None
    for enrolled_at, key in keys.get(name, []):
        if enrolled_at < seq:
            found = key
    return found


def check_attribution(trail: Trail, keys: PublicKeys) -> tuple[list[Problem], list[Problem]]:
    """(problems, warnings) of the rows' signatures."""
    problems: list[Problem] = []
    for row in trail.signed_rows:
        key = key_at(keys, row.user, row.seq)
        if key is None:
            problems.append(
                Problem(
                    check="attribution",
                    seq=row.seq,
                    subject=row.user,
                    detail=f"'{row.action}' row signed in the name of {row.user!r}, who is not "
                    "an enrolled user there",
                )
            )
        elif not verify_signature(key, row.payload, row.signature):
            problems.append(
                Problem(
                    check="attribution",
                    seq=row.seq,
                    subject=row.user,
                    detail=f"'{row.action}' row is not signed by {row.user}'s key (forged or "
                    "altered)",
                )
            )
    unsigned: list[tuple[int, str, str]] = []
    for seq, user, action in trail.unsigned_rows:
        if action in MUST_BE_SIGNED or action.startswith("decide ("):
            problems.append(
                Problem(
                    check="attribution",
                    seq=seq,
                    subject=user,
                    detail=f"'{action}' row attributed to {user!r} carries no signature of "
                    "theirs: only they, signed in, can write it",
                )
            )
        elif key_at(keys, user, seq) is not None and action not in UNAUTHENTICATED:
            unsigned.append((seq, user, action))
    warnings = [
        Problem(
            check="attribution",
            seq=seq,
            subject=user,
            detail=f"'{action}' row attributed to {user} is not signed by them",
        )
        for seq, user, action in unsigned[:MAX_LISTED]
    ]
    if len(unsigned) > MAX_LISTED:
        warnings.append(
            Problem(
                check="attribution",
                detail=f"{len(unsigned) - MAX_LISTED} more rows of enrolled users are unsigned",
            )
        )
    return problems, warnings


def check_anchor_files(trail: Trail, beside: list[Path]) -> tuple[list[Problem], list[Problem]]:
    """(problems, warnings) of the anchor files Concord writes (see the module doc)."""
    problems: list[Problem] = []
    warnings: list[Problem] = []
    current = [str(p) for p in configured_anchor_files()]
    recorded = trail.anchor_configs[-1][2] if trail.anchor_configs else []
    if trail.anchor_configs and current != recorded:
        seq = trail.anchor_configs[-1][0]
        warnings.append(
            Problem(
                check="anchor",
                seq=seq,
                detail=f"anchors.json lists {current or 'nothing'} but the chain last recorded "
                f"{recorded} (seq {seq}): it was changed or deleted since the last write",
            )
        )
    previous: list[str] = []
    for seq, user, files in trail.anchor_configs:
        for dropped in (f for f in previous if f not in files):
            heads, _bad = read_anchor(Path(dropped))
            last = max((h.seq for h in heads), default=0)
            warnings.append(
                Problem(
                    check="anchor",
                    seq=seq,
                    subject=dropped,
                    detail=f"anchor file dropped from anchors.json (recorded at seq {seq}, "
                    f"{user}): heads are no longer written to it (its last head is seq {last}, "
                    f"the chain is at seq {trail.last_seq})",
                )
            )
        previous = files
    expected = [*beside, *(Path(f) for f in dict.fromkeys([*recorded, *current]))]
    for path in expected:
        problem = _stopped(path, trail.last_seq)
        if problem is not None:
            problems.append(problem)
    return problems, warnings


def _stopped(path: Path, last_seq: int) -> Problem | None:
    if last_seq == 0:
        return None
    if not path.exists():
        return Problem(
            check="anchor",
            subject=str(path),
            detail="anchor file is missing (deleted, or its share is not mounted)",
        )
    heads, _bad = read_anchor(path)
    latest = max((h.seq for h in heads), default=0)
    if latest < last_seq:
        return Problem(
            check="anchor",
            subject=str(path),
            detail=f"anchor file stopped growing: its last head is seq {latest}, the chain is "
            f"at seq {last_seq} (not writable, replaced, or a write failed)",
        )
    return None


def clock_warnings(trail: Trail) -> list[Problem]:
    steps = trail.clock_steps
    warnings = [
        Problem(check="clock", seq=s.seq, subject=s.user, detail=s.describe())
        for s in steps[:MAX_LISTED]
    ]
    if len(steps) > MAX_LISTED:
        warnings.append(
            Problem(check="clock", detail=f"{len(steps) - MAX_LISTED} more backward steps")
        )
    return warnings
