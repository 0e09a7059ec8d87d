"""`reclaim agents`: the agents there are, and installing third-party ones."""

from __future__ import annotations

from typing import Annotated

import typer
from rich import box
from rich.table import Table

from reclaim.agents import listing
from reclaim.cli.common import console, fail

agents_app = typer.Typer(help="The agents reclaim can run, and installing third-party ones.",
                         invoke_without_command=True)


@agents_app.callback()
def agents(ctx: typer.Context) -> None:
    """List every agent: whether it is available here and, if not, the command that installs it."""
    if ctx.invoked_subcommand is not None:
        return
    # readable at 80 columns: the description wraps in its own column, a command is never cut
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True, highlight=False)
    table.add_column("agent", no_wrap=True, style="bold")
    table.add_column("here", no_wrap=True)
    table.add_column("what it is, or how to install it", overflow="fold", ratio=1)
    for name, ok, detail in listing():
        table.add_row(name, "[green]available[/]" if ok else "[yellow]not installed[/]",
                      detail.removeprefix("not installed; "))
    console.print(table)
    console.print("Name an agent for a run with --agent NAME or --agent LABEL=SPEC "
                  "(e.g. --agent mine=command:./agent.sh).", highlight=False)


@agents_app.command("install")
def agents_install(name: Annotated[str, typer.Argument(help="A third-party agent, e.g. mini-swe-agent.")]) -> None:
    """Install a third-party agent where reclaim finds it ($RECLAIM_AGENTS_HOME for Python ones)."""
    import subprocess

    from reclaim.agents.external import TOOLS, install

    if name not in TOOLS:
        fail(f"no third-party agent '{name}'; choose one of {', '.join(TOOLS)}")
    for cmd in install(TOOLS[name]):
        console.print("$ " + " ".join(cmd), highlight=False)
        if subprocess.run(cmd).returncode != 0:
            fail(f"installing {name} failed at: {' '.join(cmd)}", 1)
    console.print(f"[green]installed {name}[/]")
