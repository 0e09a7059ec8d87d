"""A trial's life as named phases over one context.

A trial is ``prepare`` (records, resources, environment, network, workspace), ``agent`` (the
agent in its sandbox), ``reexecute`` (the agent's reproduce.sh again, and the named re-runs that
check what it depends on), ``judge`` and ``seal``. ``TrialContext.phase(name)`` times a phase,
makes it the current one (a harness failure is recorded with the phase it happened in) and owns
what the phase opens through an exit stack, so a sandbox, a guard, a network namespace or a
model account is closed however the phase ends. How a trial ends early is a named exception
(``BudgetExhausted`` with the limit that stopped it, ``Skipped``, ``Cancelled``), never a status
set in place; any other failure is the harness's and ends the trial ``error``.

Each phase starts at a named failpoint (reclaim/failpoints.py): ``RECLAIM_FAILPOINTS=judge``
makes it fail there, ``judge:kill`` kills the harness there.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reclaim.errors import TrialError
from reclaim.failpoints import failpoint
from reclaim.runner.settings import TrialSettings
from reclaim.runner.views import Shown
from reclaim.sandbox import Backend, Bind
from reclaim.spec import Task, TaskSpec
from reclaim.store import TrialRecord
from reclaim.trace import TraceWriter

if TYPE_CHECKING:
    from reclaim.agents.base import Agent
    from reclaim.materials.workspace import Placed
    from reclaim.runner.environment import TrialEnv
    from reclaim.runner.network import TrialNetwork
    from reclaim.runner.resources import Resources

PHASES = ("prepare", "agent", "reexecute", "judge", "seal")


class OutOfRoom(TrialError):
    """The disk under the run folder has no room for the trial, by no fault of its own: the trial is
    left unfinished for --resume, never an outcome and never a spent attempt (runner/trial.py)."""

TRACE_PHASE = {"prepare": "setup", "agent": "agent", "reexecute": "reexec", "judge": "judge", "seal": "judge"}
"""The trace's label of each phase (the trace format predates the phases' names)."""


class Timer:
    """Seconds spent per name, summed over every time it was entered."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - t0

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds


@dataclass
class TrialContext:
    """Everything one trial's phases share, in place of values passed from hand to hand."""

    settings: TrialSettings
    task: Task
    agent_spec: str
    seed: int
    tdir: Path
    rec: TrialRecord
    trace: TraceWriter
    wall: float
    """The agent's (and each re-run's) wall-clock limit in seconds, budget scale applied."""
    kind: type[Backend]
    """The sandbox backend: asked what it can do, never compared by name."""
    timer: Timer = field(default_factory=Timer)
    current: str = "prepare"
    """The phase running now: a harness failure is recorded under its name."""
    held: ExitStack = field(default_factory=ExitStack)
    """What the agent and re-execution phases share (the trial's GPUs and limits): let go before judging."""
    agent: Agent | None = None
    resources: Resources | None = None
    tenv: TrialEnv | None = None
    net: TrialNetwork | None = None
    image: str | None = None
    placed: Placed | None = None
    views: list[Shown] = field(default_factory=list)
    """The materials as the agent's sandbox shows them: copy-on-write overlays, or read-only binds."""
    writable: bool = False
    """The released materials are the agent's to change (copy-on-write), not read-only."""
    changed: list[str] = field(default_factory=list)
    """Released files the agent changed, added or deleted in place ('<change> <path>')."""
    provided: dict[str, str] = field(default_factory=dict)
    """Every file the harness put in the workspace -> sha256 (materials.json)."""
    agent_env: dict[str, str] = field(default_factory=dict)
    """The variables of the agent's last command: each re-run gets the same."""
    agent_binds: list[Bind] = field(default_factory=list)
    audit_dir: Path | None = None
    """Where a black-box agent's shell audit log is kept; None for agents that are not audited."""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def spec(self) -> TaskSpec:
        return self.task.spec

    @property
    def workspace(self) -> Path:
        return self.tdir / "workspace"

    @contextmanager
    def phase(self, name: str) -> Iterator[ExitStack]:
        """Run one phase: timed as ``<name>_s``, current while it runs, its resources closed at its end."""
        assert name in PHASES, name
        self.current = name
        with self.timer(f"{name}_s"), ExitStack() as stack:
            failpoint(name)
            yield stack

    @property
    def trace_phase(self) -> str:
        return TRACE_PHASE[self.current]
