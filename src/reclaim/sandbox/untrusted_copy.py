"""Copying an agent's workspace for a re-execution, as an adversary's tree: links recreated and
never followed, special files left out, holes kept, set-id bits dropped, a disk budget checked
before anything is written (the reading side is untrusted.py).

What the agent's tree does (a name that vanished, a link, a FIFO) leaves that entry out, with why;
what the disk does (EIO, ENOSPC, a quota, a read-only remount) stops the copy with the error: a
half-copied file left in a workspace that is re-run anyway would fail the agent's script and be
taken for the agent's failure."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from reclaim.sandbox.untrusted import DIR_FLAGS, FILE_FLAGS, Untrusted, kind_of, walk, why_refused


@dataclass
class CopyReport:
    copied: int = 0
    allocated: int = 0
    skipped: list[str] = field(default_factory=list)
    """Special files and names that were left out, with why."""


class TooLarge(Untrusted):
    """A tree to copy takes more disk than its budget allows."""


DISK_ERRNOS = frozenset({errno.EIO, errno.ENOSPC, errno.EDQUOT, errno.EROFS})
"""Errors of the disk itself, never of the tree being copied."""


def copy_tree(src: Path, dest: Path, *, exclude: set[str], max_bytes: int | None = None,
              owner: tuple[int, int] | None = None, times: bool = False) -> CopyReport:
    """Copy an agent's tree for re-execution: links recreated (never followed), special files left
    out, holes kept (a sparse file stays sparse), set-id bits dropped, ``owner`` given everything.
    ``times``: every entry keeps its modification time (the copies of one tree then date alike).

    ``exclude`` holds '/'-separated relative paths to leave out. Raises TooLarge, before copying
    anything, when the tree's allocated size exceeds ``max_bytes``.
    """
    entries = list(walk(src))
    report = CopyReport(skipped=[])
    report.allocated = sum(e.blocks for e in entries if e.kind == "file")
    if max_bytes is not None and report.allocated > max_bytes:
        raise TooLarge(f"the workspace takes {report.allocated / 2**30:.2f} GiB of disk, over its budget of "
                       f"{max_bytes / 2**30:.2f} GiB")
    dest.mkdir(parents=True)
    if owner is not None:
        os.chown(dest, *owner)
    # walk() lists in pre-order, so the open folders (source and copy, each held by an fd) form a
    # stack: every file is opened relative to its folder, never by a path resolved from the root
    # again (100,000 files: 22 s by paths, a few by fds), and no path is ever too long to name
    root_ns = os.lstat(src).st_mtime_ns
    stack: list[tuple[bytes, int, int, int]] = [(b"", os.open(src, DIR_FLAGS), os.open(dest, DIR_FLAGS), root_ns)]
    skip_under: list[bytes] = []
    try:
        for e in entries:
            if e.rel in exclude or any(e.raw.startswith(s + b"/") for s in skip_under):
                if e.kind == "dir":
                    skip_under.append(e.raw)
                continue
            parent, _, name = e.raw.rpartition(b"/")
            while len(stack) > 1 and stack[-1][0] != parent:
                _close(stack.pop(), times)
            if stack[-1][0] != parent:  # its folder could not be opened: already reported
                continue
            _, sfd, dfd, _ = stack[-1]
            try:
                if e.kind == "dir":
                    os.mkdir(name, 0o755, dir_fd=dfd)
                    _chown(name, dfd, owner)
                    sub = os.open(name, DIR_FLAGS, dir_fd=sfd)
                    try:
                        stack.append((e.raw, sub, os.open(name, DIR_FLAGS, dir_fd=dfd), e.mtime_ns))
                    except OSError:
                        os.close(sub)
                        raise
                    continue
                if e.kind == "symlink":
                    os.symlink(os.readlink(name, dir_fd=sfd), name, dir_fd=dfd)
                elif e.kind == "file":
                    _copy_file(sfd, dfd, name, e.rel)
                    report.copied += 1
                else:
                    report.skipped.append(f"{e.rel} ({e.kind})")
                    continue
            except (Untrusted, OSError) as why:  # the agent's tree changed under us, or its folder is gone
                if isinstance(why, OSError) and why.errno in DISK_ERRNOS:
                    raise  # the disk failed, not the tree: the harness's error
                report.skipped.append(f"{e.rel[:200]} ({why})")
                if e.kind == "dir":
                    skip_under.append(e.raw)
                continue
            _chown(name, dfd, owner)
            if times:
                os.utime(name, ns=(e.mtime_ns, e.mtime_ns), dir_fd=dfd, follow_symlinks=False)
    finally:
        while stack:
            _close(stack.pop(), times)
    return report


def _close(held: tuple[bytes, int, int, int], times: bool) -> None:
    """A copied folder done: dated as its source (its entries are all made), both fds closed."""
    _, sfd, dfd, mtime_ns = held
    try:
        if times:
            os.utime(dfd, ns=(mtime_ns, mtime_ns))
    finally:
        os.close(sfd)
        os.close(dfd)


def _chown(name: bytes, dir_fd: int, owner: tuple[int, int] | None) -> None:
    if owner is not None:
        os.chown(name, *owner, dir_fd=dir_fd, follow_symlinks=False)


def _copy_file(sfd: int, dfd: int, name: bytes, rel: str) -> None:
    """Copy the regular file ``name`` (never a link) from folder ``sfd`` into ``dfd``, holes kept."""
    try:
        fd = os.open(name, FILE_FLAGS, dir_fd=sfd)
    except OSError as e:
        if e.errno in DISK_ERRNOS:
            raise
        raise Untrusted(f"'{rel}': {why_refused(e)}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Untrusted(f"'{rel}' is a {kind_of(st.st_mode)}, not a regular file")
        out = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                      stat.S_IMODE(st.st_mode) & 0o777 | 0o600, dir_fd=dfd)
        try:
            if st.st_blocks * 512 >= st.st_size:  # no holes: one plain copy
                _copy_range(fd, out, st.st_size)
                return
            pos = 0
            while pos < st.st_size:
                try:
                    data = os.lseek(fd, pos, os.SEEK_DATA)
                except OSError:  # only holes are left
                    break
                hole = os.lseek(fd, data, os.SEEK_HOLE)
                os.lseek(fd, data, os.SEEK_SET)
                os.lseek(out, data, os.SEEK_SET)
                _copy_range(fd, out, hole - data)
                pos = hole
            os.ftruncate(out, st.st_size)
        finally:
            os.close(out)
    finally:
        os.close(fd)


def _copy_range(src: int, dst: int, left: int) -> None:
    while left > 0:
        chunk = os.read(src, min(left, 1 << 20))
        if not chunk:
            break
        os.write(dst, chunk)
        left -= len(chunk)
