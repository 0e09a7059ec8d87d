"""The Agent protocol: who works on a task inside the sandbox."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from reclaim.runner.recorder import Recorder
from reclaim.sandbox import Bind, identity, untrusted
from reclaim.spec import Task
from reclaim.trace import TraceWriter

CLAIM_VARS = ("RECLAIM_TARGET_VALUE", "RECLAIM_METRICS")
"""The variables that state the paper's numbers: an agent gets them while it works; no re-execution
does (a reproduce.sh that prints one computes nothing, and no literal in a file shows it)."""


class Skipped(Exception):
    """The agent does not apply to this task (an adversarial baseline on a task with no weakened
    experiment): the trial ends ``skipped`` with this message as its note, counted neither as the
    agent's failure nor as the harness's."""


@dataclass
class ModelAccess:
    """A trial's account at the run's model gateway."""

    host_url: str
    """The gateway as the harness reaches it (http://127.0.0.1:PORT)."""
    token: str
    """The trial's own bearer token; never a provider key."""
    name: str | None = None
    """The model the run asked for (--model), if any."""


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
    model: ModelAccess | None = None
    """The trial's way to a model, when the run has a gateway."""

    def write_workspace(self, rel: str, text: str, mode: int = 0o644) -> None:
        """Write into the workspace as the agent's own file, never through a link it made."""
        untrusted.write_bytes(self.workspace, rel, text.encode("utf-8"), mode, owner=identity.current().owner)

    def write_log(self, rel: str, text: str) -> None:
        """Write into the agent's log folder (bound writable into its sandbox), never through a link."""
        untrusted.write_bytes(self.agent_logs, rel, text.encode("utf-8"), owner=identity.current().owner)

    def read_log(self, rel: str, limit: int = 16 << 20) -> str | None:
        """A file the agent's program left in its log folder, read as untrusted bytes."""
        try:
            return untrusted.read_head(self.agent_logs, rel, limit)[0].decode("utf-8", "replace")
        except untrusted.Untrusted:
            return None

    def give(self, path: Path) -> None:
        """Hand what the harness put in the workspace to the sandbox's user."""
        identity.current().give_tree(path) if path.is_dir() else identity.current().give(path)

    def model_env(self) -> dict[str, str]:
        """What points programs inside the sandbox at the gateway, with the trial's own token."""
        if self.model is None:
            return {}
        url = self.recorder.sandbox.gateway_url(self.model.host_url)
        env = {
            "OPENAI_BASE_URL": f"{url}/v1", "OPENAI_API_BASE": f"{url}/v1", "OPENAI_API_KEY": self.model.token,
            "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": self.model.token,
            "GOOGLE_GEMINI_BASE_URL": url, "GEMINI_API_KEY": self.model.token,
        }
        if self.model.name:
            env["RECLAIM_MODEL"] = self.model.name
        return env

    def env(self) -> dict[str, str]:
        """The task, described in environment variables for programs in the sandbox."""
        spec = self.task.spec
        sb = self.recorder.sandbox
        ws = sb.workspace_inside
        primary = next(m for m in spec.metrics() if m.name == spec.target.primary)
        return {
            "RECLAIM_TASK_ID": spec.id,
            "RECLAIM_LEVEL": spec.level.value,
            "RECLAIM_WORKSPACE": ws,
            "RECLAIM_TASK_FILE": f"{ws}/TASK.md",
            "RECLAIM_PAPER": f"{ws}/paper.md",
            "RECLAIM_METRIC": primary.name,
            "RECLAIM_TARGET_VALUE": repr(primary.value),
            "RECLAIM_DIRECTION": primary.direction.value,
            "RECLAIM_METRICS": json.dumps({m.name: m.value for m in spec.metrics()}),
            "RECLAIM_WALL_SECONDS": f"{self.recorder.deadline.remaining:.0f}",
            "RECLAIM_SEED": str(self.seed),
            "RECLAIM_AGENT_LOGS": sb.inside(self.agent_logs),
        } | self.model_env()


class Baseline:
    """For agents that run on the harness's own files: nothing extra to bind, no model."""

    needs_model = False
    audited = False

    def binds(self, hidden: Sequence[Path] = ()) -> list[Bind]:
        return []


@runtime_checkable
class Agent(Protocol):
    name: str
    needs_model: bool
    """Whether the run must start the model gateway for this agent."""
    audited: bool
    """A black box: every shell command it runs is also logged by an in-sandbox hook (untrusted)."""

    def binds(self, hidden: Sequence[Path] = ()) -> list[Bind]:
        """Extra host paths the agent needs inside the sandbox (read-only unless marked). ``hidden``
        are host paths no sandbox may see (the run, the suite, the caches): a bind must not show them."""
        ...

    def run(self, ctx: AgentContext) -> None:
        """Work on the task; leave results.json and reproduce.sh in the workspace root."""
        ...
