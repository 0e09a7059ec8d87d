"""`reclaim tasks`: list and validate suites."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table

from reclaim.runner.run import RunError, RunOptions, execute, plan_run
from reclaim.sandbox import check_backend, default_backend
from reclaim.spec import SpecError, load_suite
from reclaim.store import Outcome
from reclaim.suites import resolve_suite

tasks_app = typer.Typer(help="List and validate task suites.")
console = Console()
err = Console(stderr=True)


def _load(suite: Optional[str]):
    try:
        return load_suite(resolve_suite(suite))
    except FileNotFoundError as e:
        err.print(f"[bold red]error:[/] {e}", highlight=False)
        raise typer.Exit(2) from None


@tasks_app.command("list")
def list_tasks(suite: Annotated[Optional[str], typer.Argument(help="Suite folder or bundled name.")] = None) -> None:
    """The tasks of a suite with their level, target and content hash."""
    try:
        s = _load(suite)
    except SpecError as e:
        err.print(f"[bold red]{len(e.problems)} problem(s):[/]\n{e}", highlight=False)
        raise typer.Exit(1) from None
    table = Table(title=f"{s.meta.name} {s.meta.version}: {len(s.tasks)} tasks")
    for col in ("task", "level", "withheld", "metric", "target", "budget", "hash"):
        table.add_column(col, no_wrap=col in ("task", "metric", "hash"))
    arrow = {"higher_is_better": "≥", "lower_is_better": "≤", "match": "≈"}
    for t in s.tasks:
        sp = t.spec
        ms = sp.metrics()
        table.add_row(t.id, sp.level.value, ",".join(sp.withheld()) or "-", ", ".join(m.name for m in ms),
                      ", ".join(f"{arrow[m.direction.value]} {m.value:g}" for m in ms),
                      f"{sp.budget.wall_minutes:g} min, {sp.budget.gpu_hours:g} GPU-h", t.hash[:8])
    console.print(table)


@tasks_app.command("validate")
def validate(
    suite: Annotated[Optional[str], typer.Argument(help="Suite folder or bundled name.")] = None,
    with_reference: Annotated[bool, typer.Option(
        "--with-reference", help="Also run every reference solution in a sandbox and judge it.")] = False,
    sandbox: Annotated[str, typer.Option(help="Sandbox for --with-reference: auto, bwrap, process.")] = "auto",
    jobs: Annotated[int, typer.Option(help="References run at once.")] = 2,
) -> None:
    """Check every task of a suite and list all problems, not just the first."""
    try:
        s = _load(suite)
    except SpecError as e:
        for p in e.problems:
            err.print(f"[red]✗[/] {p}", highlight=False)
        err.print(f"[bold red]{len(e.problems)} problem(s)[/] in {resolve_suite(suite)}")
        raise typer.Exit(1) from None
    console.print(f"[green]✓[/] {s.meta.name} {s.meta.version}: {len(s.tasks)} tasks, specs valid")
    if not with_reference:
        return
    name = default_backend() if sandbox == "auto" else sandbox
    if (why := check_backend(name)) is not None:
        err.print(f"[bold red]error:[/] sandbox '{name}' cannot run here: {why}")
        raise typer.Exit(2)
    with tempfile.TemporaryDirectory(prefix="reclaim-validate-") as tmp:
        try:
            rd = plan_run(RunOptions(suite=s.dir, agents=["reference"], jobs=jobs, sandbox=name,
                                     runs_root=Path(tmp)))
            records = execute(rd)
        except (RunError, SpecError) as e:
            err.print(f"[bold red]error:[/] {e}", highlight=False)
            raise typer.Exit(2) from None
        bad = 0
        for rec in sorted(records, key=lambda r: r.task):
            ok = rec.outcome == Outcome.reproduced
            bad += not ok
            verdict = (rd.trial_dir(rec.trial_id) / "verdict.json")
            detail = verdict.read_text() if not ok and verdict.exists() else (rec.error or "")
            mark = "[green]✓[/]" if ok else "[red]✗[/]"
            console.print(f"{mark} {rec.task}: reference {rec.outcome.value if rec.outcome else rec.status.value}"
                          + (f" (measured {rec.measured:.6g}, target {rec.target:g})" if rec.measured is not None else ""),
                          highlight=False)
            if detail:
                console.print(detail, highlight=False)
    if bad:
        err.print(f"[bold red]{bad} task(s) whose reference misses its own target[/]")
        raise typer.Exit(1)
    console.print(f"[green]✓[/] every reference reproduces its own target ({len(records)} tasks)")
