"""The Agent protocol: who works on a task inside the sandbox."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from reclaim.runner.recorder import Recorder
from reclaim.sandbox import Bind
from reclaim.spec import Task
from reclaim.trace import TraceWriter


@dataclass
class AgentContext:
    task: Task
    seed: int
    recorder: Recorder
    trace: TraceWriter
    workspace: Path
    """The workspace on the host; the agent's commands see it as ``recorder.sandbox.workspace_inside``."""
    agent_logs: Path
    """Host folder for the agent's own logs (untrusted); bound into the sandbox."""

    def env(self) -> dict[str, str]:
        """The task, described in environment variables for programs in the sandbox."""
        spec = self.task.spec
        sb = self.recorder.sandbox
        ws = sb.workspace_inside
        return {
            "RECLAIM_TASK_ID": spec.id,
            "RECLAIM_LEVEL": spec.level.value,
            "RECLAIM_WORKSPACE": ws,
            "RECLAIM_TASK_FILE": f"{ws}/TASK.md",
            "RECLAIM_PAPER": f"{ws}/paper.md",
            "RECLAIM_METRIC": spec.target.metric,
            "RECLAIM_TARGET_VALUE": repr(spec.target.value),
            "RECLAIM_DIRECTION": spec.target.direction.value,
            "RECLAIM_WALL_SECONDS": f"{self.recorder.deadline.remaining:.0f}",
            "RECLAIM_SEED": str(self.seed),
            "RECLAIM_AGENT_LOGS": sb.inside(self.agent_logs),
        }


@runtime_checkable
class Agent(Protocol):
    name: str

    def binds(self) -> list[Bind]:
        """Extra host paths the agent needs inside the sandbox (read-only unless marked)."""
        ...

    def run(self, ctx: AgentContext) -> None:
        """Work on the task; leave results.json and reproduce.sh in the workspace root."""
        ...
