"""`reclaim report`: a run's report, from its trial directories."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from reclaim.cli.common import console, fail
from reclaim.report import FORMATS, build_report, read_metrics, read_reasons, render
from reclaim.store import Outcome, RunDir, Status, TrialRecord


def show_report(rd: RunDir, fmt: str, records: list[TrialRecord] | None = None,
                judge_label: str | None = None, trials: bool = False) -> None:
    records = records if records is not None else rd.records()
    outcomes = None
    if judge_label is not None and judge_label != rd.spec().judge:
        outcomes = {r.trial_id: Outcome(o) for r in records
                    if r.status in (Status.completed, Status.budget_exhausted)
                    and (o := rd.verdict_outcome(r.trial_id, judge_label)) is not None}
        if not outcomes:
            fail(f"no verdicts of judge '{judge_label}' in {rd.path}; run: reclaim judge {rd.path} --judge ...")
    report = build_report(rd.spec(), records, judge=judge_label, outcomes=outcomes, retried=rd.retried(),
                          metrics=read_metrics(rd, records, judge_label, outcomes),
                          reasons=read_reasons(rd, records, judge_label, outcomes))
    text = render(report, fmt, console, trials=trials)
    if text is not None:
        sys.stdout.write(text)


def report(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.")],
    format: Annotated[str, typer.Option("--format", help=f"{', '.join(FORMATS)}.")] = "table",
    judge: Annotated[Optional[str], typer.Option(
        "--judge", help="Show another judge's verdicts (a label such as rules or llm-gpt-4.1).")] = None,
    trials: Annotated[bool, typer.Option(
        "--trials", help="Add a section listing every trial with its outcome, measured vs target, the "
                         "verdict's reason and flags (JSON and CSV always list them).")] = False,
) -> None:
    """Show the report of a run (finished or not) from its trial directories."""
    if format not in FORMATS:
        fail(f"unknown format '{format}'; choose one of {', '.join(FORMATS)}")
    try:
        show_report(RunDir(run_dir), format, judge_label=judge, trials=trials)
    except FileNotFoundError as e:
        fail(str(e))
