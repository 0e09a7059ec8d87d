"""The `reclaim` command: parsing and display only; the work happens in the pipeline packages."""

from __future__ import annotations

from typing import Annotated

import typer

from reclaim import __version__
from reclaim.cli.agents import agents_app
from reclaim.cli.common import console
from reclaim.cli.judging import judge, judge_eval
from reclaim.cli.materials import materials_app
from reclaim.cli.reports import report
from reclaim.cli.run import run
from reclaim.cli.runs import index_app, runs
from reclaim.cli.show import show
from reclaim.cli.tasks import tasks_app

app = typer.Typer(help="reclaim: can AI agents reproduce published research results?",
                  no_args_is_help=False, add_completion=False, pretty_exceptions_enable=False)
app.command()(run)
app.command()(report)
app.command()(runs)
app.command()(show)
app.add_typer(tasks_app, name="tasks")
app.add_typer(materials_app, name="materials")
app.add_typer(agents_app, name="agents")
app.add_typer(index_app, name="index")
app.command("judge")(judge)
app.command("judge-eval")(judge_eval)


@app.callback(invoke_without_command=True)
def main(ctx: typer.Context,
         version: Annotated[bool, typer.Option("--version", help="Print the version.")] = False) -> None:
    if version:
        console.print(f"reclaim {__version__}")
        raise typer.Exit()
    if ctx.invoked_subcommand is None:
        console.print(ctx.get_help())
