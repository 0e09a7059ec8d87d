"""`reclaim runs` and `reclaim index`: the runs kept, through the SQLite index over run directories."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from reclaim.cli.common import console
from reclaim.store import Index

index_app = typer.Typer(help="The SQLite index over run directories.")


@index_app.command("rebuild")
def index_rebuild(runs_root: Annotated[Path, typer.Argument()] = Path("runs")) -> None:
    """Rebuild runs/index.sqlite from the run directories (the truth)."""
    runs, trials = Index(runs_root).rebuild()
    console.print(f"indexed {runs} runs, {trials} trials into {runs_root / 'index.sqlite'}")


def runs(runs_root: Annotated[Path, typer.Argument()] = Path("runs")) -> None:
    """List the runs in the index with their counts of reproduced trials."""
    rows = Index(runs_root).query(
        "SELECT r.run_id, r.suite, r.agents, COUNT(t.trial_id), "
        "SUM(t.outcome = 'reproduced') FROM runs r LEFT JOIN trials t USING (run_id) "
        "GROUP BY r.run_id ORDER BY r.created")
    for run_id, suite, agent_list, n, k in rows:
        console.print(f"{run_id}  {suite:<10} {n:>4} trials  {k or 0:>4} reproduced  agents {agent_list}")
