"""What every `reclaim` command shares: the consoles and the one way to fail."""

from __future__ import annotations

import typer
from rich.console import Console

console = Console()
err = Console(stderr=True)


def fail(message: str, code: int = 2) -> None:
    """One clear line on stderr, then exit (2: bad usage or input; 1: the work failed)."""
    # never wrapped by us: a path or command in the message must survive copy and paste whole
    err.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)
