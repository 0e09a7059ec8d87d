"""The GPU driver's user-space side: the libraries and tools a trial's programs need to use the
GPUs it was given (libcuda, NVML, nvidia-smi), found where the host keeps them.

Where they live under /usr they are already in a bwrap sandbox, which shows the host's /usr;
elsewhere (a cluster's /opt/nvidia, a module tree) they are bound in read-only under
``DRIVER_INSIDE``. A container shows its image's /usr instead of the host's, so there every
driver file goes under ``DRIVER_INSIDE``, wherever the host keeps it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

DRIVER_INSIDE = "/opt/reclaim/driver"
DIRS_VAR = "RECLAIM_DRIVER_DIRS"
LIBS = ("libcuda.so", "libcudadebugger.so", "libnvidia-ml.so", "libnvidia-ptxjitcompiler.so",
        "libnvidia-nvvm.so", "libnvidia-gpucomp.so", "libnvidia-allocator.so", "libnvidia-cfg.so",
        "libnvidia-opencl.so", "libnvcuvid.so", "libnvidia-encode.so")
TOOLS = ("nvidia-smi", "nvidia-debugdump", "nvidia-cuda-mps-control", "nvidia-cuda-mps-server")
SHOWN = ("/usr/", "/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/")
"""Folders of the host a bwrap sandbox shows already (a container shows its image's)."""

_LDCONFIG = re.compile(r"^\s*(\S+) \(([^)]*)\) => (\S+)$")


def _ldconfig() -> list[str]:
    exe = shutil.which("ldconfig") or "/sbin/ldconfig"
    try:
        out = subprocess.run([exe, "-p"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    found = []
    for line in out.splitlines():
        m = _LDCONFIG.match(line)
        if m and m.group(1).startswith(LIBS) and any(a in m.group(2) for a in ("x86-64", "AArch64", "64bit")):
            found.append(m.group(3))
    return found


def driver_files() -> list[str]:
    """Every driver library and tool this host has: from the linker's cache, $PATH, and the
    folders listed in $RECLAIM_DRIVER_DIRS (colon-separated)."""
    files = set(_ldconfig())
    for tool in TOOLS:
        if (p := shutil.which(tool)) is not None:
            files.add(p)
    for folder in filter(None, os.environ.get(DIRS_VAR, "").split(":")):
        for f in Path(folder).glob("*"):
            if f.is_file() and (f.name.startswith(LIBS) or f.name in TOOLS):
                files.add(str(f))
    return sorted(files)


def placement(files: list[str], shows_host_usr: bool = True) -> list[tuple[str, str]]:
    """(host file, path inside) for the files the sandbox does not already show: where it does not
    show the host's /usr (a container image's hides it), all of them."""
    shown = SHOWN if shows_host_usr else ()
    out = []
    for f in files:
        if shown and os.path.realpath(f).startswith(shown) and f.startswith(shown):
            continue
        sub = "bin" if Path(f).name in TOOLS else "lib"
        out.append((f, f"{DRIVER_INSIDE}/{sub}/{Path(f).name}"))
    return out
