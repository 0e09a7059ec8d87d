"""Temporary folders that name their owner, so that what a killed reclaim left behind is found and removed.

A run killed with SIGKILL runs no cleanup: its gateway's socket folder, its egress proxy's, its
certificate authority's (the leaves' private key), the sandbox users' /etc files and the environment
builders' scratch stay in the temporary folder for good. Each such folder is made here, named
``reclaim-KIND-PID-<random suffix>`` after the process that owns it; the next reclaim command that sweeps removes
those whose owner is gone (a pid in use again by another process keeps its folder: a leak, never a loss).
A folder with anything mounted inside is left alone and said.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

_OWNED = re.compile(r"^reclaim-[a-z]+(?:-[a-z]+)*-(\d+)-[A-Za-z0-9_]+$")


def owned_tempdir(kind: str) -> Path:
    """A new 0700 folder in the temporary folder, named after this process (kind: lowercase words)."""
    if not re.fullmatch(r"[a-z]+(-[a-z]+)*", kind):
        raise ValueError(f"a temporary folder's kind is lowercase words joined by '-', not {kind!r}")
    return Path(tempfile.mkdtemp(prefix=f"reclaim-{kind}-{os.getpid()}-"))


def owner_of(name: str) -> int | None:
    m = _OWNED.match(name)
    return int(m.group(1)) if m else None


def process_alive(pid: int) -> bool:
    """Is ``pid`` a process now (one we may not signal counts: it exists)?"""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _mounted_under(path: Path) -> bool:
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return True  # cannot tell: leave it
    prefix = str(path).rstrip("/") + "/"
    for line in lines:
        point = line.split()[4].encode().decode("unicode_escape")
        if point == str(path) or point.startswith(prefix):
            return True
    return False


def sweep_tempdirs(root: Path | None = None) -> list[str]:
    """Remove the owned temporary folders of reclaim processes that are gone; say what was removed
    (and what was left: a mount inside, or a folder that would not go)."""
    root = Path(root or tempfile.gettempdir())
    out: list[str] = []
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return out
    for name in names:
        pid = owner_of(name)
        path = root / name
        if pid is None or pid == os.getpid() or process_alive(pid) or path.is_symlink() or not path.is_dir():
            continue
        if _mounted_under(path):
            out.append(f"{path} (left: something is mounted inside)")
            continue
        shutil.rmtree(path, ignore_errors=True)
        out.append(str(path) + (" (could not be removed)" if path.exists() else ""))
    return out
