"""`reclaim run --resume RUN`: a resumed run keeps its plan; only where and how it is shown may change."""

from __future__ import annotations

from pathlib import Path

import typer

from reclaim.cli.common import fail
from reclaim.runner.run import relocate_suite
from reclaim.store import RunDir, find_run
from reclaim.suites import resolve_suite

ON_RESUME = {"resume", "executor", "suite", "format", "runs_root"}
"""The options --resume takes: --executor (switch where trials run), --suite (the suite moved; its
tasks must hash the same), --format, --runs-root (where to find a run given by id)."""


def refuse_plan_options(ctx: typer.Context) -> None:
    """Every other option given with --resume would change the plan: refuse, naming them."""
    given = [p for p in ctx.command.params if p.name not in ON_RESUME
             and getattr(ctx.get_parameter_source(p.name), "name", "") in ("COMMANDLINE", "ENVIRONMENT")]
    if given:
        flags = ", ".join(p.opts[0] for p in given)
        fail(f"{flags} cannot be used with --resume: a resumed run keeps its plan (agents, seeds, tasks, levels, "
             f"judge, budgets, sandbox) from its run.json; start a new run to change it. With --resume only "
             f"--executor, --suite (a moved suite with unchanged tasks) and --format are taken")


def run_to_resume(resume: Path, suite: str | None, root: Path | None) -> RunDir:
    """The run folder (a path, or a run id in the runs root), with its suite moved to ``suite`` if given."""
    rd = RunDir(find_run(resume, root))
    rd.spec()  # a missing or unreadable run.json: NotFound, one line from cli/main.py
    if suite is not None:
        relocate_suite(rd, resolve_suite(suite))
    return rd
