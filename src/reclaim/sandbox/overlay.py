"""Released materials the agent may change, copy on write: an overlay over the cache.

Each material is an overlay mount whose lower layer is the cache's read-only object and whose
upper layer is a folder of the trial's (``workspace/<kind>``): the agent edits released files in
place and writes next to them, the cache is never touched, no byte of data is copied, and the
upper folder holds exactly what the agent changed or added (a deletion is a whiteout, a 0/0
character device, which no agent can make itself). The overlay is mounted in a private mount
namespace that the sandbox's launcher makes for each command (``unshare`` then ``mount``, then
bwrap), so no mount ever appears on the host and none outlives its command.

Only a root harness mounts overlays; elsewhere (an unprivileged harness, the container and
process backends) materials stay read-only binds or copies, as TASK.md then says.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from reclaim.errors import SandboxError
from reclaim.tempdirs import owned_tempdir

OPTIONS = "redirect_dir=off,index=off,metacopy=off"
_UNSAFE = (",", ":", "\\", "\n", "=")
_MOUNT = ('n=$1; shift; while [ "$n" -gt 0 ]; do mount --bind "$1" "$2" || exit 125; shift 2; n=$((n - 1)); '
          'done; n=$1; shift; while [ "$n" -gt 0 ]; do mount -t overlay overlay -o "$1" "$2" || exit 125; '
          'shift 2; n=$((n - 1)); done; exec "$@"')


@dataclass(frozen=True)
class Overlay:
    """One material as a sandbox sees it: ``lower`` layers (topmost first) under ``upper``,
    mounted at ``view`` (a host folder the sandbox binds where the material goes)."""

    lower: tuple[Path, ...]
    upper: Path
    work: Path
    view: Path
    shown_as: tuple[Path, ...] = ()
    """Where each lower layer is bound before the mount (empty: where it lies): the overlay's
    options, which a program inside reads in /proc/self/mountinfo, then name these places, the
    same whatever each layer is (the release, a stand-in), and never the layers' own paths."""

    @property
    def lowers(self) -> tuple[Path, ...]:
        return self.shown_as or self.lower

    def option(self) -> str:
        if self.shown_as and len(self.shown_as) != len(self.lower):
            raise SandboxError("an overlay needs one place to show each lower layer")
        paths = [*self.lowers, self.upper, self.work]
        bad = [str(p) for p in paths if any(c in str(p) for c in _UNSAFE)]
        if bad:
            raise SandboxError(f"an overlay path may not hold , : = \\ or a newline: {bad[0]}")
        return (f"lowerdir={':'.join(str(p) for p in self.lowers)},upperdir={self.upper},"
                f"workdir={self.work},{OPTIONS}")

    def prepare(self) -> None:
        """The upper, work and view folders, made and empty where they must be."""
        for p in (self.upper, self.view, *self.shown_as):
            p.mkdir(parents=True, exist_ok=True)
        if self.work.exists():  # overlayfs leaves a 'work' folder in it; a fresh mount needs it empty
            shutil.rmtree(self.work)
        self.work.mkdir(parents=True)


def launcher(overlays: list[Overlay]) -> list[str]:
    """The command prefix that mounts ``overlays`` in a mount namespace of the command's own."""
    if not overlays:
        return []
    pairs = [(low, at) for o in overlays for low, at in zip(o.lower, o.shown_as, strict=False)]
    args = [str(len(pairs))]
    for low, at in pairs:
        args += [str(low), str(at)]
    args.append(str(len(overlays)))
    for o in overlays:
        args += [o.option(), str(o.view)]
    return [_tool("unshare"), "--mount", "--propagation", "private", "--", "/bin/sh", "-c", _MOUNT,
            "reclaim-overlay", *args]


def _tool(name: str) -> str:
    return shutil.which(name) or f"/usr/bin/{name}"


@functools.cache
def unavailable() -> str | None:
    """None when this harness can mount overlays for its sandboxes (root, overlayfs, unshare and
    mount), else why not; tried once per process on a scratch folder."""
    if os.geteuid() != 0:
        return "the harness is not root: materials stay read-only"
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return "unshare or mount (util-linux) is missing"
    scratch = owned_tempdir("overlay-probe")
    try:
        low = scratch / "low"
        low.mkdir()
        (low / "f").write_text("x")
        probe = Overlay((low,), scratch / "up", scratch / "work", scratch / "view")
        probe.prepare()
        res = subprocess.run([*launcher([probe]), "/bin/sh", "-c", 'echo y >> "$0/f"', str(probe.view)],
                             capture_output=True, text=True, timeout=30)
        if res.returncode != 0 or (scratch / "up" / "f").read_text() != "xy\n" or (low / "f").read_text() != "x":
            return f"an overlay could not be mounted here: {res.stderr.strip()[-300:] or 'no message'}"
    except (OSError, subprocess.SubprocessError) as e:
        return f"an overlay could not be mounted here: {e}"
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return None


def is_whiteout(st: os.stat_result) -> bool:
    """A deletion in an upper layer: a character device 0/0 (only overlayfs makes one here)."""
    import stat

    return stat.S_ISCHR(st.st_mode) and st.st_rdev == 0


def opaque(path: Path) -> bool:
    """A folder of an upper layer that hides the lower one's (removed, then made again)."""
    try:
        return os.getxattr(path, "trusted.overlay.opaque", follow_symlinks=False) == b"y"
    except OSError:
        return False
