"""Where a material comes from: one protocol for every kind of source, and the local folder.

A source names its content by a *key* (the same key always means the same bytes: a pinned
commit, a sha256, a folder's stat signature) and can fill an empty folder with that content.
The cache (``reclaim.materials.cache``) decides when to call ``fetch``; sources never touch it.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import random
import shutil
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, TypeVar

from reclaim.materials.errors import MaterialsError

SKIP = frozenset({"__pycache__"})
T = TypeVar("T")


class Source(Protocol):
    """One kind of material source (local folder, git, HTTP, Hub) behind one interface."""

    kind: str
    where: str  # the spec location for messages, e.g. ".../task.yaml: materials.data"

    def key(self) -> str:
        """Names the content: two sources with the same key give the same bytes."""
        ...

    def describe(self) -> str:
        """One line for people: the URL, the commit, the folder."""
        ...

    def fetch(self, dest: Path, scratch: Path) -> int:
        """Fill the empty folder ``dest``; ``scratch`` is a private temporary folder.
        Return the bytes transferred."""
        ...


def problem(where: str, field: str, message: str, fix: str) -> MaterialsError:
    """One clear error: the file and field, what is wrong, and how to fix it."""
    loc = f"{where}.{field}" if field else where
    return MaterialsError(f"{loc}: {message} — fix: {fix}")


class Transient(Exception):
    """A failure worth another try: a 429 or 5xx answer, a dropped connection."""


NO_HOST = ("Name or service not known", "Temporary failure in name resolution", "nodename nor servname")
"""What a resolver says of a host it cannot find: another try finds none either (a machine without the
network, a mistyped host), so it is said at once instead of after every retry's backoff."""


def no_such_host(error: BaseException) -> bool:
    return any(w in str(error) for w in NO_HOST)


def with_retries(call: Callable[[], T], attempts: int = 5, base_s: float = 0.5, max_s: float = 8.0) -> T:
    """``call()``, tried again with exponential backoff and jitter while it raises Transient."""
    for i in range(attempts):
        try:
            return call()
        except Transient:
            if i == attempts - 1:
                raise
            time.sleep(min(max_s, base_s * 2 ** i) * (0.5 + random.random() / 2))
    raise AssertionError("unreachable")


def signature(root: Path) -> str:
    """sha256 over each entry's relative path, type, size, mtime_ns and inode: changes when any
    file does, without reading a byte. ``__pycache__`` folders are skipped."""
    h = hashlib.sha256()
    st = os.lstat(root)
    if not stat.S_ISDIR(st.st_mode):
        h.update(f"{root.name}\0{st.st_mode}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\n".encode())
        return h.hexdigest()
    stack = [root]
    while stack:
        d = stack.pop()
        with os.scandir(d) as it:
            entries = sorted(it, key=lambda e: e.name)
        for e in entries:
            if e.name in SKIP:
                continue
            s = e.stat(follow_symlinks=False)
            rel = os.path.relpath(e.path, root)
            h.update(f"{rel}\0{s.st_mode}\0{s.st_size}\0{s.st_mtime_ns}\0{s.st_ino}\n".encode())
            if stat.S_ISDIR(s.st_mode):
                stack.append(Path(e.path))
    return h.hexdigest()


class LocalSource:
    """A folder or file inside the task folder: imported once, re-imported when it changes."""

    kind = "path"

    def __init__(self, task_dir: Path, rel: str, where: str, field: str = "path"):
        self.where = where
        self.field = field
        self.rel = rel
        task_dir = Path(task_dir).absolute()
        src = (task_dir / rel).absolute()
        if Path(rel).is_absolute() or ".." in Path(rel).parts:
            raise problem(where, field, f"'{rel}' leaves the task folder",
                          "give a path relative to the task folder, without '..'")
        if not src.exists() and not src.is_symlink():
            raise problem(where, field, f"'{rel}' not found in {task_dir}",
                          f"add {src} or correct the path")
        if src.is_symlink():
            raise problem(where, field, f"'{rel}' is a symbolic link",
                          "put the files themselves in the task folder")
        self.src = src
        self._signature = signature(src)

    def key(self) -> str:
        return f"path:{self.src}:{self._signature}"

    def describe(self) -> str:
        return str(self.src)

    def fetch(self, dest: Path, scratch: Path) -> int:
        copied = 0
        if self.src.is_file():
            shutil.copyfile(self.src, dest / self.src.name)
            os.chmod(dest / self.src.name, self.src.stat().st_mode & 0o777)
            copied = self.src.stat().st_size
        else:
            copied = copy_tree(self.src, dest, f"{self.where}.{self.field}")
        if signature(self.src) != self._signature:
            raise problem(self.where, self.field, f"{self.src} changed while it was being imported",
                          "leave the task folder alone while materials are fetched, then try again")
        return copied


def copy_tree(src: Path, dest: Path, where: str) -> int:
    """Copy files, folders and links (as links, never followed) from ``src`` into ``dest``;
    anything else (devices, fifos, sockets) is refused. Return the bytes copied."""
    copied = 0
    stack = [src]
    while stack:
        d = stack.pop()
        with os.scandir(d) as it:
            for e in it:
                if e.name in SKIP:
                    continue
                s = e.stat(follow_symlinks=False)
                out = dest / os.path.relpath(e.path, src)
                if stat.S_ISDIR(s.st_mode):
                    out.mkdir()
                    stack.append(Path(e.path))
                elif stat.S_ISLNK(s.st_mode):
                    os.symlink(os.readlink(e.path), out)
                elif stat.S_ISREG(s.st_mode):
                    shutil.copyfile(e.path, out, follow_symlinks=False)
                    os.chmod(out, s.st_mode & 0o777)
                    copied += s.st_size
                else:
                    raise MaterialsError(f"{where}: '{os.path.relpath(e.path, src)}' is not a file, "
                                         "folder or link (a device, fifo or socket) — fix: remove it")
    return copied


def excluded(rel: str, patterns: list[str]) -> bool:
    """Whether the material path ``rel`` is left out by one of ``patterns``: a path names itself
    and everything under it; a glob matches the path (``**/`` at any depth)."""
    for pat in patterns:
        bare = pat.strip("/")
        if rel == bare or rel.startswith(bare + "/"):
            return True
        if fnmatch.fnmatchcase(rel, bare) or (bare.startswith("**/") and fnmatch.fnmatchcase(rel, bare[3:])):
            return True
    return False


class Excluding:
    """Another source's content with some paths left out (``materials.<kind>.exclude``)."""

    def __init__(self, inner: Source, patterns: list[str]):
        self.inner, self.patterns = inner, sorted(set(patterns))
        self.kind, self.where = inner.kind, inner.where

    def key(self) -> str:
        return f"{self.inner.key()}\0exclude:{json.dumps(self.patterns)}"

    def describe(self) -> str:
        return f"{self.inner.describe()} without {', '.join(self.patterns)}"

    def fetch(self, dest: Path, scratch: Path) -> int:
        got = self.inner.fetch(dest, scratch)
        left = 0
        stack = [dest]
        while stack:
            d = stack.pop()
            with os.scandir(d) as it:
                entries = list(it)
            for e in entries:
                rel = os.path.relpath(e.path, dest).replace(os.sep, "/")
                if excluded(rel, self.patterns):
                    if e.is_dir(follow_symlinks=False):
                        shutil.rmtree(e.path)
                    else:
                        os.unlink(e.path)
                    left += 1
                elif e.is_dir(follow_symlinks=False):
                    stack.append(Path(e.path))
        if left == 0:
            raise problem(self.where, "exclude", f"no path of {self.inner.describe()} matches {self.patterns}",
                          "name paths that the material has (relative to its root), or drop exclude")
        return got
