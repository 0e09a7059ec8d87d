"""Keeping the disk from filling under a trial: room for the harness's records, blame where it is due.

An agent that fills the disk its run folder lives on would otherwise leave its trial unfinished:
the trace cut off, trial.json never written. So each trial keeps a small reserve file beside its
records, and a guard polls the file system's free space every fraction of a second. When free
space runs low, the guard stops the trial's sandbox and then gives the reserve back, so the
harness can write what happened. Whose fault it was follows from who wrote: if this trial's own
workspace and logs took most of the space used since it started, the agent ran out of disk
(``budget_exhausted``); otherwise another trial or program filled it, which is no fault of this
agent (the trial ends ``error`` and is retried).
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

from reclaim.sandbox.untrusted import allocated_bytes

RESERVE_BYTES = 32 << 20
MIN_FREE_BYTES = 64 << 20
MAX_MIN_FREE_BYTES = 512 << 20
RESERVE_NAME = ".reclaim-reserve"


def free_bytes(folder: Path) -> int:
    st = os.statvfs(folder)
    return st.f_bavail * st.f_frsize


def kept_free(folder: Path) -> int:
    """What a trial must leave free on the disk under ``folder`` for the records: 5 % of it, at least
    64 MiB, at most 512 MiB (a small disk is not asked for more than it has)."""
    return min(MAX_MIN_FREE_BYTES, max(MIN_FREE_BYTES, shutil.disk_usage(folder).total // 20))


class DiskGuard:
    """Watches the file system under ``trial_dir`` while ``written`` (the folders the trial's
    programs fill) grow; calls ``stop`` once free space is too low."""

    def __init__(self, trial_dir: Path, written: list[Path], stop: Callable[[], None], interval: float = 0.2):
        self.trial_dir, self.written, self._stop_box = trial_dir, written, stop
        self.interval = interval
        self.min_free = kept_free(trial_dir)
        self.full = False
        self.caused_by_trial = False
        self.detail = ""
        self._reserve = trial_dir / RESERVE_NAME
        self._halt = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="reclaim-disk", daemon=True)
        self._free0 = 0
        self._own0 = 0

    def start(self) -> DiskGuard:
        try:
            fd = os.open(self._reserve, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                os.posix_fallocate(fd, 0, RESERVE_BYTES)
            finally:
                os.close(fd)
        except OSError:
            pass  # no room even for the reserve: the guard below still stops the trial in time
        self._free0 = free_bytes(self.trial_dir)
        self._own0 = self._own()
        self._thread.start()
        return self

    def _own(self) -> int:
        return sum(allocated_bytes(p) for p in self.written if p.is_dir())

    def _loop(self) -> None:
        while not self._halt.wait(self.interval):
            try:
                free = free_bytes(self.trial_dir)
            except OSError:
                continue
            if free >= self.min_free:
                continue
            self.full = True
            used = max(1, self._free0 - free)
            grew = self._own() - self._own0
            # a trial that started without the room kept for records did not fill the disk, whatever it wrote
            self.caused_by_trial = self._free0 >= self.min_free and grew * 2 >= used
            self.detail = (f"the disk under the run folder has {free / 2**20:.0f} MiB free, under the "
                           f"{self.min_free / 2**20:.0f} MiB kept for records; this trial's files grew by "
                           f"{grew / 2**20:.0f} MiB of the {used / 2**20:.0f} MiB used since it started")
            self._stop_box()
            self._give_back()
            return

    def _give_back(self) -> None:
        try:
            self._reserve.unlink()
        except OSError:
            pass

    def stop(self) -> None:
        self._halt.set()
        if self._thread.is_alive():
            self._thread.join(5)
        self._give_back()
