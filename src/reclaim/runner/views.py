"""How a trial's released materials appear in each of its sandboxes.

Where the backend can (sandbox/overlay.py), a material is a copy-on-write overlay: the agent
changes released files in place and writes beside them; its upper layer is ``workspace/<kind>``,
so the harness holds exactly what the agent changed. Each re-run sees the same material again as
an overlay whose lower layers are the agent's changes over the release (or over a stand-in for
it: scrambled, rewritten), with an upper layer of its own: nothing a re-run writes reaches the
agent's record or the next re-run. Elsewhere a material is a read-only bind of the cache object,
as it always was.

``changes`` reads what the agent did to the release from its upper layer: every file added or
changed (with its sha256 against the release's) and every one deleted.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from reclaim.materials import Mount
from reclaim.sandbox import Bind, Overlay, is_whiteout, opaque, untrusted

OVERLAYS = ".overlay"  # the harness's folder for overlay work and view folders, in the trial's folder


@dataclass(frozen=True)
class Shown:
    """One material as one sandbox shows it."""

    name: str
    inside: str
    layers: tuple[Path, ...]
    """Lower layers, topmost first; the last is the release or its stand-in."""
    writable: bool
    """Copy on write (an overlay); else a read-only bind of ``layers[-1]``."""


def keep_times(src: Path, dest: Path) -> None:
    """Every file and folder of ``dest`` (a harness-made view of the material ``src``: rewritten,
    scrambled) dated as its counterpart in ``src``, so that no stand-in is told by its dates."""
    for root, dirs, files in os.walk(dest, topdown=False):
        for name in [*files, *dirs, *([] if Path(root) != dest else [""])]:
            d = Path(root) / name if name else dest
            rel = d.relative_to(dest)
            try:
                st = (src / rel).lstat()
                os.utime(d, ns=(st.st_atime_ns, st.st_mtime_ns), follow_symlinks=False)
            except OSError:
                continue


def agent_views(mounts: list[Mount], inside: str, writable: bool) -> list[Shown]:
    """The materials as the agent's sandbox shows them."""
    return [Shown(m.name, f"{inside}/{m.name}", (m.host,), writable) for m in mounts]


def present(shown: list[Shown], workspace: Path, scratch: Path, depth: int | None = None
            ) -> tuple[list[Bind], list[Overlay]]:
    """The binds and overlays a sandbox over ``workspace`` needs to show ``shown``: an overlay's
    upper layer is ``workspace/<name>``; its work and view folders go under ``scratch``. With
    ``depth``, every overlay has that many lower layers (empty ones on top where it has fewer),
    each shown at a place under ``scratch`` named by its material and position only: the mount
    table a program reads is the same whichever release or stand-in lies below."""
    binds, overlays = [], []
    for s in shown:
        if not s.writable:
            binds.append(Bind(s.layers[-1], s.inside))
            continue
        lower: tuple[Path, ...] = s.layers
        shown_as: tuple[Path, ...] = ()
        if depth is not None:
            pad = [scratch / f"empty-{s.name}-{i}" for i in range(max(0, depth - len(s.layers)))]
            for p in pad:
                p.mkdir(parents=True, exist_ok=True)
                p.chmod(0o755)
            lower = (*pad, *s.layers)
            shown_as = tuple(scratch / f"lower-{s.name}-{i}" for i in range(len(lower)))
        o = Overlay(lower=lower, upper=workspace / s.name, work=scratch / f"work-{s.name}",
                    view=scratch / f"view-{s.name}", shown_as=shown_as)
        o.prepare()
        if depth is not None:  # the material's folder, which is the upper's: dated as the release's, not now
            st = s.layers[-1].stat()
            os.utime(o.upper, ns=(st.st_atime_ns, st.st_mtime_ns))
        overlays.append(o)
        binds.append(Bind(o.view, s.inside, writable=True))
    return binds, overlays


@dataclass(frozen=True)
class Change:
    path: str
    """'<kind>/<path in the material>'."""
    change: str
    """added, modified or deleted."""
    sha256: str | None = None


def changes(workspace: Path, names: list[str], provided: dict[str, str], limit: int = 10_000) -> list[Change]:
    """What the agent did to the released materials ``names``, read from their upper layers
    (``workspace/<kind>``): files added or modified, and deleted (whiteouts, opaque folders)."""
    out: list[Change] = []
    for name in names:
        upper = workspace / name
        if not upper.is_dir() or upper.is_symlink():
            continue
        released = {p for p in provided if p.startswith(f"{name}/")}
        for e in untrusted.walk(upper):
            rel = f"{name}/{e.rel}"
            if e.kind == "file" and e.plain:
                digest = _digest(upper, e.rel)
                if rel not in released:
                    out.append(Change(rel, "added", digest))
                elif digest != provided[rel]:
                    out.append(Change(rel, "modified", digest))
            elif e.kind == "symlink":
                out.append(Change(rel, "added" if rel not in released else "modified"))
            elif e.kind == "device" and is_whiteout(os.lstat(upper / e.rel)):
                out += [Change(p, "deleted") for p in sorted(released) if p == rel or p.startswith(rel + "/")]
            elif e.kind == "dir" and opaque(upper / e.rel):  # removed and made again: the release's are gone
                kept = {f"{rel}/{x.rel}" for x in untrusted.walk(upper / e.rel) if x.kind == "file"}
                out += [Change(p, "deleted") for p in sorted(released) if p.startswith(rel + "/") and p not in kept]
            if len(out) >= limit:
                return out[:limit]
    return out


def _digest(root: Path, rel: str) -> str | None:
    try:
        return untrusted.sha256(root, rel)
    except (OSError, untrusted.Untrusted):
        return None



def changes_layer(upper: Path, dest: Path, keep: Callable[[str], bool] = lambda rel: True,
                  treat: Callable[[str, bytes], bytes | None] | None = None) -> list[str]:
    """The agent's changes to a material (its upper layer ``upper``) as a layer for a re-run, at
    ``dest``: files hard-linked (never written: a lower layer), those ``keep`` refuses left out (the
    release's own bytes, unchanged, which the layer below shows), whiteouts and opaque folders
    made again; ``treat`` may give a file other bytes (scrambled, rewritten). Returns the files
    treated. The upper is the agent's hostile tree: read without following links."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    done = []
    for e in untrusted.walk(upper):
        out = dest / e.rel
        if e.kind == "dir":
            out.mkdir(mode=0o755)
            if opaque(upper / e.rel):
                os.setxattr(out, "trusted.overlay.opaque", b"y", follow_symlinks=False)
        elif e.kind == "symlink" and e.target is not None:
            os.symlink(e.target, out)
        elif e.kind == "device" and is_whiteout(os.lstat(upper / e.rel)):
            os.mknod(out, stat.S_IFCHR | 0o000, os.makedev(0, 0))
        elif e.kind == "file" and e.plain and keep(e.rel):
            new = None
            if treat is not None:
                try:
                    new = treat(e.rel, untrusted.read_bytes(upper, e.rel, 256 << 20))
                except untrusted.Untrusted:
                    new = None
            if new is not None:
                out.write_bytes(new)
                out.chmod(0o644 | (e.mode & 0o111))
                os.utime(out, ns=(e.mtime_ns, e.mtime_ns))  # dated as the agent's file, in every re-run
                done.append(e.rel)
            else:
                fd = untrusted.open_file(upper, e.rel)
                try:
                    os.link(f"/proc/self/fd/{fd}", out, follow_symlinks=True)
                except OSError:
                    with os.fdopen(os.dup(fd), "rb") as src, open(out, "wb") as dst:
                        shutil.copyfileobj(src, dst)
                finally:
                    os.close(fd)
    dest.chmod(0o755)
    return done
