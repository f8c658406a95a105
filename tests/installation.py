"""Helpers for the attack tests: an installation (an admin, a clinician, an annotator, one
record, one case needing review) and `run` for the command line, passwords in the environment."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from concord.cli import main
from concord.store import Repository
from tests import factories as f
from tests.identity import ADMIN, ADMIN_PASSWORD, PASSWORD, enrol

CLINICIAN = "Dr Smith"
ANNOTATOR = "Ann Otator"
ANNOTATOR_PASSWORD = "label-queue-tuesday"


@dataclass
class Ran:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def make_run(capsys, monkeypatch) -> Callable[..., Ran]:
    def call(*argv: str, password: str | None = None, admin_password: str | None = None) -> Ran:
        for env, value in (
            ("CONCORD_PASSWORD", password),
            ("CONCORD_ADMIN_PASSWORD", admin_password),
        ):
            if value is None:
                monkeypatch.delenv(env, raising=False)
            else:
                monkeypatch.setenv(env, value)
        capsys.readouterr()
        code = main(list(argv))
        captured = capsys.readouterr()
        return Ran(code, captured.out, captured.err)

    return call


def make_installation(repo: Repository) -> Repository:
    enrol(repo, CLINICIAN, "clinician")
    enrol(repo, ANNOTATOR, "annotator", ANNOTATOR_PASSWORD)
    rec = f.record()
    repo.save_record(rec, CLINICIAN)
    repo.save_case(f.case(rec), CLINICIAN)
    return repo


def required_ids(run: Callable[..., Ran]) -> list[str]:
    return list(run("show", "C-1", "--json").json()["outstanding"])


def decide_all(run: Callable[..., Ran], user: str = CLINICIAN, password: str = PASSWORD) -> None:
    for target in required_ids(run):
        how = ["--disposition", "proceed"] if target.endswith("/disposition") else ["--accept"]
        done = run(
            "decide",
            "C-1",
            "--target",
            target,
            *how,
            "--reason",
            "checked",
            "--user",
            user,
            password=password,
        )
        assert done.code == 0, done.err


__all__ = ["ADMIN", "ADMIN_PASSWORD", "PASSWORD"]
