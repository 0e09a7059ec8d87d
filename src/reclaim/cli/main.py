"""The `reclaim` command: parsing and display only; the work happens in the pipeline packages.

Commands are registered by import path and imported only when invoked, so that `reclaim --help`
and light commands start without loading model clients, the gateway or the runner.
"""

from typing import TYPE_CHECKING, Annotated, Any

import click
import typer

if TYPE_CHECKING:  # typer (0.2x on) runs on a click of its own: its commands and contexts are that click's
    from typer import _click

from reclaim.cli.helpstyle import CONTEXT, polish
from reclaim.errors import ReclaimError

# name -> ("module:attribute", short help shown in `reclaim --help`). One line per command;
# the attribute is a typer command function or a typer.Typer sub-app.
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("reclaim.cli.run:run", "Run agents on a suite, judge every trial, and print the report."),
    "report": ("reclaim.cli.reports:report", "Show the report of a run (finished or not)."),
    "runs": ("reclaim.cli.runs:runs", "List the runs in the runs root's index."),
    "show": ("reclaim.cli.show:show", "Tell one trial's story: commands, budget, re-execution, verdict."),
    "view": ("reclaim.cli.view:view", "Serve runs' reports in the browser, side by side; trial pages on demand."),
    "judge": ("reclaim.cli.judging:judge", "Judge the finished trials of a run again."),
    "judge-eval": ("reclaim.cli.judging:judge_eval", "Score a judge against gold-labelled trials."),
    "tasks": ("reclaim.cli.tasks:tasks_app", "List, validate and create tasks of a suite."),
    "materials": ("reclaim.cli.materials:materials_app", "Fetch released materials and papers into the cache."),
    "curate": ("reclaim.cli.curate:curate_app", "Draft next year's suite from a venue's accepted papers; review it."),
    "agents": ("reclaim.cli.agents:agents_app", "The agents reclaim can run; install third-party ones."),
    "index": ("reclaim.cli.runs:index_app", "The SQLite index over run directories."),
}


def load_command(name: str) -> "_click.Command":
    """Import one registered command and turn it into a click command named `name`."""
    import importlib

    module, _, attr = COMMANDS[name][0].partition(":")
    obj = getattr(importlib.import_module(module), attr)
    cmd: _click.Command
    if isinstance(obj, typer.Typer):
        cmd = typer.main.get_group(obj)
    else:
        holder = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
        holder.command(name)(obj)
        cmd = typer.main.get_command(holder)
    cmd.name = name
    return polish(cmd)


class LazyGroup(typer.core.TyperGroup):
    """The top-level group: lists commands from the registry, imports one only to run it."""

    _listing = False

    def list_commands(self, ctx: "_click.Context") -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: "_click.Context", cmd_name: str) -> "_click.Command | None":
        if cmd_name not in COMMANDS:
            return None
        if self._listing:  # top-level help: name and short help, nothing imported
            # a plain click command stands in, read for its name and short help (typer's Command class is abstract)
            return click.Command(cmd_name, short_help=COMMANDS[cmd_name][1])  # type: ignore[return-value]
        if cmd_name not in self.commands:
            self.commands[cmd_name] = load_command(cmd_name)
        return self.commands[cmd_name]

    def invoke(self, ctx: "_click.Context") -> Any:
        """Run the command; any of reclaim's own errors ends as its one line and exit status."""
        try:
            return super().invoke(ctx)
        except ReclaimError as e:
            from reclaim.cli.common import fail  # rich loads only when there is something to say

            fail(str(e), e.exit_code)

    def format_help(self, ctx: "_click.Context", formatter: "_click.HelpFormatter") -> None:
        self._listing = True
        try:
            polish(self)
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


app = typer.Typer(cls=LazyGroup, help="reclaim: can AI agents reproduce published research results?",
                  no_args_is_help=False, add_completion=False, pretty_exceptions_enable=False,
                  context_settings=CONTEXT)


@app.callback(invoke_without_command=True)
def main(ctx: typer.Context,
         version: Annotated[bool, typer.Option("--version", help="Print the version.")] = False) -> None:
    if version:
        from reclaim import __version__

        typer.echo(f"reclaim {__version__}")
        raise typer.Exit()
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())
