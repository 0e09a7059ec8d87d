"""`reclaim agents`: the agents there are, and installing third-party ones."""

from __future__ import annotations

from typing import Annotated

import typer

from reclaim.agents import listing
from reclaim.cli.common import console, fail

agents_app = typer.Typer(help="The agents reclaim can run, and installing third-party ones.",
                         invoke_without_command=True)


@agents_app.callback()
def agents(ctx: typer.Context) -> None:
    """List every agent: whether it is available here and, if not, the command that installs it."""
    if ctx.invoked_subcommand is not None:
        return
    for name, ok, detail in listing():
        mark = "[green]available[/]  " if ok else "[yellow]unavailable[/]"
        console.print(f"[bold]{name:<15}[/] {mark} {detail}", highlight=False, soft_wrap=True)


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
