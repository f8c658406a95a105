"""STYLE rule 14 / issue 25 item 1: what is signed or hash-chained carries a version, each
version signs a frozen field list, and the bytes of version 1 are pinned here as the code of
commit 524ad61 produced them, so every stored decision, audit row and statement still
verifies after a field is added."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import ClassVar

import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from concord.domain import Decision, DecisionAction, TargetKind, UserRole
from concord.domain.decision import SIGNED_FIELDS_V1
from concord.pki.credentials import public_key_text, statement_bytes, verify_signature
from concord.pki.statements import statement_problem
from concord.report.record_json import VERSION, read_review_record
from concord.store.audit import HASHED_COLUMNS, row_hash, signed_bytes
from concord.store.decision_rows import decision_from_row, decision_row

PINNED_V1 = (
    '{"action":"override","at":"2025-03-01T09:30:15.123456+00:00","blind":false,'
    '"case_id":"C-1","decision_id":"DEC-pinned","new_value":"negated",'
    '"original_value":"triggered","reason":"haemolysed sample; repeat K+ 4.1",'
    '"role":"clinician","shown":{"model_sha256":"'
    + "ab"
    * 32
    + '","record_id":"R-1"},"spans":[{"end":28,"source_id":"clinic","start":15,'
    '"text":"K+ 6.3 mmol/L"}],"target_id":"gate/hyperkalaemia","target_kind":"gate",'
    '"user":"Dr Smith"}'
).encode()
"""Decision.signed_payload() of `pinned()` at commit 524ad61 (before payload versions)."""


def pinned(**changes: object) -> Decision:
    data: dict[str, object] = {
        "decision_id": "DEC-pinned",
        "case_id": "C-1",
        "target_id": "gate/hyperkalaemia",
        "target_kind": TargetKind.GATE,
        "action": DecisionAction.OVERRIDE,
        "original_value": "triggered",
        "new_value": "negated",
        "reason": "haemolysed sample; repeat K+ 4.1",
        "user": "Dr Smith",
        "at": datetime(2025, 3, 1, 9, 30, 15, 123456, tzinfo=UTC),
        "shown": {"model_sha256": "ab" * 32, "record_id": "R-1"},
        "spans": ({"source_id": "clinic", "start": 15, "end": 28, "text": "K+ 6.3 mmol/L"},),
        "role": UserRole.CLINICIAN,
    }
    data.update(changes)
    return Decision.model_validate(data)


def test_version_1_decision_bytes_are_the_ones_stored_decisions_were_signed_over() -> None:
    decision = pinned()
    assert decision.payload_version == 1
    assert decision.signed_payload() == PINNED_V1
    assert hashlib.sha256(PINNED_V1).hexdigest() == (
        "981a2e2a89e0f3608dae9e52c61bdf1e1688a840688796871499dac939fc4061"
    )
    # fields that are not in version 1's list never change its bytes
    assert pinned(seq=41).signed_payload() == PINNED_V1
    assert tuple(Decision.SIGNED_FIELDS[1]) == SIGNED_FIELDS_V1


class WardDecision(Decision):
    """What a version 2 that adds a field looks like: the field with a default, and a new
    list that names it (and the version itself, so a version cannot be swapped)."""

    ward: str = ""
    SIGNED_FIELDS: ClassVar[dict[int, tuple[str, ...]]] = {
        **Decision.SIGNED_FIELDS,
        2: (*SIGNED_FIELDS_V1, "payload_version", "ward"),
    }


def test_a_field_added_in_version_2_leaves_every_version_1_decision_verifying() -> None:
    key = ed25519.Ed25519PrivateKey.generate()
    public = public_key_text(key.public_key())

    def sign(decision: Decision) -> Decision:
        signature = key.sign(decision.signed_payload())
        import base64

        return decision.model_copy(update={"signature": base64.b64encode(signature).decode()})

    old = sign(pinned())
    stored = decision_row(old)  # the row as it sits in the database
    read_back = WardDecision.model_validate(decision_from_row(stored).model_dump())
    assert read_back.payload_version == 1 and read_back.ward == ""
    assert read_back.signed_payload() == PINNED_V1
    assert verify_signature(public, read_back.signed_payload(), old.signature)

    new = sign(
        WardDecision.model_validate({**pinned().model_dump(), "payload_version": 2, "ward": "7B"})
    )
    assert b'"ward":"7B"' in new.signed_payload() and b'"payload_version":2' in new.signed_payload()
    assert verify_signature(public, new.signed_payload(), new.signature)
    for forged in (
        new.model_copy(update={"ward": "8A"}),  # the new field is signed
        new.model_copy(update={"payload_version": 1}),  # claiming the old list drops it
    ):
        assert not verify_signature(public, forged.signed_payload(), new.signature)


def test_an_unknown_payload_version_is_refused_not_guessed() -> None:
    with pytest.raises(ValueError, match="unknown payload version 9"):
        pinned(payload_version=9).signed_payload()


def test_version_1_audit_rows_hash_as_they_did() -> None:
    row = {
        "seq": 7,
        "at": "2025-03-01T09:30:15.123456+00:00",
        "user": "Dr Smith",
        "workstation": "ws12",
        "action": "decide (override)",
        "entity": "decision:DEC-pinned",
        "old_value": '{"case_id":"C-1"}',
        "new_value": '{"new_value":"negated"}',
        "reason": "haemolysed sample",
        "app_version": "0.1.0",
        "model_sha256": "",
        "prompt_version": "",
        "prev_hash": "a" * 64,
    }
    pinned_hash = "5ce9826b9a969a2e79c87deddcfe71daa7454e8da8e17a9ce5d8ee92ed786514"  # 524ad61
    assert row_hash(row) == pinned_hash
    # migration 5's columns on an old row (defaults 1 and '') change nothing, and sign nothing
    assert row_hash({**row, "row_version": 1, "signature": ""}) == pinned_hash
    assert signed_bytes({**row, "row_version": 1}) is None
    # version 2 hashes its own list, the signature and the version included
    v2 = {**row, "row_version": 2, "signature": "c2ln"}
    assert HASHED_COLUMNS[2][-2:] == ("row_version", "signature")
    assert row_hash(v2) != pinned_hash
    assert row_hash({**v2, "signature": "b3RoZXI="}) != row_hash(v2)
    assert row_hash({**v2, "row_version": 1}) == pinned_hash  # a downgrade no longer matches


def test_enrolment_and_revocation_statements_version_1() -> None:
    enrolment = {
        "name": "Dr Smith",
        "role": "clinician",
        "skeleton": "dr smith",
        "public_key": "AAAA",
        "cert_fingerprint": "ff",
        "enrolled_by": "Dr Admin",
        "at": "2025-03-01T09:00:00.000000+00:00",
    }
    assert statement_bytes(enrolment) == (
        b'{"at":"2025-03-01T09:00:00.000000+00:00","cert_fingerprint":"ff",'
        b'"enrolled_by":"Dr Admin","name":"Dr Smith","public_key":"AAAA","role":"clinician",'
        b'"skeleton":"dr smith"}'
    )
    revocation = {
        "name": "Dr Smith",
        "revoked_by": "Dr Admin",
        "reason": "left the trust",
        "at": "2025-04-01T09:00:00.000000+00:00",
    }
    assert statement_bytes(revocation) == (
        b'{"at":"2025-04-01T09:00:00.000000+00:00","name":"Dr Smith",'
        b'"reason":"left the trust","revoked_by":"Dr Admin"}'
    )
    assert statement_problem("enrolment", enrolment) is None
    assert statement_problem("revocation", revocation) is None
    smuggled = statement_problem("enrolment", {**enrolment, "role_note": "admin too"})
    assert smuggled is not None and "extra: role_note" in smuggled
    assert "unknown version" in str(statement_problem("revocation", {**revocation, "version": 7}))


def test_the_review_record_reader_reads_version_1_and_refuses_newer() -> None:
    v1 = {
        "schema": "concord.review-record/1",
        "decisions": [pinned().model_dump(mode="json", exclude={"payload_version", "seq"})],
    }
    read = read_review_record(v1)
    assert read["version"] == 1
    assert Decision.model_validate(read["decisions"][0]).signed_payload() == PINNED_V1
    assert read_review_record({"schema": "concord.review-record/2", "version": 2})["version"] == 2
    with pytest.raises(ValueError, match=f"reads 1 to {VERSION}"):
        read_review_record({"schema": "concord.review-record/3", "version": 3})
