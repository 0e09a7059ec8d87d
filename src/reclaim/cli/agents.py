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
    from reclaim.errors import AgentError

    if name not in TOOLS:
        fail(f"no third-party agent '{name}'; choose one of {', '.join(TOOLS)}")
    try:
        cmds = install(TOOLS[name])
    except AgentError as e:  # a Python it needs is not here
        fail(f"cannot install {name}: {e}", 1)
    for cmd in cmds:
        console.print("$ " + " ".join(cmd), highlight=False)
        if subprocess.run(cmd).returncode != 0:
            fail(f"installing {name} failed at: {' '.join(cmd)}", 1)
    console.print(f"[green]installed {name}[/]")


@agents_app.command("try")
def agents_try(
    name: Annotated[str, typer.Argument(help="An agent, e.g. claude-code, codex, gemini-cli, mini-swe-agent.")],
    task: Annotated[str, typer.Option(help="A task of the demo suite.")] = "reimplement-huber-irls",
    sandbox: Annotated[str, typer.Option(help="bwrap, container or process.")] = "bwrap",
    install_it: Annotated[bool, typer.Option("--install/--no-install",
                                             help="Install the agent first where it is not here.")] = True,
    story: Annotated[bool, typer.Option("--show", help="Also tell the trial's story (reclaim show).")] = False,
) -> None:
    """Check an agent's wiring for free: run it on one demo task against reclaim's scripted model
    (a local provider that plays the task's solution through the agent's own shell tool), through
    the gateway, in the sandbox, and show what the trial recorded."""
    from reclaim.agents import TOOLS, availability
    from reclaim.runner.tryout import try_agent

    tool = TOOLS.get(name)
    if tool is not None and not availability(tool)[0]:
        if not install_it:
            fail(f"{name} is not installed: run `reclaim agents try {name}` (it installs it), or {tool.install}")
        console.print(f"{name} is not installed here: installing {tool.package} {tool.version} first", highlight=False)
        agents_install(name)
    tried = try_agent(name, task=task, sandbox=sandbox)
    rec = tried.record
    console.print(f"[bold]{name}[/] on {task}: [bold]{rec.outcome.value if rec.outcome else rec.status}[/]"
                  + (f" ({rec.error})" if rec.error else ""), highlight=False)
    protocols = sorted({f"{c.protocol}{' streamed' if c.stream else ''}" for c in tried.calls})
    console.print(f"model calls: {len(tried.calls)} ({', '.join(protocols) or 'none'}); tokens metered "
                  f"{tried.metered[0]} in / {tried.metered[1]} out, served {tried.served_tokens[0]} / "
                  f"{tried.served_tokens[1]}", highlight=False)
    for model in sorted({c.model for c in tried.calls if c.status == 403}):
        console.print(f"[red]refused: a call for model {model}[/] (not the run's)", highlight=False)
    console.print(f"shell commands it ran (audited): {len(tried.commands)}; transcript steps: {tried.transcript}",
                  highlight=False)
    for w in tried.warnings[:10]:
        console.print(f"[yellow]warning:[/] {w}", highlight=False)
    if story:
        from reclaim.cli.show import show

        show(tried.trial_dir)
    console.print("the trial:", highlight=False)  # the command whole on its own line, to copy at any width
    console.print(f"reclaim show {tried.trial_dir}", highlight=False, soft_wrap=True)
    if not tried.wired:
        raise typer.Exit(1)
    console.print(f"[green]{name} is wired: it reproduced through the gateway, every call metered as served[/]")
