"""Acceptance: a clinician and an admin sign that a (model, resources) combination may be
used for patients, on the figures of a stored validation that meet the site's policy.

An acceptance is a statement stored whole in its audit row (action 'site accept'), signed by
both people's own keys over the same bytes (`pki.credentials.statement_bytes`). Like every
signed statement it carries a version, and version 1 signs exactly `ACCEPTANCE_FIELDS[1]`
(STYLE rule 14); a statement with another field list is not an acceptance, whatever its
signatures. `acceptances` returns only the statements whose form and both signatures verify
against the signers' enrolled keys and roles, so a row written into the database by hand
never makes a model clinical; `acceptance_problems` lists the others for `audit verify`.

What an acceptance covers is exact: the model's SHA-256 and the five resource versions. A
run with anything else is silent (`concord.site.mode`), and `status` says which part of the
installed resources makes an acceptance stale.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from concord.accounts.session import Session, require_role, revocation_of
from concord.domain import ResourceVersions, UserRole
from concord.errors import AuthError, InputError, NotFoundError
from concord.pki.credentials import statement_bytes, verify_signature
from concord.pki.statements import STATEMENT_FIELDS, statement_problem
from concord.site.figures import ModelReport, ResourcesReport
from concord.site.policy import SitePolicy, evaluate
from concord.site.store import SiteStore, report_sha256, require_report
from concord.store import Repository, append_audit, write_transaction
from concord.store.codec import from_json

ACCEPT_ACTION = "site accept"
ACCEPTANCE_VERSION = 1
ACCEPTANCE_FIELDS = STATEMENT_FIELDS["acceptance"]
"""version -> the fields an acceptance of that version signs (besides `version` itself), in
`pki.statements`, beside enrolments and revocations. Never edit a released list."""
MAX_REASON_CHARS = 500
SIGN_OFF_FIELDS = STATEMENT_FIELDS["resources sign-off"]
"""The statement a clinician signs to let a change of resources drop findings clinicians
confirmed (kept inside the resources validation report)."""


def acceptance_problem(statement: Any) -> str | None:
    """Why `statement` is not a well-formed acceptance of a known version (None: it is)."""
    if not isinstance(statement, dict):
        return "the acceptance statement is not an object"
    problem = statement_problem("acceptance", statement)
    if problem is not None:
        return problem
    try:
        ResourceVersions.model_validate(statement["resources"])
    except ValidationError:
        return "the acceptance statement's resource versions are malformed"
    return None


@dataclass(frozen=True)
class Acceptance:
    """A verified acceptance, as read from the chain."""

    statement: dict[str, Any]
    signatures: dict[str, str]
    seq: int

    @property
    def acceptance_id(self) -> str:
        return str(self.statement["acceptance_id"])

    @property
    def model_sha256(self) -> str:
        return str(self.statement["model_sha256"])

    @property
    def model_name(self) -> str:
        return str(self.statement["model_name"])

    @property
    def versions(self) -> ResourceVersions:
        return ResourceVersions.model_validate(self.statement["resources"])

    @property
    def validation_id(self) -> str:
        return str(self.statement["validation_id"])

    def covers(self, model_sha256: str, versions: ResourceVersions) -> bool:
        return self.model_sha256 == model_sha256 and self.versions == versions

    def line(self) -> str:
        """'accepted by Dr A (clinician) and Ann Admin (admin) on 2026-11-27 17:30 UTC'."""
        at = str(self.statement["at"])[:16].replace("T", " ")
        return (
            f"accepted by {self.statement['clinician']} (clinician) and "
            f"{self.statement['admin']} (admin) on {at} UTC, validation {self.validation_id}"
        )

    def to_json(self) -> dict[str, Any]:
        return {**self.statement, "seq": self.seq}


def _rows(repo: Repository) -> list[tuple[int, Any]]:
    rows = repo.db.query(
        "SELECT seq, new_value FROM audit WHERE action = ? ORDER BY seq", [ACCEPT_ACTION]
    )
    return [(int(r["seq"]), from_json(r["new_value"])) for r in rows]


def _problem(repo: Repository, value: Any) -> str | None:
    if not isinstance(value, dict) or not isinstance(value.get("signatures"), dict):
        return "the acceptance row holds no signed statement"
    statement = value.get("statement")
    problem = acceptance_problem(statement)
    if problem is not None:
        return problem
    assert isinstance(statement, dict)
    payload = statement_bytes(statement)
    for field, role in (("clinician", UserRole.CLINICIAN), ("admin", UserRole.ADMIN)):
        name = str(statement[field])
        try:
            user = repo.get_user(name)
        except NotFoundError:
            return f"the {field} {name!r} is not a user of this installation"
        if user.role != role or user.public_key is None:
            return f"{name} signed as {field} but is not an enrolled {role.value}"
        signature = str(value["signatures"].get(field, ""))
        if not verify_signature(user.public_key, payload, signature):
            return f"the {field}'s signature ({name}) does not verify"
    return None


def acceptances(repo: Repository) -> list[Acceptance]:
    """Every acceptance in the chain whose statement and both signatures verify, oldest
    first."""
    found = []
    for seq, value in _rows(repo):
        if _problem(repo, value) is None:
            found.append(Acceptance(value["statement"], dict(value["signatures"]), seq))
    return found


def acceptance_problems(repo: Repository) -> list[tuple[int, str, str]]:
    """(seq, acceptance id, problem) for every 'site accept' row that is not a valid
    acceptance, and for one whose validation report is missing or changed."""
    problems: list[tuple[int, str, str]] = []
    store = SiteStore(repo)
    for seq, value in _rows(repo):
        statement = value.get("statement") if isinstance(value, dict) else None
        subject = str(statement.get("acceptance_id", "?")) if isinstance(statement, dict) else "?"
        problem = _problem(repo, value)
        if problem is None:
            assert isinstance(statement, dict)
            try:
                text = store.report_text(str(statement["validation_id"]))
            except NotFoundError:
                problem = "the validation report it accepts is missing"
            else:
                if report_sha256(text) != statement["report_sha256"]:
                    problem = "the validation report it accepts differs from the one signed"
        if problem is not None:
            problems.append((seq, subject, problem))
    return problems


def sign_off_problems(repo: Repository) -> list[tuple[str, str]]:
    """(validation id, problem) for each resources validation whose sign-off is not a
    version-1 statement signed by an enrolled clinician's key, or signs another report."""
    problems: list[tuple[str, str]] = []
    store = SiteStore(repo)
    for row in store.list_reports():
        if row["kind"] != "resources":
            continue
        report = store.report(str(row["validation_id"]))
        if not isinstance(report, ResourcesReport) or report.sign_off is None:
            continue
        statement = report.sign_off.statement
        problem = statement_problem("resources sign-off", statement)
        if problem is not None:
            pass
        elif statement.get("validation_id") != report.validation_id:
            problem = "the sign-off was made for another validation"
        else:
            try:
                user = repo.get_user(str(statement["user"]))
            except NotFoundError:
                user = None
            if user is None or user.role != UserRole.CLINICIAN or user.public_key is None:
                problem = f"{statement['user']} is not an enrolled clinician"
            elif not verify_signature(
                user.public_key, statement_bytes(statement), report.sign_off.signature
            ):
                problem = "the sign-off's signature does not verify"
        if problem is not None:
            problems.append((report.validation_id, problem))
    return problems


def _require_active(repo: Repository, session: Session) -> None:
    statement = revocation_of(repo, session.name)
    if statement is not None:
        raise AuthError(f"{session.name}'s account was revoked")


def accept(
    repo: Repository,
    validation_id: str,
    *,
    clinician: Session,
    admin: Session,
    reason: str,
    policy: SitePolicy,
) -> Acceptance:
    """Sign and store the acceptance of what validation `validation_id` measured. Refused
    unless the report is intact, its figures meet `policy` (checked again now: the policy
    may have changed since), and a clinician and an admin sign."""
    require_role(clinician, UserRole.CLINICIAN, doing="accept a model for patients")
    require_role(admin, UserRole.ADMIN, doing="countersign an acceptance")
    reason = " ".join(reason.split())
    if not reason:
        raise InputError("an acceptance needs a reason (--reason)", subject=validation_id)
    if len(reason) > MAX_REASON_CHARS:
        raise InputError(f"the reason is longer than {MAX_REASON_CHARS} characters")
    store = SiteStore(repo)
    report = require_report(store, validation_id)
    if isinstance(report, ModelReport):
        failed = [c for c in evaluate(policy, report.candidate, report.accepted) if not c.passed]
        if failed:
            listed = "; ".join(f"{c.name} {c.value} (needs {c.threshold})" for c in failed)
            raise InputError(
                f"the figures do not meet the site policy: {listed}", subject=validation_id
            )
        model_sha, model_name = report.candidate.model_sha256, report.candidate.model_name
        versions = report.resources
    else:
        model_sha, model_name, versions = _resources_target(repo, report)
    statement = {
        "version": ACCEPTANCE_VERSION,
        "acceptance_id": "ACC-" + uuid.uuid4().hex[:12],
        "validation_id": validation_id,
        "validation_kind": report.kind,
        "report_sha256": report_sha256(store.report_text(validation_id)),
        "model_sha256": model_sha,
        "model_name": model_name,
        "resources": versions.as_dict(),
        "policy_sha256": policy.sha256(),
        "clinician": clinician.name,
        "admin": admin.name,
        "reason": reason,
        "at": datetime.now(UTC).isoformat(timespec="microseconds"),
    }
    payload = statement_bytes(statement)
    signatures = {"clinician": clinician.sign(payload), "admin": admin.sign(payload)}
    with write_transaction(repo.db):
        _require_active(repo, clinician)
        _require_active(repo, admin)
        entry = append_audit(
            repo.db.conn,
            signer=admin,
            user=admin.name,
            action=ACCEPT_ACTION,
            entity=f"acceptance:{statement['acceptance_id']}",
            reason=reason,
            new_value={"statement": statement, "signatures": signatures},
            model_sha256=model_sha,
        )
    return Acceptance(statement, signatures, entry.seq)


def _resources_target(
    repo: Repository, report: ResourcesReport
) -> tuple[str, str, ResourceVersions]:
    """What a resources validation accepts: the model it re-adjudicated for, with the
    candidate resources, where no brief needs writing again."""
    if not report.passed:
        raise InputError(
            "the resources validation did not pass (a clinician-confirmed finding is dropped "
            "without a sign-off)",
            subject=report.validation_id,
        )
    if report.needs_model_run:
        raise InputError(
            "the change touches prompts or agent profiles: validate a model on it "
            "(concord validate model NAME --resources DIR) and accept that",
            subject=report.validation_id,
        )
    if not report.model_sha256:
        raise InputError(
            "no accepted model to carry over to the new resources", subject=report.validation_id
        )
    name = next(
        (a.model_name for a in acceptances(repo) if a.model_sha256 == report.model_sha256),
        report.model_sha256[:12],
    )
    return report.model_sha256, name, report.candidate
