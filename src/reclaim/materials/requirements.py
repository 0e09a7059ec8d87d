"""What pip is asked for when a task's environment is prepared: git requirements fetched through the
git mirrors (``RECLAIM_GIT_MIRRORS``, as the task's own git materials are), and, for a task with no
GPU, PyTorch's CPU build (the default wheels on Linux carry CUDA: gigabytes a CPU never uses)."""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

import httpx

from reclaim.materials.git import canonical_url, git_mirrors

TORCH_CPU_VAR = "RECLAIM_TORCH_CPU_INDEX"
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
"""Where PyTorch's CPU builds are; ``$RECLAIM_TORCH_CPU_INDEX`` replaces it (a local mirror), and an
empty value leaves pip to its own indexes."""
TORCH_FAMILY = frozenset({"torch", "torchvision", "torchaudio"})
CUDA_PREFIXES = ("nvidia-", "triton")
"""Installed distributions that are CUDA's: what a CPU task's environment should not hold."""

_GIT = re.compile(r"git\+(?P<url>(?:https?|ssh|git)://[^\s@#]+?)(?P<dotgit>\.git)?(?P<rest>[@#][^\s]*)?(?=\s|$)")
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _mirror_url(mirror: str) -> str:
    """A mirror as pip's ``name @ URL`` takes it: older pips refuse ``file:///`` (no host) there."""
    url = mirror if "://" in mirror else Path(mirror).absolute().as_uri()
    return "file://localhost/" + url.removeprefix("file:///") if url.startswith("file:///") else url


def through_mirrors(line: str, mirrors: dict[str, str] | None = None) -> str:
    """``line`` (a requirement, or a requirements file's text) with each git URL a mirror serves
    replaced by the mirror; the ref after ``@`` still pins what is installed."""
    mirrors = git_mirrors() if mirrors is None else mirrors

    def swap(m: re.Match) -> str:
        mirror = mirrors.get(canonical_url(m.group("url")))
        if mirror is None:
            return m.group(0)
        return f"git+{_mirror_url(mirror)}{m.group('rest') or ''}"

    return _GIT.sub(swap, line) if mirrors else line


def names(packages: list[str], text: str) -> set[str]:
    """The distribution names a list of requirements and a requirements file ask for (a bare
    ``git+URL`` names its ``#egg=``)."""
    found = set()
    for line in [*packages, *text.splitlines()]:
        line = line.strip()
        if line.startswith("git+"):
            egg = re.search(r"[#&]egg=([A-Za-z0-9._-]+)", line)
            name = egg.group(1) if egg else None
        elif line and not line.startswith(("-", "#")):
            name = m.group(1) if (m := _NAME.match(line)) else None
        else:
            name = None
        if name:
            found.add(name.lower().replace("_", "-"))
    return found


def cpu_index_args(packages: list[str], text: str, gpus: int) -> list[str]:
    """pip's extra index for PyTorch's CPU build, where a task with no GPU asks for torch: its
    ``+cpu`` versions sort above the same release from PyPI, so pip takes them. An index over HTTP
    that does not answer is left out (pip would retry it for every package, minutes on a machine
    without the network, where a local wheel or mirror serves torch instead): the prepared
    environment's record then shows no CPU index, and lists any CUDA package that came in."""
    index = os.environ.get(TORCH_CPU_VAR, TORCH_CPU_INDEX).strip()
    if gpus or not index or not (names(packages, text) & TORCH_FAMILY) or not answers(index):
        return []
    return ["--extra-index-url", index]


@functools.lru_cache(maxsize=16)
def answers(index: str) -> bool:
    """Whether a package index can be reached: a local one (a path, file://) always; over HTTP, one
    request with a short timeout (any HTTP status counts: the host is there)."""
    if not index.startswith(("http://", "https://")):
        return True
    try:
        httpx.head(index, timeout=5.0, follow_redirects=False)
    except httpx.HTTPError:
        return False
    return True


def cuda_packages(freeze: list[str]) -> list[str]:
    """The CUDA distributions among what was installed (pip freeze lines)."""
    out = []
    for line in freeze:
        name = re.split(r"[=@ <>!~]", line, maxsplit=1)[0].lower()
        if name.startswith(CUDA_PREFIXES) or ("+cu" in line and name in TORCH_FAMILY):
            out.append(line)
    return out


def tree_mb(path: Path) -> float:
    """What a folder holds, in MB (files as stored, links not followed)."""
    total = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_size
            except OSError:
                continue
    return round(total / 1e6, 1)
