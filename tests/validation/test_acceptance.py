"""An acceptance is a versioned statement with an explicit field list, signed by a clinician
and an admin (STYLE rule 14): the bytes of version 1 are pinned, a statement with another
field list or a signature by the wrong person or role is no acceptance."""

from __future__ import annotations

import hashlib

from concord.domain import ResourceVersions
from concord.pki.credentials import statement_bytes
from concord.site.acceptance import (
    ACCEPT_ACTION,
    ACCEPTANCE_FIELDS,
    acceptance_problem,
    acceptance_problems,
    acceptances,
)
from concord.store import Repository, append_audit, write_transaction
from tests.identity import admin_session, enrol

VERSIONS = ResourceVersions(
    gates="1" * 64, lexicon="2" * 64, prompts="3" * 64, agents="4" * 64, scoring="5" * 64
)


def statement(**changes: object) -> dict[str, object]:
    data: dict[str, object] = {
        "version": 1,
        "acceptance_id": "ACC-pinned",
        "validation_id": "VAL-pinned",
        "validation_kind": "model",
        "report_sha256": "ab" * 32,
        "model_sha256": "cd" * 32,
        "model_name": "site-model",
        "resources": VERSIONS.as_dict(),
        "policy_sha256": "ef" * 32,
        "clinician": "Dr Smith",
        "admin": "Dr Admin",
        "reason": "site trial",
        "at": "2026-11-27T18:00:00.000000+00:00",
    }
    data.update(changes)
    return data


def test_version_1_signs_exactly_its_fields_and_its_bytes_are_pinned() -> None:
    assert set(statement()) - {"version"} == set(ACCEPTANCE_FIELDS[1])
    assert acceptance_problem(statement()) is None
    assert hashlib.sha256(statement_bytes(statement())).hexdigest() == (
        "8ac72362a7aeb483a00684daacfb5751be8871c47fd7f2e5f218a79a06219956"
    )
    assert "extra: ward" in (acceptance_problem(statement(ward="B4")) or "")
    assert "unknown version" in (acceptance_problem(statement(version=2)) or "")
    missing = statement()
    del missing["reason"]
    assert "missing: reason" in (acceptance_problem(missing) or "")


def _store(repo: Repository, value: dict[str, object]) -> None:
    with write_transaction(repo.db):
        append_audit(
            repo.db.conn, user="Dr Admin", action=ACCEPT_ACTION, entity="acceptance:x",
            new_value=value,
        )  # fmt: skip


def test_only_a_clinician_and_an_admin_signing_the_same_bytes_accept(repo: Repository) -> None:
    admin = admin_session(repo)
    clinician = enrol(repo, "Dr Smith", "clinician")
    payload = statement_bytes(statement())
    good = {"clinician": clinician.sign(payload), "admin": admin.sign(payload)}
    _store(repo, {"statement": statement(), "signatures": good})
    swapped = {"clinician": admin.sign(payload), "admin": clinician.sign(payload)}
    _store(repo, {"statement": statement(acceptance_id="ACC-2"), "signatures": swapped})
    other = statement_bytes(statement(model_name="another"))
    stale = {"clinician": clinician.sign(other), "admin": admin.sign(other)}
    _store(repo, {"statement": statement(acceptance_id="ACC-3"), "signatures": stale})
    roles = statement(acceptance_id="ACC-4", clinician="Dr Admin", admin="Dr Smith")
    both = statement_bytes(roles)
    _store(repo, {"statement": roles, "signatures": {"clinician": admin.sign(both),
                                                      "admin": clinician.sign(both)}})  # fmt: skip
    found = acceptances(repo)
    assert [a.acceptance_id for a in found] == ["ACC-pinned"]
    assert found[0].versions == VERSIONS and found[0].covers("cd" * 32, VERSIONS)
    problems = {subject: detail for _seq, subject, detail in acceptance_problems(repo)}
    assert "does not verify" in problems["ACC-2"] and "does not verify" in problems["ACC-3"]
    assert "not an enrolled clinician" in problems["ACC-4"]
    assert "report it accepts is missing" in problems["ACC-pinned"]
