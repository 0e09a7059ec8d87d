"""Memory, CPU and process limits: cgroups where the machine lets us, rlimits otherwise.

A trial's commands start through a one-line shell that puts itself in the trial's cgroups and
then execs the sandbox, so nothing the trial starts escapes them. The same cgroups meter what
the trial used: CPU time, peak memory, and whether the memory limit killed something.
"""

from __future__ import annotations

import os
import re
import resource
import secrets
import shutil
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

from reclaim.tempdirs import process_alive

ROOT = Path("/sys/fs/cgroup")
PREFIX = "reclaim-"
_OWNED = re.compile(r"^reclaim-(\d+)-[0-9a-f]+$")
STOP_WAIT_S = 5.0
NOFILE = 65536
JOIN = 'for p in $RECLAIM_CGROUPS; do echo $$ > "$p/cgroup.procs" || exit 125; done; exec "$@"'


@dataclass
class Usage:
    cpu_s: float | None = None
    peak_memory_mb: float | None = None
    oom_killed: bool = False


@dataclass
class Limits:
    """The limits of one phase of one trial, and what enforces them."""

    memory_mb: int
    cpus: int
    pids: int = 4096
    gpus: bool = False
    enforced: list[str] = field(default_factory=list)
    _groups: dict[str, Path] = field(default_factory=dict)
    _prefix: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    _written: dict[Path, str] = field(default_factory=dict)

    def start(self) -> Limits:
        name = f"{PREFIX}{os.getpid()}-{secrets.token_hex(6)}"  # the owner's pid: a sweep knows a dead run's
        if (ROOT / "cgroup.controllers").exists():
            self._v2(name)
        elif (ROOT / "memory").is_dir():
            self._v1(name)
        if self._groups:
            self.env["RECLAIM_CGROUPS"] = " ".join(str(p) for p in self._groups.values())
            self._prefix = ["sh", "-c", JOIN, "reclaim-join"]
        elif shutil.which("prlimit"):
            # RLIMIT_AS breaks CUDA, which reserves address space far beyond what it uses
            # an unprivileged harness cannot raise a hard limit: ask for no more than it has
            hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
            nofile = NOFILE if hard == resource.RLIM_INFINITY else min(NOFILE, hard)
            opts = [f"--nofile={nofile}"] + ([] if self.gpus else [f"--as={self.memory_mb * 2**20}"])
            self._prefix = ["prlimit", *opts, "--"]
            self.enforced += ["open_files (rlimit)"] + ([] if self.gpus else ["memory (rlimit, address space)"])
        return self

    def _try(self, path: Path, value: str) -> bool:
        try:
            path.write_text(value)
        except OSError:
            return False
        self._written[path] = value
        return True

    def verify(self) -> list[str]:
        """The enforced limits whose cgroup settings no longer read back as written: set from
        outside and owned by root, they should never change, and trial.json must say so if they did."""
        changed = {p.name for p, v in self._written.items() if _read(p).split() != v.split()}
        by_file = {"memory.max": "memory", "memory.limit_in_bytes": "memory", "pids.max": "processes",
                   "cpu.max": "cpu", "cpu.cfs_quota_us": "cpu", "cpu.cfs_period_us": "cpu",
                   "memory.swap.max": "memory", "memory.memsw.limit_in_bytes": "memory"}
        kinds = {by_file.get(name, name) for name in changed}
        return [e for e in self.enforced if e.split(" ", 1)[0] in kinds]

    def _v1(self, name: str) -> None:
        for ctl in ("memory", "pids", "cpu", "cpuacct"):
            base = ROOT / ctl
            if not base.is_dir():
                continue
            try:
                (base / name).mkdir()
            except OSError:
                continue
            self._groups[ctl] = base / name
        g = self._groups
        if "memory" in g and self._try(g["memory"] / "memory.limit_in_bytes", str(self.memory_mb * 2**20)):
            self._try(g["memory"] / "memory.memsw.limit_in_bytes", str(self.memory_mb * 2**20))  # no swap escape
            self.enforced.append("memory (cgroup v1)")
        if "pids" in g and self._try(g["pids"] / "pids.max", str(self.pids)):
            self.enforced.append("processes (cgroup v1)")
        if "cpu" in g and self._try(g["cpu"] / "cpu.cfs_period_us", "100000") and \
                self._try(g["cpu"] / "cpu.cfs_quota_us", str(self.cpus * 100000)):
            self.enforced.append("cpu (cgroup v1)")

    def _v2(self, name: str) -> None:
        base = ROOT / name
        try:
            base.mkdir()
        except OSError:
            return
        self._groups["unified"] = base
        if self._try(base / "memory.max", str(self.memory_mb * 2**20)):
            self._try(base / "memory.swap.max", "0")
            self.enforced.append("memory (cgroup v2)")
        if self._try(base / "pids.max", str(self.pids)):
            self.enforced.append("processes (cgroup v2)")
        if self._try(base / "cpu.max", f"{self.cpus * 100000} 100000"):
            self.enforced.append("cpu (cgroup v2)")

    def wrap(self, argv: list[str]) -> list[str]:
        return self._prefix + argv

    def usage(self) -> Usage:
        u = Usage()
        g = self._groups
        try:
            if "unified" in g:
                stat = dict(line.split() for line in (g["unified"] / "cpu.stat").read_text().splitlines())
                u.cpu_s = int(stat.get("usage_usec", 0)) / 1e6
                peak = g["unified"] / "memory.peak"
                u.peak_memory_mb = int(peak.read_text()) / 2**20 if peak.exists() else None
                events = dict(line.split() for line in (g["unified"] / "memory.events").read_text().splitlines())
                u.oom_killed = int(events.get("oom_kill", 0)) > 0
            if "memory" in g:
                u.peak_memory_mb = int((g["memory"] / "memory.max_usage_in_bytes").read_text()) / 2**20
                control = _read(g["memory"] / "memory.oom_control")
                kills = [int(line.split()[1]) for line in control.splitlines() if line.startswith("oom_kill ")]
                u.oom_killed = kills[0] > 0 if kills else int((g["memory"] / "memory.failcnt").read_text()) > 0
            for ctl in ("cpuacct", "cpu"):
                if ctl in g and (g[ctl] / "cpuacct.usage").exists():
                    u.cpu_s = int((g[ctl] / "cpuacct.usage").read_text()) / 1e9
                    break
        except (OSError, ValueError):
            pass
        return u

    def stop(self) -> list[str]:
        """Kill whatever still runs in the phase's cgroups (a fork bomb's last children) and remove
        them; return the ones that could not be removed (sweep() removes them at the next start)."""
        left = [str(p) for p in self._groups.values() if not remove_group(p)]
        self._groups.clear()
        return left


def remove_group(path: Path, wait: float = STOP_WAIT_S) -> bool:
    """SIGKILL every process in the cgroup until none is left, then remove it; True when gone."""
    deadline = time.monotonic() + wait
    while True:
        if (path / "cgroup.kill").exists():  # v2: the kernel kills the whole group at once
            try:
                (path / "cgroup.kill").write_text("1")
            except OSError:
                pass
        pids = _pids(path)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            path.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)  # a cgroup stays busy for a moment after its last process died


def _pids(path: Path) -> list[int]:
    try:
        return [int(x) for x in (path / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def sweep() -> list[str]:
    """Remove the cgroups of reclaim processes that are gone (a killed run, or one whose cgroup
    stayed busy); return what was removed and what could not be. Groups of living owners stay."""
    hierarchies = [ROOT] if (ROOT / "cgroup.controllers").exists() else \
        [ROOT / c for c in ("memory", "pids", "cpu", "cpuacct") if (ROOT / c).is_dir() and not (ROOT / c).is_symlink()]
    out = []
    for h in hierarchies:
        try:
            names = [n for n in os.listdir(h) if n.startswith(PREFIX)]
        except OSError:
            continue
        for name in names:
            m = _OWNED.match(name)
            if m and process_alive(int(m.group(1))):
                continue
            if m is None:  # a group from before groups named their owner: removed only if empty
                if _pids(h / name):
                    continue
                try:
                    (h / name).rmdir()
                    out.append(str(h / name))
                except OSError:
                    pass
                continue
            out.append(f"{h / name}" + ("" if remove_group(h / name, wait=1.0) else " (could not be removed)"))
    return out




def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""
