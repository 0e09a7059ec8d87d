"""What the attack suite checks on the host: snapshots of files outside the run folder, the global
sysctls attacks write, leaks in a run folder, hazards left in it. Also undoes what an attack managed
to plant (only files carrying an attack's payload tag, so nobody else's edits are touched).

Nothing here follows a symlink or opens a special file: the run folders are the attackers'.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from attacklib import EVIDENCE_DIR, PAYLOAD_TAG

SYSCTLS = ("kernel/core_pattern", "kernel/core_uses_pid", "fs/protected_symlinks", "fs/protected_hardlinks",
           "fs/protected_regular", "fs/suid_dumpable", "vm/max_map_count", "kernel/randomize_va_space",
           "kernel/yama/ptrace_scope", "kernel/modprobe")
BACKUP_MAX = 64 << 20
RESTORE_IF = (PAYLOAD_TAG, b'"deadline_unix"')  # an attack's payload, or the budget file written through a link


@dataclass(frozen=True)
class Root:
    path: Path
    hashed: bool  # sha256 of every file, else size + mtime + mode
    recursive: bool = True


def _files(root: Root):
    p = root.path
    try:
        st = os.lstat(p)
    except OSError:
        return
    if not stat.S_ISDIR(st.st_mode):
        yield p, st
        return
    for d, dirs, files in os.walk(p, followlinks=False):
        for name in files + [x for x in dirs if os.path.islink(os.path.join(d, x))]:
            q = Path(d, name)
            try:
                yield q, os.lstat(q)
            except OSError:
                continue
        if not root.recursive:
            dirs[:] = []


def _sha(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclass
class Snapshot:
    files: dict[str, tuple] = field(default_factory=dict)
    backups: dict[str, tuple[bytes, int]] = field(default_factory=dict)
    sysctls: dict[str, str] = field(default_factory=dict)

    @classmethod
    def take(cls, roots: list[Root], backup: bool = False) -> Snapshot:
        snap = cls()
        for root in roots:
            for p, st in _files(root):
                if stat.S_ISLNK(st.st_mode):
                    snap.files[str(p)] = ("link", os.readlink(p))
                elif not stat.S_ISREG(st.st_mode):
                    snap.files[str(p)] = ("special", st.st_mode)
                elif root.hashed:
                    try:
                        snap.files[str(p)] = ("sha", _sha(p), st.st_mode)
                    except OSError as e:
                        snap.files[str(p)] = ("unreadable", str(e))
                    if backup and st.st_size <= BACKUP_MAX:
                        try:
                            snap.backups[str(p)] = (p.read_bytes(), st.st_mode)
                        except OSError:
                            pass
                else:
                    snap.files[str(p)] = ("stat", st.st_size, st.st_mtime_ns, st.st_mode)
        for name in SYSCTLS:
            try:
                snap.sysctls[name] = Path("/proc/sys", name).read_text()
            except OSError:
                continue
        return snap


class SysctlWatch:
    """Samples the global sysctls while a batch runs: an attack that sets one and puts it back
    (after using it) leaves nothing for a before/after comparison to see."""

    def __init__(self, before: Snapshot, interval: float = 0.05):
        import threading

        self.before, self.interval, self.seen = before.sysctls, interval, {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            for name, old in self.before.items():
                try:
                    now = Path("/proc/sys", name).read_text()
                except OSError:
                    continue
                if now != old:
                    self.seen.setdefault(name, now)
            self._stop.wait(self.interval)

    def __enter__(self) -> SysctlWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def changes(self, after: Snapshot) -> list[Change]:
        return [Change(f"sysctl {n} was set to {v.strip()!r} during the run (put back to {self.before[n].strip()!r})",
                       v.encode()) for n, v in self.seen.items() if after.sysctls.get(n) == self.before[n]]


@dataclass
class Change:
    what: str  # e.g. "created /usr/local/bin/x", "sysctl kernel/core_pattern: 'core' -> '|...'"
    text: bytes = b""  # the planted content (start), for attributing it to an attack
    undone: str = ""


def _head(path: str, n: int = 1 << 16) -> bytes:
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return b""
        with open(path, "rb") as fh:
            return fh.read(n)
    except OSError:
        return b""


def compare(before: Snapshot, after: Snapshot) -> list[Change]:
    out = []
    for p in sorted(after.files.keys() - before.files.keys()):
        out.append(Change(f"created {p}", p.encode() + b"\n" + _head(p)))
    for p in sorted(before.files.keys() - after.files.keys()):
        out.append(Change(f"deleted {p}", p.encode()))
    for p in sorted(before.files.keys() & after.files.keys()):
        if before.files[p] != after.files[p]:
            out.append(Change(f"changed {p}", p.encode() + b"\n" + _tail(p)))
    for name, old in before.sysctls.items():
        new = after.sysctls.get(name, old)
        if new != old:
            out.append(Change(f"sysctl {name}: {old.strip()!r} -> {new.strip()!r}", new.encode()))
    return out


def _tail(path: str, n: int = 1 << 16) -> bytes:
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return b""
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            head = fh.read(n)
            fh.seek(max(0, size - n))
            return head + fh.read(n)
    except OSError:
        return b""


def undo(changes: list[Change], before: Snapshot) -> None:
    """Put back what attacks changed: tagged files restored or removed, sysctls written back."""
    for c in changes:
        kind, _, rest = c.what.partition(" ")
        try:
            if kind == "sysctl":
                name = rest.split()[0].rstrip(":")
                if Path("/proc/sys", name).read_text() != before.sysctls[name]:
                    Path("/proc/sys", name).write_text(before.sysctls[name])
                    c.undone = "written back"
            elif kind == "created" and (any(t in c.text for t in RESTORE_IF) or "reclaim_attack" in rest):
                os.unlink(rest)
                c.undone = "removed"
            elif kind == "changed" and rest in before.backups and any(t in c.text for t in RESTORE_IF):
                data, mode = before.backups[rest]
                tmp = f"{rest}.reclaim-restore"  # then renamed over: never written through a link
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, stat.S_IMODE(mode))
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                os.replace(tmp, rest)
                c.undone = "restored"
        except OSError as e:
            c.undone = f"could not undo: {e}"


def evidence() -> list[Change]:
    """Files host-side payloads left: proof that attack code ran outside the sandbox."""
    if not EVIDENCE_DIR.is_dir():
        return []
    out = []
    for p in sorted(EVIDENCE_DIR.iterdir()):
        out.append(Change(f"attack code ran on the host: {p} says {_head(str(p), 300)!r}", p.name.encode()))
    return out


def clear_evidence() -> None:
    if EVIDENCE_DIR.is_symlink() or EVIDENCE_DIR.is_file():
        EVIDENCE_DIR.unlink()
    if EVIDENCE_DIR.is_dir():
        for p in EVIDENCE_DIR.iterdir():
            p.unlink()
        EVIDENCE_DIR.rmdir()


# --- inside a run folder ----------------------------------------------------------------------


def walk(root: Path):
    """(path, lstat) of everything under root, never following a link."""
    for d, dirs, files in os.walk(root, followlinks=False):
        for name in dirs + files:
            p = os.path.join(d, name)
            try:
                yield p, os.lstat(p)
            except OSError:
                continue


def hazards(root: Path) -> list[str]:
    """Host dangers an agent left in its trial folder: device nodes, set-uid/set-gid files."""
    out = []
    for p, st in walk(root):
        if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
            out.append(f"device node {p} ({os.major(st.st_rdev)}:{os.minor(st.st_rdev)}, uid {st.st_uid})")
        elif stat.S_ISREG(st.st_mode) and st.st_mode & (stat.S_ISUID | stat.S_ISGID):
            out.append(f"set-uid/set-gid file {p} (mode {oct(st.st_mode & 0o7777)}, owner uid {st.st_uid})")
    return out


def _data_ranges(fd: int, size: int):
    """The parts of a (maybe sparse) file that hold data: holes read as zeros and are skipped."""
    pos = 0
    while pos < size:
        try:
            start = os.lseek(fd, pos, os.SEEK_DATA)
            end = os.lseek(fd, start, os.SEEK_HOLE)
        except OSError:
            return
        yield start, end
        pos = end


def find_needles(root: Path, needles: dict[str, bytes]) -> dict[str, set[str]]:
    """path -> labels of the needles found in it, over every regular file under root."""
    found: dict[str, set[str]] = {}
    longest = max((len(n) for n in needles.values()), default=1)
    for p, st in walk(root):
        if not stat.S_ISREG(st.st_mode):
            continue
        try:
            fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            for start, end in _data_ranges(fd, st.st_size):
                os.lseek(fd, start, os.SEEK_SET)
                carry, left = b"", end - start
                while left > 0:
                    block = os.read(fd, min(8 << 20, left))
                    if not block:
                        break
                    left -= len(block)
                    window = carry + block
                    for label, needle in needles.items():
                        if needle in window:
                            found.setdefault(p, set()).add(label)
                    carry = window[-longest:]
        finally:
            os.close(fd)
    return found
