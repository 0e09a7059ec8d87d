"""The wheelhouse: the packages a task's environment installs, downloaded where the network is.

``pip download`` fetches each task's requirements (and pip itself, which every environment gets) into
the materials cache's ``wheels/``, as the environment's own build would resolve them (the same
requirements, git URLs through the mirrors, PyTorch's CPU index for a CPU task); a build then looks
there first, and offline only there (materials/environment.py). A bundle carries the folder.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from pydantic import BaseModel, Field

from reclaim.materials.environment import INSTALL_TIMEOUT_S, plan
from reclaim.spec import Task

_FILE = re.compile(r"^(.+?)-(\d[^-]*?)(?:-.*\.whl|\.tar\.gz|\.zip|\.tar\.bz2)$")
_SAID = re.compile(r"^\s*(?:Saved|File was already downloaded) (\S+)\s*$", re.M)
_PIN = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([A-Za-z0-9.+!_-]+)\s*$")


class Wheel(BaseModel):
    file: str = Field(description="The file's name in wheels/.")
    sha256: str
    bytes: int


def normal(name: str) -> str:
    """A distribution's name as wheel file names write it (PEP 427: runs of -_. become _, lower case)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def download(task: Task, into: Path) -> tuple[list[str], str | None]:
    """Every package the task's environment installs, downloaded into ``into`` (or found there): their
    file names, and None or what failed."""
    p = plan(task)
    into.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-input", "--dest", str(into), *p.pip_args, "pip",
           *p.packages]
    if p.version.rsplit(".", 1)[0] != f"{sys.version_info[0]}.{sys.version_info[1]}":
        cmd[4:4] = ["--python-version", p.version.rsplit(".", 1)[0], "--only-binary=:all:"]
    with tempfile.TemporaryDirectory() as tmp:
        if p.requirements:
            req = Path(tmp) / "requirements.txt"
            req.write_text(p.requirements, encoding="utf-8")
            cmd += ["-r", str(req)]
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S,
                                 env=os.environ | {"PIP_DISABLE_PIP_VERSION_CHECK": "1"})
        except subprocess.TimeoutExpired:
            return [], f"pip download ran over {INSTALL_TIMEOUT_S:.0f} s"
    if out.returncode != 0:
        return [], "pip download failed: " + " | ".join((out.stderr or out.stdout).strip().splitlines()[-4:])
    # pip says "Saved <path>" or "File was already downloaded <path>" for each file it put there
    files = [Path(m.group(1)).name for m in _SAID.finditer(out.stdout)]
    return sorted(set(files)), None


def listed(folder: Path, names: set[str] | None = None) -> list[Wheel]:
    """The wheelhouse's files (those named, or all), with their checksums."""
    if not folder.is_dir():
        return []
    out = []
    for f in sorted(folder.iterdir()):
        if f.is_file() and not f.is_symlink() and (names is None or f.name in names):
            out.append(Wheel(file=f.name, sha256=sha256_file(f), bytes=f.stat().st_size))
    return out


def missing(task: Task, folder: Path) -> list[str]:
    """The pinned requirements (``name==version``) of the task's environment that no file in the
    wheelhouse provides: what an offline build would stop at. Unpinned ones are not judged here."""
    held = set()
    for f in folder.iterdir() if folder.is_dir() else []:
        if (d := _dist(f.name)) is not None:  # a pin without a local label takes any: 2.13.0 is 2.13.0+cpu
            held |= {d, (d[0], d[1].split("+", 1)[0])}
    p = plan(task)
    out = []
    for line in [*p.packages, *p.requirements.splitlines()]:
        m = _PIN.match(line.split("#", 1)[0])
        if m is not None and (normal(m.group(1)), m.group(2).lower()) not in held:
            out.append(f"{m.group(1)}=={m.group(2)}")
    return out


def _dist(file: str) -> tuple[str, str] | None:
    """(name, version) of a wheel or source archive's file name."""
    m = _FILE.match(file)
    return (normal(m.group(1)), m.group(2).lower()) if m else None


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
    return h.hexdigest()
