"""A run's report from its folder: the records, each verdict's reasons and per-number results."""

from __future__ import annotations

from reclaim.report.aggregate import Report, build_report
from reclaim.report.claims import read_metrics
from reclaim.report.reasons import read_reasons
from reclaim.store import Outcome, RunDir, TrialRecord


def report_of(rd: RunDir, records: list[TrialRecord] | None = None, judge: str | None = None,
              outcomes: dict[str, Outcome] | None = None) -> tuple[Report, list[TrialRecord]]:
    """The report of the run in ``rd`` (``judge``/``outcomes``: another judge's verdicts), and the
    records it was built from."""
    records = records if records is not None else rd.records()
    report = build_report(rd.spec(), records, judge=judge, outcomes=outcomes, retried=rd.retried(),
                          metrics=read_metrics(rd, records, judge, outcomes),
                          reasons=read_reasons(rd, records, judge, outcomes))
    return report, records
