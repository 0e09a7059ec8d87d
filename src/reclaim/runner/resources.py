"""What a trial holds while it runs: its GPUs, its limits, and the monitor of its budget."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from reclaim.budget import (
    DRIVER_INSIDE,
    Allocator,
    BudgetMonitor,
    Deadline,
    Gpu,
    GpuBackend,
    GpuError,
    Limits,
    placement,
)
from reclaim.sandbox import Bind
from reclaim.spec import Budget
from reclaim.store import TrialRecord
from reclaim.trace import TraceWriter

BUDGET_INSIDE = "/run/reclaim-budget"


def time_limit(budget: Budget, scale: float = 1.0) -> float:
    """Seconds a trial may run: the wall-clock limit, or its GPU-hours spread over its GPUs if sooner."""
    seconds = budget.wall_seconds
    if budget.gpus and budget.gpu_hours:
        seconds = min(seconds, budget.gpu_hours / budget.gpus * 3600)
    return seconds * scale


@dataclass
class Resources:
    budget: Budget
    tdir: Path
    gpus: list[Gpu] = field(default_factory=list)
    backend: GpuBackend | None = None
    allocator: Allocator | None = None
    limits: Limits | None = None
    monitor: BudgetMonitor | None = None
    waited_s: float = 0.0
    leftovers: list[str] = field(default_factory=list)
    """cgroups that could not be removed (processes would not die): reported, swept at the next start."""
    shows_host_usr: bool = True
    """The sandbox shows the host's /usr: the driver files there need no bind."""

    @classmethod
    def acquire(cls, budget: Budget, tdir: Path, allocator: Allocator | None, backend: GpuBackend | None,
                what: str, shows_host_usr: bool = True) -> Resources:
        """Take the GPUs the budget asks for (waiting until they are free); fail at once if they
        can never be had."""
        res = cls(budget, tdir, backend=backend, allocator=allocator, shows_host_usr=shows_host_usr)
        if budget.gpus:
            if allocator is None:
                raise GpuError(f"{what} needs {budget.gpus} GPU(s) but this run has none; "
                               "run it where GPUs exist, or pass --gpus")
            t0 = time.monotonic()
            res.gpus = allocator.acquire(budget.gpus, what)
            res.waited_s = time.monotonic() - t0
        return res

    def phase_limits(self) -> Limits:
        """Fresh limits (and so fresh metering) for one phase: the agent, or the re-execution."""
        if self.limits is not None:
            self.leftovers += self.limits.stop()
        self.limits = Limits(memory_mb=int(self.budget.memory_gb * 1024), cpus=self.budget.cpus,
                             gpus=bool(self.gpus)).start()
        return self.limits

    def sandbox_extras(self) -> dict:
        devices = [(g.device, f"/dev/{Path(g.device).name}") for g in self.gpus if g.device]
        if self.gpus and self.backend is not None:
            devices += [(f, f"/dev/{Path(f).name}") for f in self.backend.control_files()]
        lim = self.limits
        return {"devices": devices, "launcher": lim.wrap([]) if lim else [],
                "launcher_env": dict(lim.env) if lim else {}}

    def env(self, deadline_unix: float | None = None) -> dict[str, str]:
        visible = ",".join(str(g.index) for g in self.gpus)
        env = {"CUDA_VISIBLE_DEVICES": visible, "NVIDIA_VISIBLE_DEVICES": visible or "void",
               "RECLAIM_GPUS": visible, "RECLAIM_BUDGET_FILE": f"{BUDGET_INSIDE}/remaining.json",
               "OMP_NUM_THREADS": str(self.budget.cpus), "OPENBLAS_NUM_THREADS": str(self.budget.cpus)}
        if deadline_unix is not None:
            env["RECLAIM_DEADLINE"] = f"{deadline_unix:.0f}"
        return env

    def driver(self) -> list[tuple[str, str]]:
        """The GPU driver's libraries and tools a sandbox lacks, where they go inside."""
        if not self.gpus or self.backend is None:
            return []
        return placement(self.backend.driver_files(), self.shows_host_usr)

    def binds(self) -> list[Bind]:
        (self.tdir / "budget").mkdir(exist_ok=True)
        return [Bind(self.tdir / "budget", BUDGET_INSIDE), *(Bind(Path(h), i) for h, i in self.driver())]

    def path_env(self, env: dict[str, str]) -> dict[str, str]:
        """``env`` with the driver's tools on PATH and its libraries on the loader's path."""
        if not self.driver():
            return env
        out = dict(env)
        out["PATH"] = f"{env.get('PATH', '/usr/bin:/bin')}:{DRIVER_INSIDE}/bin"
        out["LD_LIBRARY_PATH"] = ":".join(filter(None, [f"{DRIVER_INSIDE}/lib", env.get("LD_LIBRARY_PATH")]))
        return out

    def watch(self, deadline: Deadline, trace: TraceWriter, interval: float = 1.0) -> BudgetMonitor:
        self.monitor = BudgetMonitor(deadline, self.tdir / "budget" / "remaining.json", trace, self.gpus,
                                     self.backend, self.budget.gpu_hours, interval).start()
        return self.monitor

    def meter(self) -> tuple[float | None, float | None]:
        """(CPU seconds of this phase so far, GPU-busy seconds so far): None where not metered."""
        cpu = self.limits.usage().cpu_s if self.limits is not None else None
        gpu = self.monitor.busy_gpu_s if self.monitor is not None and self.gpus and self.backend is not None else None
        return cpu, gpu

    def record(self, rec: TrialRecord, phase: str) -> None:
        """Put what the phase used into trial.json."""
        u = self.limits.usage() if self.limits else None
        if phase == "agent":
            if self.monitor is not None:
                self.monitor.stop()
                rec.budget.gpu_hours_busy = round(self.monitor.gpu_hours_busy, 6)
                rec.budget.energy_wh = round(self.monitor.energy_wh, 3)
            rec.budget.gpu_ids = [g.index for g in self.gpus]
            rec.budget.gpu_wait_s = round(self.waited_s, 3)
        if u is not None:
            setattr(rec.budget, f"{phase}_cpu_s", None if u.cpu_s is None else round(u.cpu_s, 3))
            setattr(rec.budget, f"{phase}_peak_memory_mb", None if u.peak_memory_mb is None
                    else round(u.peak_memory_mb, 1))
            if u.oom_killed:
                rec.warnings.append(f"{phase}: the memory limit ({self.budget.memory_gb:g} GiB) stopped a process")
        if self.limits is not None:
            lifted = self.limits.verify()  # read back at the end of the phase: the truth, not the plan
            for item in self.limits.enforced:
                if item not in rec.limits_enforced and item not in lifted:
                    rec.limits_enforced.append(item)
            for item in lifted:
                if item in rec.limits_enforced:
                    rec.limits_enforced.remove(item)
                rec.warnings.append(f"{phase}: the {item} limit no longer held at the end of the phase")

    def release(self) -> None:
        """Give everything back, whatever happened; safe to call twice."""
        if self.monitor is not None:
            self.monitor.stop()
            self.monitor = None
        if self.limits is not None:
            self.leftovers += self.limits.stop()
            self.limits = None
        if self.allocator is not None and self.gpus:
            self.allocator.release(self.gpus)
            self.gpus = []
