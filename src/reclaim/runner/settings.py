"""What every trial of a run shares: the run's sandbox, judge, caches, gateway and egress.

Its own module so that the trial's phases (runner/lifecycle.py and those it drives) can name it
without importing the trial that drives them: imports in runner/ run one way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from reclaim.budget import Allocator, GpuBackend
from reclaim.gateway import EgressProxy, Gateway
from reclaim.judge import Judge
from reclaim.materials import MaterialCache
from reclaim.runner.recorder import Cancellation
from reclaim.sandbox import Backend, backend
from reclaim.store import RunDir


@dataclass
class TrialSettings:
    """What every trial of a run shares."""

    run_id: str
    run_dir: RunDir
    sandbox: str
    judge: Judge
    hidden: list[Path] = field(default_factory=list)
    budget_scale: float = 1.0
    cancellation: Cancellation = field(default_factory=Cancellation)
    gateway: Gateway | None = None
    model: str | None = None
    allocator: Allocator | None = None
    gpu_backend: GpuBackend | None = None
    cache: MaterialCache | None = None
    """Where materials are fetched to and bound from; default ~/.cache/reclaim/materials."""
    image: str | None = None
    """The container image for tasks that name none (--image)."""
    egress: EgressProxy | None = None
    """The run's egress proxy: the only way from a sandbox to other hosts."""
    package_hosts: list[str] = field(default_factory=list)
    """The package indexes this machine's pip, uv, conda and npm use (the 'packages' policy)."""
    index_env: dict[str, str] = field(default_factory=dict)
    """The same indexes, as the variables that point a sandbox's pip, uv and npm at them."""

    @property
    def kind(self) -> type[Backend]:
        return backend(self.sandbox)
