"""A run's report from its folder: the records, each verdict's reasons and per-number results."""

from __future__ import annotations

from reclaim.errors import ReportError
from reclaim.report.aggregate import Report, build_report
from reclaim.report.claims import read_metrics
from reclaim.report.reasons import read_reasons
from reclaim.store import Outcome, RunDir, Status, TrialRecord


class NoVerdicts(ReportError):
    """The run has no verdicts of the judge asked for."""


def judge_outcomes(rd: RunDir, records: list[TrialRecord], judge: str) -> dict[str, Outcome]:
    """Each finished trial's outcome by another judge than the run's (verdicts/<judge>.json)."""
    outcomes = {r.trial_id: Outcome(o) for r in records
                if r.status in (Status.completed, Status.budget_exhausted)
                and (o := rd.verdict_outcome(r.trial_id, judge)) is not None}
    if not outcomes:
        raise NoVerdicts(f"no verdicts of judge '{judge}' in {rd.path}; run: reclaim judge {rd.path} --judge ...")
    return outcomes


def report_of(rd: RunDir, records: list[TrialRecord] | None = None, judge: str | None = None,
              outcomes: dict[str, Outcome] | None = None) -> tuple[Report, list[TrialRecord]]:
    """The report of the run in ``rd`` (``judge``: by another judge's verdicts, read from the run
    unless ``outcomes`` gives them), and the records it was built from."""
    records = records if records is not None else rd.records()
    if judge is not None and judge != rd.spec().judge and outcomes is None:
        outcomes = judge_outcomes(rd, records, judge)
    report = build_report(rd.spec(), records, judge=judge, outcomes=outcomes, retried=rd.retried(),
                          metrics=read_metrics(rd, records, judge, outcomes),
                          reasons=read_reasons(rd, records, judge, outcomes), interrupted=rd.interrupted())
    return report, records
