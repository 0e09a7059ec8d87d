"""The machine's CPUs and memory, shared by the trials that run on it at once."""

from __future__ import annotations

import os
import threading

import psutil


class Capacity:
    """Admits a trial when its CPUs and memory fit beside the others; a trial larger than the
    whole machine runs alone."""

    def __init__(self, cpus: int | None = None, memory_mb: int | None = None):
        self.cpus = cpus or os.cpu_count() or 1
        self.memory_mb = memory_mb or int(psutil.virtual_memory().total / 2**20 * 0.9)
        self._used_cpus = 0
        self._used_mb = 0
        self._cond = threading.Condition()

    def _fit(self, cpus: int, mb: int) -> tuple[int, int]:
        return min(cpus, self.cpus), min(mb, self.memory_mb)

    def acquire(self, cpus: int, memory_mb: int) -> None:
        cpus, mb = self._fit(cpus, memory_mb)
        with self._cond:
            self._cond.wait_for(lambda: self._used_cpus + cpus <= self.cpus and self._used_mb + mb <= self.memory_mb)
            self._used_cpus += cpus
            self._used_mb += mb

    def release(self, cpus: int, memory_mb: int) -> None:
        cpus, mb = self._fit(cpus, memory_mb)
        with self._cond:
            self._used_cpus -= cpus
            self._used_mb -= mb
            self._cond.notify_all()
