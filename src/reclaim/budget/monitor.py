"""Keeping a running trial's budget current: the file the agent reads, the 80 % warning, and
GPU metering from the backend's samples."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from reclaim.budget import Deadline
from reclaim.budget.gpus import Gpu, GpuBackend
from reclaim.sandbox.untrusted import allocated_bytes
from reclaim.trace import BudgetEvent, TraceWriter

WARN_AT = 0.8
DISK_EVERY_S = 3.0


class BudgetMonitor:
    """A thread that, every ``interval`` seconds, samples the trial's GPUs and rewrites
    ``file`` with what is left; it warns once in the trace when 80 % is used."""

    def __init__(self, deadline: Deadline, file: Path, trace: TraceWriter, gpus: list[Gpu],
                 backend: GpuBackend | None, gpu_hours_limit: float, interval: float = 1.0):
        self.deadline, self.file, self.trace = deadline, file, trace
        self.gpus, self.backend, self.gpu_hours_limit = gpus, backend, gpu_hours_limit
        self.interval = interval
        self.busy_gpu_s = 0.0
        self.energy_j = 0.0
        self.warned = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="reclaim-budget", daemon=True)
        self._last = time.monotonic()
        self.deadline_unix = time.time() + deadline.remaining
        self.disk: tuple[list[Path], int, Callable[[], None]] | None = None
        self.disk_exceeded = False
        self.disk_used_gb: float | None = None
        self._disk_at = 0.0

    def watch_disk(self, roots: Path | list[Path], limit_bytes: int, on_exceeded: Callable[[], None]) -> BudgetMonitor:
        """Also stop the trial (``on_exceeded``) once the files under ``roots`` (the workspace, and
        the trial's environment, home and /tmp) take more disk than allowed."""
        self.disk = ([roots] if isinstance(roots, Path) else list(roots), limit_bytes, on_exceeded)
        return self

    def _check_disk(self) -> None:
        if self.disk is None or self.disk_exceeded or time.monotonic() - self._disk_at < DISK_EVERY_S:
            return
        self._disk_at = time.monotonic()
        roots, limit, on_exceeded = self.disk
        used = sum(allocated_bytes(r) for r in roots if r.exists())
        if used > limit:
            self.disk_exceeded = True
            self.disk_used_gb = round(used / 2**30, 3)
            self.trace.emit(BudgetEvent, phase="agent", what="disk_exhausted",
                            detail=f"the workspace and the trial's environment, home and /tmp take {used / 2**30:.2f} "
                                   f"GiB of disk, over the budget of {limit / 2**30:.2f} GiB; process tree stopped")
            on_exceeded()

    def start(self) -> BudgetMonitor:
        self.file.parent.mkdir(parents=True, exist_ok=True)
        self._tick()
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop ticking (once; later calls do nothing) after a last update."""
        if self._stop.is_set():
            return
        self._stop.set()
        self._thread.join(5)
        self._tick()

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self._tick()
            self._check_disk()

    def _tick(self) -> None:
        now = time.monotonic()
        dt, self._last = now - self._last, now
        if self.backend is not None and self.gpus:
            for s in self.backend.sample([g.index for g in self.gpus]):
                self.busy_gpu_s += s.util * dt
                self.energy_j += s.power_w * dt
        used = self.deadline.elapsed / self.deadline.seconds if self.deadline.seconds else 1.0
        if used >= WARN_AT and not self.warned:
            self.warned = True
            self.trace.emit(BudgetEvent, phase="agent", what="warning",
                            detail=f"{100 * WARN_AT:.0f} % of the wall-clock budget used; "
                                   f"{self.deadline.remaining:.0f} s left")
        state = {
            "deadline_unix": round(self.deadline_unix, 3),
            "remaining_s": round(self.deadline.remaining, 1),
            "limit_s": round(self.deadline.seconds, 1),
            "fraction_used": round(min(1.0, used), 4),
            "gpus": [g.index for g in self.gpus],
            "gpu_hours_allocated": round(len(self.gpus) * self.deadline.elapsed / 3600, 6),
            "gpu_hours_limit": self.gpu_hours_limit,
            "warning": self.warned,
        }
        tmp = self.file.with_suffix(".tmp")
        try:
            tmp.write_text(json.dumps(state) + "\n")
            os.replace(tmp, self.file)
        except OSError:  # a full disk: the agent's view of its budget goes stale; the budget itself still holds
            pass

    @property
    def gpu_hours_busy(self) -> float:
        return self.busy_gpu_s / 3600

    @property
    def energy_wh(self) -> float:
        return self.energy_j / 3600
