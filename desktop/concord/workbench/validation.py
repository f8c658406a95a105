"""The Site validation page's data and job, without Qt: what is accepted and what is stale,
the stored validation reports, the silent runs, and a model validation as a job."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from concord.domain import CaseMode
from concord.resources import Resources
from concord.site import SiteStore, site_status
from concord.site.figures import ModelReport, ResourcesReport
from concord.site.store import require_report
from concord.store import Repository
from concord.validation.chart import Bar, chart_bars
from concord.validation.model_run import ValidationEvent, validate_model
from concord.workbench.model_jobs import Job, JobContext, JobProgress


@dataclass(frozen=True)
class SilentRun:
    case_id: str
    record_name: str
    model_name: str
    created_at: str


@dataclass(frozen=True)
class ValidationOverview:
    status: dict[str, Any]
    reports: tuple[dict[str, Any], ...]
    silent: tuple[SilentRun, ...]

    @property
    def status_lines(self) -> list[str]:
        lines = []
        acceptances = self.status.get("acceptances") or []
        if not acceptances:
            lines.append(
                "No model accepted by this site: the embedded default is accepted for "
                "demonstration only, and its cases say so."
            )
        for row in acceptances:
            state = (
                "current"
                if row["current"]
                else "STALE — changed since: " + ", ".join(row["stale_parts"])
            )
            lines.append(
                f"{row['acceptance_id']}: {row['model_name']} accepted by {row['clinician']} "
                f"and {row['admin']} — {state}"
            )
        return lines


def load_overview(repo: Repository) -> ValidationOverview:
    """Read in the database thread."""
    status = site_status(repo, Resources.installed().versions)
    reports = tuple(SiteStore(repo).list_reports())
    silent = tuple(
        SilentRun(
            c.case_id, c.record_name, repo.get_case(c.case_id).model_name, c.created_at.isoformat()
        )
        for c in repo.list_cases()
        if c.mode is CaseMode.SILENT
    )
    return ValidationOverview(status, tuple(reversed(reports)), silent)


def load_report(repo: Repository, validation_id: str) -> ModelReport | ResourcesReport:
    return require_report(SiteStore(repo), validation_id)


def report_bars(report: ModelReport) -> list[Bar]:
    return chart_bars(report)


def validation_job(model: str, sample: int | None, user: str) -> Job:
    """Validate `model` on the reference set; progress as `JobProgress`; the result is the
    validation id."""

    def job(ctx: JobContext) -> str:
        report = None
        events = validate_model(
            ctx.services,
            model,
            user=user,
            sample=sample,
            should_stop=ctx.should_stop,
            runtime_for=lambda name: ctx.runtime(name, name),
        )
        for event in events:
            assert isinstance(event, ValidationEvent)
            ctx.progress(JobProgress(event.done, event.total, event.message))
            report = event.report or report
        assert report is not None
        return report.validation_id

    return job
