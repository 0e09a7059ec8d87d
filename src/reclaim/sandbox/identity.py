"""Who sandboxed programs run as: never host root, also when reclaim itself runs as root.

Run as root, bubblewrap keeps every capability inside its namespaces, so the agent could remount
the read-only host, lift its cgroup limits or write sysctls. So a root harness drops to a
dedicated unprivileged uid before it starts bwrap (``setpriv``: no capabilities, no bounding set,
no new privileges); bwrap then runs unprivileged, maps only that uid, and drops what its user
namespace would grant. An unprivileged harness runs sandboxes as its own user, which holds
nothing to begin with.

The dedicated id is ``$RECLAIM_SANDBOX_UID`` (and ``$RECLAIM_SANDBOX_GID``), else 1879048192
(0x70000000): above the ranges Debian, systemd and container tools hand out, so no host user
or file owns it.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from reclaim.errors import SandboxError, UsageError
from reclaim.tempdirs import owned_tempdir

DEFAULT_ID = 0x70000000
NAME = "reclaim"


@dataclass(frozen=True)
class Identity:
    uid: int
    gid: int
    dedicated: bool
    """True when the harness is root and sandboxes run as the dedicated id."""

    def drop(self) -> list[str]:
        """The command prefix that becomes this identity (empty when the harness already is it)."""
        if not self.dedicated:
            return []
        return [setpriv(), f"--reuid={self.uid}", f"--regid={self.gid}", "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]

    @property
    def owner(self) -> tuple[int, int] | None:
        """(uid, gid) for files made for the sandbox's user; None where the harness already is it."""
        return (self.uid, self.gid) if self.dedicated else None

    def give(self, path: Path) -> None:
        """Make ``path`` (not what a link there points at) this identity's own."""
        if self.dedicated:
            os.lchown(path, self.uid, self.gid)

    def give_tree(self, root: Path) -> None:
        """Hand a harness-built folder to the sandbox's user, never following a link in it."""
        if not self.dedicated:
            return
        os.lchown(root, self.uid, self.gid)
        for _top, dirs, files, dfd in os.fwalk(root, follow_symlinks=False):
            for name in dirs + files:
                try:
                    os.chown(name, self.uid, self.gid, dir_fd=dfd, follow_symlinks=False)
                except OSError:
                    continue


@functools.cache
def setpriv() -> str:
    exe = shutil.which("setpriv")
    if exe is None:
        raise SandboxError("setpriv (util-linux) is missing: a root harness needs it to run sandboxes "
                           "unprivileged; install util-linux")
    return exe


def _env_id(name: str, default: int) -> int:
    raw = os.environ.get(name, "")
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise UsageError(f"${name} is '{raw}', not a numeric id; set it to an unused uid/gid") from None
    if value <= 0:
        raise UsageError(f"${name} is {value}: sandboxes never run as root; set an unused uid/gid")
    return value


@functools.cache
def current() -> Identity:
    """The identity sandboxes of this process run as."""
    if os.geteuid() != 0:
        return Identity(os.getuid(), os.getgid(), dedicated=False)
    uid = _env_id("RECLAIM_SANDBOX_UID", DEFAULT_ID)
    return Identity(uid, _env_id("RECLAIM_SANDBOX_GID", uid), dedicated=True)


@functools.cache
def account_files() -> dict[str, Path]:
    """/etc/passwd and /etc/group with the sandbox user in them, so getpwuid works inside.

    Written once per process into a folder only root can change; bound read-only."""
    ident = current()
    folder = owned_tempdir("etc")
    folder.chmod(0o755)
    atexit.register(shutil.rmtree, folder, True)
    out = {}
    for name, line in (("passwd", f"{NAME}:x:{ident.uid}:{ident.gid}:reclaim sandbox:/workspace:/bin/bash\n"),
                       ("group", f"{NAME}:x:{ident.gid}:\n")):
        try:
            text = Path("/etc", name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        kept = [ln for ln in text.splitlines(keepends=True) if not ln.startswith(f"{NAME}:")]
        path = folder / name
        path.write_text("".join(kept) + ("" if not kept or kept[-1].endswith("\n") else "\n") + line)
        path.chmod(0o644)
        out[name] = path
    return out
