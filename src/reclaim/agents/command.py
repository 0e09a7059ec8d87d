"""Any executable as an agent: it runs in the sandbox with the task in its environment."""

from __future__ import annotations

import shlex
from pathlib import Path

from reclaim.agents.base import AgentContext
from reclaim.sandbox import Bind

MOUNT = "/run/reclaim-agent"


class CommandAgent:
    """``command:PROGRAM ARGS``. A PROGRAM that is a host file is bound read-only into the sandbox."""

    name = "command"
    needs_model = True
    audited = True

    def __init__(self, command: str):
        if not command.strip():
            raise ValueError("the command agent needs a program: --agent 'command:./my_agent.sh'")
        self.argv = shlex.split(command)
        program = Path(self.argv[0]).expanduser()
        self._host = program.resolve() if program.is_file() else None

    def binds(self) -> list[Bind]:
        if self._host is None:
            return []
        return [Bind(self._host, f"{MOUNT}/{self._host.name}")]

    def run(self, ctx: AgentContext) -> None:
        argv = list(self.argv)
        if self._host is not None:
            argv[0] = ctx.recorder.sandbox.inside(self._host)
            if not (self._host.stat().st_mode & 0o111):
                argv = ["bash" if self._host.suffix == ".sh" else "python3"] + argv
        ctx.recorder.run(argv, env=ctx.env())
