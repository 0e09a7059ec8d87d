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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from reclaim.errors import ReclaimError

DEFAULT_LIMIT = 1 << 20
MAX_DEPTH = 128
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY


class Untrusted(ReclaimError):
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


def kind_of(mode: int) -> str:
    """file, dir, symlink, fifo, socket or device."""
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
        fd = os.open(root, DIR_FLAGS)
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
            nxt = os.open(part, DIR_FLAGS, dir_fd=fd)
        except OSError as e:
            os.close(fd)
            raise Untrusted(f"'{display(os.fsencode(rel))}': {why_refused(e)}") from None
        os.close(fd)
        fd = nxt
    return fd


def open_file(root: Path, rel: str | bytes) -> int:
    """A read-only fd on the regular file ``rel`` under ``root``, reached without following any link."""
    parts = _parts(rel)
    fd = _parent(root, parts, rel)
    try:
        leaf = os.open(parts[-1], FILE_FLAGS, dir_fd=fd)
    except OSError as e:
        raise Untrusted(f"'{display(os.fsencode(rel))}': {why_refused(e)}") from None
    finally:
        os.close(fd)
    st = os.fstat(leaf)
    if not stat.S_ISREG(st.st_mode):
        os.close(leaf)
        raise Untrusted(f"'{display(os.fsencode(rel))}' is a {kind_of(st.st_mode)}, not a regular file")
    return leaf


def why_refused(e: OSError) -> str:
    """Why an open without following links failed, in words."""
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
        fd = os.open(path, FILE_FLAGS)
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
        top = os.open(root, DIR_FLAGS)
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
            kind = kind_of(st.st_mode)
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
                    push(os.open(name, DIR_FLAGS, dir_fd=fd), raw + b"/")
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


def treat_files(root: Path, rels: Iterable[str], treat: Callable[[str, bytes], bytes | None],
                owner: tuple[int, int] | None = None, limit: int = DEFAULT_LIMIT) -> list[str]:
    """Replace each of ``rels`` under ``root`` with what ``treat`` makes of it (None: leave it), never
    through a link, owned by ``owner``; a file that cannot be read safely is left. The ones replaced."""
    done = []
    for rel in rels:
        try:
            raw = read_bytes(root, rel, limit)
        except Untrusted:
            continue
        if (new := treat(rel, raw)) is not None:
            write_bytes(root, rel, new, 0o644, owner=owner)
            done.append(rel)
    return done
