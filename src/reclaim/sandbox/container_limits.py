"""The limits a container runs under, read from the host: the trial's cgroups (budget/limits.py)
as the container's cgroup parent and the limits written there, and rlimits no higher than the
harness's own (sandbox/container.py passes them to the engine)."""

from __future__ import annotations

import functools
from pathlib import Path


def cgroup_limits(env: dict[str, str]) -> tuple[str | None, int | None, float | None, int | None]:
    """The trial's cgroups (budget/limits.py) as a cgroup parent and the limits written there."""
    paths = [Path(p) for p in env.get("RECLAIM_CGROUPS", "").split()]
    if not paths:
        return None, None, None, None
    mem = cpus = pids = None
    for p in paths:
        for name in ("memory.max", "memory.limit_in_bytes"):
            if (v := _read_int(p / name)) is not None and v < 1 << 62:
                mem = v
        if (v := _read_int(p / "pids.max")) is not None:
            pids = v
        quota = (_read(p / "cpu.max").split() or [""])[0]
        if quota.isdigit():
            cpus = int(quota) / 100000
        elif (q := _read_int(p / "cpu.cfs_quota_us")) and q > 0:
            cpus = q / (_read_int(p / "cpu.cfs_period_us") or 100000)
    return "/" + paths[0].name, mem, cpus, pids


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def _read_int(path: Path) -> int | None:
    raw = _read(path)
    return int(raw) if raw.isdigit() else None


def rlimit(which: str, cap: int) -> int:
    """An explicit rlimit no higher than the harness's own hard one (a rootful engine could hand
    out more, and some kernels refuse more)."""
    import resource

    hard = resource.getrlimit(getattr(resource, which))[1]
    return cap if hard == resource.RLIM_INFINITY else min(cap, hard)


@functools.cache
def pid_max() -> int:
    return _read_int(Path("/proc/sys/kernel/pid_max")) or 32768
