"""`reclaim report`: a run's report, from its trial directories."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from reclaim.cli.common import console, fail
from reclaim.report import FORMATS, NoVerdicts, render, report_of
from reclaim.store import RunDir, TrialRecord, find_run

REPORT_FORMATS = (*FORMATS, "html")


def build(rd: RunDir, records: list[TrialRecord] | None = None, judge_label: str | None = None):
    """The report of a run, from its trial directories (another judge's verdicts where asked)."""
    try:
        return report_of(rd, records, judge_label)
    except NoVerdicts as e:
        fail(str(e))


def show_report(rd: RunDir, fmt: str, records: list[TrialRecord] | None = None,
                judge_label: str | None = None, trials: bool = False, output: Path | None = None) -> None:
    report, records = build(rd, records, judge_label)
    text: str | None
    if fmt == "html":
        from reclaim.report.html import summary_html

        text = summary_html(rd, report, records)
    else:
        text = render(report, fmt, console if output is None else None, trials=trials)
    if text is None:
        return
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
        console.print(f"wrote {output} ({len(text.encode()) / 1024:.0f} KiB)", highlight=False)


def report(
    run_dir: Annotated[Path, typer.Argument(help="A run folder, or its run id as `reclaim runs` lists it.")],
    format: Annotated[str, typer.Option(
        "--format", help=f"{', '.join(REPORT_FORMATS)}; html is one "
                         "self-contained page with a trial page per matrix cell.")] = "table",
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write the report to this file.")] = None,
    judge: Annotated[Optional[str], typer.Option(
        "--judge", help="Show another judge's verdicts (a label such as rules or llm-gpt-4.1).")] = None,
    trials: Annotated[bool, typer.Option(
        "--trials", help="Add a section listing every trial with its outcome, measured vs target, the "
                         "verdict's reason and flags (JSON and CSV always list them).")] = False,
) -> None:
    """Show the report of a run (finished or not) from its trial directories."""
    if format not in REPORT_FORMATS:
        fail(f"unknown format '{format}'; choose one of {', '.join(REPORT_FORMATS)}")
    if format == "table" and output is not None:
        fail("--output takes a file format: --format markdown, json, csv or html")
    try:
        show_report(RunDir(find_run(run_dir)), format, judge_label=judge, trials=trials, output=output)
    except FileNotFoundError as e:
        fail(str(e))
