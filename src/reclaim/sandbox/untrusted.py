"""Reading what an agent wrote, as an adversary's bytes: no links followed, no special files, bounded.

Everything under a workspace (or an agent's log folder) was made by a program the harness does
not trust, and the harness that reads it may run as root. So every read here walks the path one
component at a time with O_NOFOLLOW (a symlink anywhere on the way is refused, not followed),
opens only regular files (a FIFO, socket or device is refused without blocking), reads at most a
stated number of bytes, and treats names as bytes (a name that is not UTF-8 is shown escaped).
Any such refusal raises ``Untrusted``, which callers turn into the agent's failure, never the
harness's.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

DEFAULT_LIMIT = 1 << 20
MAX_DEPTH = 128
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY


class Untrusted(Exception):
    """An agent-made path the harness will not read: a link, a special file, too large, or absent."""


@dataclass(frozen=True)
class Entry:
    """One thing under a root, as ``lstat`` saw it: never through a link."""

    rel: str
    """Path relative to the root, '/'-separated; a non-UTF-8 byte shows as a \\x escape."""
    kind: str  # file, dir, symlink, fifo, socket, device
    size: int
    mtime_ns: int
    blocks: int = 0
    """Bytes actually allocated (a sparse file's size can be far larger)."""
    target: str | None = None
    """Where a symlink points, as text; never followed."""
    raw: bytes = b""
    """The exact relative path as bytes."""
    mode: int = 0

    @property
    def plain(self) -> bool:
        """A regular file whose name is valid UTF-8: the only kind the judge reads."""
        return self.kind == "file" and self.rel.encode("utf-8", "surrogateescape") == self.raw


def display(name: bytes) -> str:
    """A file name for records and messages: UTF-8 as is, any other byte as \\xNN."""
    return name.decode("utf-8", "backslashreplace")


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "device"


def _parts(rel: str | bytes) -> list[bytes]:
    raw = os.fsencode(rel)
    parts = [p for p in raw.split(b"/") if p not in (b"", b".")]
    if any(p == b".." for p in parts):
        raise Untrusted(f"'{display(raw)}' leaves its folder")
    if not parts:
        raise Untrusted("an empty path")
    return parts


def _parent(root: Path, parts: list[bytes], rel: str | bytes,
            owner: tuple[int, int] | None = None, make: bool = False) -> int:
    """An fd on the folder that holds ``parts[-1]``, reached one component at a time without
    following a link; ``make`` creates missing folders on the way (given to ``owner``)."""
    try:
        fd = os.open(root, _DIR_FLAGS)
    except OSError as e:
        raise Untrusted(f"{root}: {e.strerror}") from None
    for part in parts[:-1]:
        if make:
            try:
                os.mkdir(part, 0o755, dir_fd=fd)
                if owner is not None:
                    os.chown(part, *owner, dir_fd=fd, follow_symlinks=False)
            except FileExistsError:
                pass
        try:
            nxt = os.open(part, _DIR_FLAGS, dir_fd=fd)
        except OSError as e:
            os.close(fd)
            raise Untrusted(f"'{display(os.fsencode(rel))}': {_why(e)}") from None
        os.close(fd)
        fd = nxt
    return fd


def open_file(root: Path, rel: str | bytes) -> int:
    """A read-only fd on the regular file ``rel`` under ``root``, reached without following any link."""
    parts = _parts(rel)
    fd = _parent(root, parts, rel)
    try:
        leaf = os.open(parts[-1], _FILE_FLAGS, dir_fd=fd)
    except OSError as e:
        raise Untrusted(f"'{display(os.fsencode(rel))}': {_why(e)}") from None
    finally:
        os.close(fd)
    st = os.fstat(leaf)
    if not stat.S_ISREG(st.st_mode):
        os.close(leaf)
        raise Untrusted(f"'{display(os.fsencode(rel))}' is a {_kind(st.st_mode)}, not a regular file")
    return leaf


def _why(e: OSError) -> str:
    import errno

    if e.errno in (errno.ELOOP, errno.ENOTDIR):
        return "a symbolic link (or not a folder) on the way; links are not followed"
    if e.errno == errno.ENOENT:
        return "missing"
    return e.strerror or str(e)


def read_bytes(root: Path, rel: str | bytes, limit: int = DEFAULT_LIMIT) -> bytes:
    """The whole file, refused when it is larger than ``limit``."""
    fd = open_file(root, rel)
    with os.fdopen(fd, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > limit:
            raise Untrusted(f"'{display(os.fsencode(rel))}' is {size} bytes, over the {limit}-byte limit")
        return fh.read(limit + 1)[:limit]


def read_head(root: Path, rel: str | bytes, limit: int) -> tuple[bytes, int]:
    """(at most ``limit`` bytes from the start, the file's size)."""
    fd = open_file(root, rel)
    with os.fdopen(fd, "rb") as fh:
        return fh.read(limit), os.fstat(fh.fileno()).st_size


def read_ends(path: Path, limit: int) -> tuple[bytes, int]:
    """(head and tail of a harness-owned stream file, at most ``limit`` bytes in all; its size).

    For logs the harness wrote from an agent's output: their content is hostile and their size
    unbounded, so only the ends are ever held in memory."""
    try:
        fd = os.open(path, _FILE_FLAGS)
    except OSError:
        return b"", 0
    with os.fdopen(fd, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size <= limit:
            return fh.read(limit), size
        head = fh.read(limit // 2)
        fh.seek(size - limit // 2)
        cut = size - len(head) - limit // 2
        return head + f"\n[... {cut} bytes cut ...]\n".encode() + fh.read(limit // 2), size


def sha256(root: Path, rel: str | bytes, limit: int | None = None) -> str:
    """sha256 of a regular file reached without links; ``limit`` refuses larger files."""
    fd = open_file(root, rel)
    h = hashlib.sha256()
    with os.fdopen(fd, "rb") as fh:
        if limit is not None and os.fstat(fh.fileno()).st_size > limit:
            raise Untrusted(f"'{display(os.fsencode(rel))}' is over the {limit}-byte limit")
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def walk(root: Path, max_entries: int = 200_000, max_depth: int = MAX_DEPTH) -> Iterator[Entry]:
    """Everything under ``root`` (files, folders, links, special files), never entering a link.

    Iterative, one open folder per level, so a tree 100,000 folders deep costs the harness
    ``max_depth`` descriptors, not a RecursionError; what lies deeper is not listed."""
    try:
        top = os.open(root, _DIR_FLAGS)
    except OSError:
        return
    stack: list[tuple[int, bytes, Iterator[bytes]]] = []

    def push(fd: int, prefix: bytes) -> None:
        try:
            names = sorted(os.fsencode(n) for n in os.listdir(fd))
        except OSError:
            names = []
        stack.append((fd, prefix, iter(names)))

    push(top, b"")
    n = 0
    try:
        while stack:
            fd, prefix, names = stack[-1]
            name = next(names, None)
            if name is None:
                os.close(fd)
                stack.pop()
                continue
            try:
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except OSError:
                continue
            kind = _kind(st.st_mode)
            target = None
            if kind == "symlink":
                try:
                    target = display(os.readlink(name, dir_fd=fd))
                except OSError:
                    target = "?"
            raw = prefix + name
            yield Entry(rel=display(raw), kind=kind, size=st.st_size, mtime_ns=st.st_mtime_ns,
                        blocks=st.st_blocks * 512, target=target, raw=raw, mode=st.st_mode)
            n += 1
            if n >= max_entries:
                return
            if kind == "dir" and len(stack) < max_depth:
                try:
                    push(os.open(name, _DIR_FLAGS, dir_fd=fd), raw + b"/")
                except OSError:
                    continue
    finally:
        for fd, _, _ in stack:
            os.close(fd)


def strip_setid(root: Path) -> list[str]:
    """Clear set-uid and set-gid bits under ``root`` (files an agent made must not run as its
    uid for anyone on the host); return what was changed."""
    done = []
    for e in walk(root):
        if e.kind != "file" or not e.mode & (stat.S_ISUID | stat.S_ISGID):
            continue
        try:
            fd = open_file(root, e.raw)
        except Untrusted:
            continue
        try:
            os.fchmod(fd, stat.S_IMODE(os.fstat(fd).st_mode) & 0o777)
            done.append(e.rel)
        finally:
            os.close(fd)
    return done


def files(root: Path) -> list[Entry]:
    """The regular files under ``root`` with UTF-8 names, sorted: what the judge may read."""
    return sorted((e for e in walk(root) if e.plain), key=lambda e: e.rel)


def allocated_bytes(root: Path) -> int:
    """Disk space the tree really takes (sparse holes are free)."""
    return sum(e.blocks for e in walk(root))


@dataclass
class CopyReport:
    copied: int = 0
    allocated: int = 0
    skipped: list[str] | None = None
    """Special files and names that were left out, with why."""


class TooLarge(Untrusted):
    """A tree to copy takes more disk than its budget allows."""


def copy_tree(src: Path, dest: Path, *, exclude: set[str], max_bytes: int | None = None,
              owner: tuple[int, int] | None = None) -> CopyReport:
    """Copy an agent's tree for re-execution: links recreated (never followed), special files left
    out, holes kept (a sparse file stays sparse), set-id bits dropped, ``owner`` given everything.

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
    stack: list[tuple[bytes, int, int]] = [(b"", os.open(src, _DIR_FLAGS), os.open(dest, _DIR_FLAGS))]
    skip_under: list[bytes] = []
    try:
        for e in entries:
            if e.rel in exclude or any(e.raw.startswith(s + b"/") for s in skip_under):
                if e.kind == "dir":
                    skip_under.append(e.raw)
                continue
            parent, _, name = e.raw.rpartition(b"/")
            while len(stack) > 1 and stack[-1][0] != parent:
                _, sfd, dfd = stack.pop()
                os.close(sfd)
                os.close(dfd)
            if stack[-1][0] != parent:  # its folder could not be opened: already reported
                continue
            _, sfd, dfd = stack[-1]
            try:
                if e.kind == "dir":
                    os.mkdir(name, 0o755, dir_fd=dfd)
                    _chown(name, dfd, owner)
                    sub = os.open(name, _DIR_FLAGS, dir_fd=sfd)
                    try:
                        stack.append((e.raw, sub, os.open(name, _DIR_FLAGS, dir_fd=dfd)))
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
                report.skipped.append(f"{e.rel[:200]} ({why})")
                if e.kind == "dir":
                    skip_under.append(e.raw)
                continue
            _chown(name, dfd, owner)
    finally:
        for _, sfd, dfd in stack:
            os.close(sfd)
            os.close(dfd)
    return report


def _chown(name: bytes, dir_fd: int, owner: tuple[int, int] | None) -> None:
    if owner is not None:
        os.chown(name, *owner, dir_fd=dir_fd, follow_symlinks=False)


def _copy_file(sfd: int, dfd: int, name: bytes, rel: str) -> None:
    """Copy the regular file ``name`` (never a link) from folder ``sfd`` into ``dfd``, holes kept."""
    try:
        fd = os.open(name, _FILE_FLAGS, dir_fd=sfd)
    except OSError as e:
        raise Untrusted(f"'{rel}': {_why(e)}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Untrusted(f"'{rel}' is a {_kind(st.st_mode)}, not a regular file")
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


def write_bytes(root: Path, rel: str, data: bytes, mode: int = 0o644,
                owner: tuple[int, int] | None = None) -> None:
    """Create or replace ``rel`` under ``root`` (folders made on the way), never through a link."""
    parts = _parts(rel)
    fd = _parent(root, parts, rel, owner, make=True)
    try:
        try:
            os.unlink(parts[-1], dir_fd=fd)  # whatever was there, a link included, goes
        except FileNotFoundError:
            pass
        except IsADirectoryError:
            raise Untrusted(f"'{rel}' is a folder") from None
        out = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                      mode, dir_fd=fd)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(out, view):]
            os.fchmod(out, mode)
            if owner is not None:
                os.fchown(out, *owner)
        finally:
            os.close(out)
    finally:
        os.close(fd)
