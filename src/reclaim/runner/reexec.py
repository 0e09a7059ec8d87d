"""One re-execution of the agent's reproduce.sh in a fresh sandbox, from a copy of its workspace.

The copy is made as an adversary's tree (sandbox/untrusted_copy.py): links are recreated, never
followed, special files are left out, holes stay holes, and a workspace larger than the trial's
disk budget is refused as the agent's failure. The released materials are not copied: each is
shown as the agent left it (runner/views.py), over the release or a stand-in for it (scrambled,
rewritten), or not at all. The re-run sees the same paths and the same variables as the agent
did, so telling the two apart gains a script nothing. Which re-runs happen, and what each must
show, is runner/reruns.py's.
"""

from __future__ import annotations

import posixpath
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from reclaim.budget import BudgetExhausted, Deadline, free_bytes, kept_free
from reclaim.gateway import PackageCache
from reclaim.judge import agent_sources, is_code
from reclaim.materials import PAPER_MD, TASK_MD
from reclaim.runner.lifecycle import OutOfRoom
from reclaim.runner.recorder import Cancellation, Recorder, snapshot
from reclaim.runner.views import OVERLAYS, Shown, present
from reclaim.sandbox import Bind, SandboxConfig, identity, make_sandbox, untrusted, untrusted_copy
from reclaim.store import HASH_LIMIT, RESULTS, ReexecRecord, sha256_file
from reclaim.trace import TraceWriter, read_trace

SCRIPT = "reproduce.sh"
# Removed before re-running: the claimed result, and the texts a script could copy a number from.
EXCLUDED = (RESULTS, PAPER_MD, TASK_MD)


class NoRoom(OutOfRoom):
    """The disk under the run folder cannot take a re-execution's copy: the harness's problem, never the agent's."""


@dataclass
class Rerun:
    """What one re-run changes from the fresh one."""

    folder: str = ""
    """Its folder under reexec/ ('' for the fresh one itself)."""
    exclude: set[str] = field(default_factory=lambda: set(EXCLUDED))
    """Workspace paths not copied."""
    shown: list[Shown] | None = None
    """The materials as it shows them; None: as the fresh re-run does."""
    env: dict[str, str] = field(default_factory=dict)
    """Variables set beyond the agent's (a perturbation's inputs)."""
    binds: list[Bind] = field(default_factory=list)
    """More binds: files of the agent's environment masked (the code withheld)."""
    wall: float | None = None
    prepare: Callable[[Path], list[str]] | None = None
    """Changes the workspace copy (scrambles copies of the data); returns the paths changed."""
    script: str = SCRIPT


@dataclass
class Reexec:
    """What every re-execution of one trial shares."""

    trial_dir: Path
    sandbox: str
    wall_seconds: float
    trace: TraceWriter
    hidden: list[Path]
    provided: dict[str, str]
    """Files the harness put in the workspace -> sha256: materials, not the agent's sources."""
    cancellation: Cancellation | None = None
    extras: dict = field(default_factory=dict)
    disk_bytes: int | None = None
    shown: list[Shown] = field(default_factory=list)
    """The materials as the fresh re-run shows them: the agent's changes over the release."""
    fresh: Callable[[Path], dict] | None = None
    """Per re-run sandbox settings made under its own folder: binds added, a /tmp of its own."""
    done: Callable[[Path], object] | None = None
    """Called with the re-run's folder once its sandbox has stopped."""
    meter: Callable[[], tuple[float | None, float | None]] | None = None
    """The phase's cumulative CPU and GPU-busy seconds: each re-run gets its share."""
    changed_materials: list[str] = field(default_factory=list)
    """Released files the agent changed or added in place: its programs, read in workspace/."""
    seconds: float = 0.0

    @property
    def base(self) -> Path:
        return self.trial_dir / "reexec"

    def run(self, how: Rerun) -> ReexecRecord:
        base = self.base / how.folder if how.folder else self.base
        ws, dest = self.trial_dir / "workspace", base / "workspace"
        shown = self.shown if how.shown is None else how.shown
        if dest.exists():
            shutil.rmtree(dest)
        ident = identity.current()
        room = free_bytes(self.trial_dir) - kept_free(self.trial_dir)  # what the disk can take and keep records
        limit = room if self.disk_bytes is None else min(self.disk_bytes, room)
        overlaid = {s.name for s in shown if s.writable}  # the agent's changes are a layer, not copied
        try:
            copied = untrusted_copy.copy_tree(ws, dest, exclude=how.exclude | overlaid, max_bytes=limit,
                                              owner=ident.owner)
        except untrusted_copy.TooLarge as e:
            if self.disk_bytes is None or room < self.disk_bytes:  # the disk is short, not the agent's budget
                raise NoRoom(f"the disk under the run folder has no room to re-execute this trial's workspace "
                             f"({free_bytes(self.trial_dir) / 2**20:.0f} MiB free, "
                             f"{kept_free(self.trial_dir) / 2**20:.0f} MiB kept for records): a harness error, run "
                             "again once there is room") from None
            return ReexecRecord(ran=False, reason=f"not copied for re-execution: {e}")
        removed = sorted(p for p in how.exclude if (ws / p).exists() or (ws / p).is_symlink())
        changed = how.prepare(dest) if how.prepare is not None else []
        binds, overlays = present(shown, dest, base / OVERLAYS)  # uppers: dest/<kind>, the sandbox user's at start
        if ident.dedicated:  # the stand-in layers the harness made are the sandbox user's, as the cache's objects
            for layer in {p for s in shown if s.writable for p in s.layers if p.is_relative_to(self.base)}:
                ident.give_tree(layer)
        before = snapshot(dest)
        extras = dict(self.extras)
        env = dict(extras.pop("env", {})) | how.env
        extras["binds"] = [*extras.get("binds", []), *binds, *how.binds]
        if self.fresh is not None:
            own = self.fresh(base)
            extras["binds"] = [*extras["binds"], *own.pop("binds", [])]
            extras.update(own)
        deadline = Deadline(how.wall or self.wall_seconds)
        env["RECLAIM_DEADLINE"] = f"{time.time() + deadline.seconds:.0f}"
        box = make_sandbox(self.sandbox, SandboxConfig(dest, hidden=self.hidden, env=env, overlays=overlays, **extras))
        box.start()
        rec = Recorder(box, self.trace, dest, base / "logs", "reexec", deadline, self.cancellation, meter=self.meter)
        timed_out = False
        metered: tuple[float | None, ...] = (None, None)  # (CPU s, GPU s) of the re-run
        used = self.meter() if self.meter is not None else (None, None)
        try:
            res = rec.run(["bash", how.script])
            exit_code, timed_out = res.exit_code, res.timed_out
        except BudgetExhausted:
            exit_code, timed_out = None, True
        finally:
            box.stop()
            if self.meter is not None:
                now = self.meter()
                metered = tuple(None if a is None or b is None else round(max(0.0, b - a), 3)
                                for a, b in zip(used, now, strict=True))
            if self.done is not None:
                self.done(base)
        self.seconds += rec.command_seconds
        untrusted.strip_setid(dest)
        after = snapshot(dest)
        outputs = sorted(p for p in after if before.get(p) != after[p])
        scope, sources = self._scope(ws, dest, before, after, outputs, how.script)
        return ReexecRecord(ran=True, reason="timed out" if timed_out else f"exit {exit_code}",
                            exit_code=exit_code, timed_out=timed_out, event_id=rec.last_event,
                            wall_s=rec.deadline.elapsed, removed=removed, sources=sources,
                            outputs=outputs, skipped=copied.skipped or [], scrambled_files=changed,
                            scope=scope, cpu_s=metered[0], gpu_s=metered[1],
                            materials=_how_shown(shown),
                            mode="full" if how.script == SCRIPT else "evaluate", script=how.script)

    def _scope(self, ws: Path, dest: Path, before: dict, after: dict, outputs: list[str], script: str):
        """What the literal checks read: the agent's own files (judge/scope.py), decided on the
        workspace as the agent left it."""
        # a program the re-run only touched is still one; one it rewrote or deleted is named in the
        # scope and read from the trial's workspace/, as are the released files the agent changed
        same = {p for p in outputs if p in before and _code(dest, p) and _digest(dest, p) == _digest(ws, p)}
        rewritten = [p for p in before if (p not in after or p in outputs) and p not in same and _code(ws, p)
                     and not self._released_as_is(ws, p)]
        candidates = [p for p in before if p in after and (p not in outputs or p in same)
                      and not self._released_as_is(ws, p)]
        scope = agent_sources(ws, [*candidates, *rewritten, *self.changed_materials], self._trace(), entry=script,
                              package_file=_proxy_copy, released_file=self._released)
        read_there = set(rewritten) | set(self.changed_materials)
        sources = [p for p in scope.sources if p not in read_there]
        return scope.record(rewritten, self.changed_materials), sources

    def _released_as_is(self, ws: Path, rel: str) -> bool:
        """A material file as released: only a provided path is hashed (100,000 files are not)."""
        return rel in self.provided and self.provided[rel] == _digest(ws, rel)

    def material_root(self, kind: str) -> Path | None:
        """The harness's own copy of a material (its cache object), where the re-runs show it."""
        return next((s.layers[-1] for s in self.shown if s.name == kind), None)

    def _released(self, inside: str) -> Path | None:
        """The harness's copy of the material file at ``inside`` (a path in the sandbox), when its
        sha256 is the one recorded for it: a released wheel the agent installed from."""
        for s in self.shown:
            top = s.inside.rstrip("/")
            if not inside.startswith(top + "/"):
                continue
            rest = posixpath.normpath(inside[len(top) + 1:])
            rel = f"{s.name}/{rest}"
            host = s.layers[-1] / rest
            if rest.startswith("..") or rel not in self.provided or host.is_symlink() or not host.is_file():
                return None
            return host if sha256_file(host) == self.provided[rel] else None
        return None

    def _trace(self) -> list:
        """The trial's trace so far (the proxy's downloads, the re-execution's exec record)."""
        try:
            return read_trace(self.trace.path)
        except (OSError, ValueError, AttributeError):
            return []


def _how_shown(shown: list[Shown]) -> str:
    if not shown:
        return "none"
    return "copy-on-write" if all(s.writable for s in shown) else "read-only"


def _proxy_copy(url: str) -> Path | None:
    """The egress proxy's own copy of a package file it fetched, when it still has one."""
    hit = PackageCache().lookup(url)
    return hit[0] if hit else None


def _code(root: Path, rel: str) -> bool:
    try:
        return is_code(Path(rel), untrusted.read_head(root, rel, 2)[0])
    except (OSError, untrusted.Untrusted):
        return False


def _digest(root: Path, rel: str) -> str | None:
    try:
        return untrusted.sha256(root, rel, limit=HASH_LIMIT)
    except (OSError, untrusted.Untrusted):
        return None


def digest(root: Path, rel: str) -> str | None:
    """A file's sha256, read as an agent's file (None when it is not a plain readable one)."""
    return _digest(root, rel)
