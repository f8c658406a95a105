"""Site validation against the chain: acceptances (both signatures, each signer's role, the
report they accept), resources sign-offs, stored validation reports and resource snapshots
(each against the hash its audit row holds)."""

from __future__ import annotations

import hashlib

from concord.integrity.report import Problem
from concord.resources import files_sha256
from concord.site import SiteStore, acceptance_problems
from concord.site.acceptance import sign_off_problems
from concord.site.store import SNAPSHOT_ACTION, VALIDATION_ACTION
from concord.store import Repository
from concord.store.codec import from_json


def _audited(repo: Repository, action: str) -> dict[str, tuple[int, dict]]:
    rows = repo.db.query(
        "SELECT seq, entity, new_value FROM audit WHERE action = ? ORDER BY seq", [action]
    )
    out: dict[str, tuple[int, dict]] = {}
    for row in rows:
        value = from_json(row["new_value"])
        out.setdefault(
            str(row["entity"]), (int(row["seq"]), value if isinstance(value, dict) else {})
        )
    return out


def check_site(repo: Repository) -> tuple[list[Problem], int]:
    """(problems, acceptances + validations + snapshots checked)."""
    problems = [
        Problem(check="acceptances", seq=seq, subject=subject, detail=detail)
        for seq, subject, detail in acceptance_problems(repo)
    ]
    problems += [
        Problem(check="validations", subject=subject, detail=detail)
        for subject, detail in sign_off_problems(repo)
    ]
    audited = _audited(repo, VALIDATION_ACTION)
    store = SiteStore(repo)
    count = len(problems)
    for row in store.list_reports():
        count += 1
        entity = f"validation:{row['validation_id']}"
        text = store.report_text(str(row["validation_id"]))
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        seq, value = audited.get(entity, (None, {}))
        if seq is None:
            problems.append(
                Problem(check="validations", subject=entity, detail="report not in the audit trail")
            )
        elif value.get("report_sha256") != digest:
            problems.append(
                Problem(
                    check="validations",
                    seq=seq,
                    subject=entity,
                    detail="the stored report differs from the one audited",
                )
            )
    snapshots = _audited(repo, SNAPSHOT_ACTION)
    for row in repo.db.query("SELECT part, sha256, files FROM resource_snapshots"):
        count += 1
        entity = f"resources:{row['part']}:{row['sha256']}"
        files = from_json(row["files"])
        text_sha = hashlib.sha256(str(row["files"]).encode("utf-8")).hexdigest()
        seq, value = snapshots.get(entity, (None, {}))
        if not isinstance(files, dict) or files_sha256(files) != row["sha256"]:
            problems.append(
                Problem(
                    check="resources",
                    seq=seq,
                    subject=entity,
                    detail="the stored files no longer hash to their version",
                )
            )
        elif seq is None or value.get("text_sha256") != text_sha:
            problems.append(
                Problem(
                    check="resources",
                    seq=seq,
                    subject=entity,
                    detail="the stored files differ from the ones audited",
                )
            )
    return problems, count
