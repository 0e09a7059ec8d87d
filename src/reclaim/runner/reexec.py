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

import os
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


STAGE = ".run"
"""Where each re-run is made while it runs, the same for all: then moved to its own folder."""
OUTPUT = ".output"
"""Where a re-run's output files are while it runs (each moved to its folder's logs/ at its end)."""
LAYERS = 2
"""Lower layers of every material's overlay in every re-run (the agent's changes, the release or
its stand-in): the same count whichever is shown."""


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
    common: bool = True
    """Whether the change every re-run gets (Reexec.prepare) is made in this one too."""


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
    fresh: Callable[[Path, str], dict] | None = None
    """Per re-run sandbox settings made under the place it runs in, for the named re-run ('' the
    fresh one): binds added, a /tmp of its own."""
    done: Callable[[str], object] | None = None
    """Called with the re-run's name once its sandbox has stopped."""
    prepare: Callable[[Path], list[str]] | None = None
    """Changes every re-run's workspace copy the same way (the copies of released code
    rewritten as the release is), before the re-run's own change."""
    meter: Callable[[], tuple[float | None, float | None]] | None = None
    """The phase's cumulative CPU and GPU-busy seconds: each re-run gets its share."""
    released: list[Shown] = field(default_factory=list)
    """The materials as the agent left them over the release, before any re-run's stand-in: where
    the harness's own copies of the release are read."""
    changed_materials: list[str] = field(default_factory=list)
    """Released files the agent changed or added in place: its programs, read in workspace/."""
    purged: dict[str, str] = field(default_factory=dict)
    """The agent's files no re-run's workspace holds (runner/purge.py) -> why."""
    texts: dict[str, bytes] = field(default_factory=dict)
    """Written into every re-run's workspace from the harness's own copies: paper.md and TASK.md
    with their answers hidden (runner/answers.py); the agent's copies are not what is shown."""
    seconds: float = 0.0

    @property
    def base(self) -> Path:
        return self.trial_dir / "reexec"

    def run(self, how: Rerun) -> ReexecRecord:
        """One re-run, made in the one place every re-run is made (``reexec/.run``), then moved
        to its folder: its workspace, home, /tmp, overlay layers and output files have the same
        paths in every re-run, so the mount table, the paths a program reads of its own files and
        its variables do not tell the counting run from a check."""
        final = self.base / how.folder if how.folder else self.base
        stage = self.base / STAGE
        ws, dest = self.trial_dir / "workspace", stage / "workspace"
        shown = self.shown if how.shown is None else how.shown
        if stage.exists():
            shutil.rmtree(stage)
        stage.mkdir(parents=True)
        ident = identity.current()
        room = free_bytes(self.trial_dir) - kept_free(self.trial_dir)  # what the disk can take and keep records
        limit = room if self.disk_bytes is None else min(self.disk_bytes, room)
        overlaid = {s.name for s in shown if s.writable}  # the agent's changes are a layer, not copied
        try:
            copied = untrusted_copy.copy_tree(ws, dest, exclude=how.exclude | overlaid | set(self.purged),
                                              max_bytes=limit,
                                              owner=ident.owner, times=True)
        except untrusted_copy.TooLarge as e:
            shutil.rmtree(stage, ignore_errors=True)
            if self.disk_bytes is None or room < self.disk_bytes:  # the disk is short, not the agent's budget
                raise NoRoom(f"the disk under the run folder has no room to re-execute this trial's workspace "
                             f"({free_bytes(self.trial_dir) / 2**20:.0f} MiB free, "
                             f"{kept_free(self.trial_dir) / 2**20:.0f} MiB kept for records): a harness error, run "
                             "again once there is room") from None
            return ReexecRecord(ran=False, reason=f"not copied for re-execution: {e}")
        removed = sorted(p for p in how.exclude if ((ws / p).exists() or (ws / p).is_symlink()) and p not in self.texts)
        root_ns = ws.lstat().st_mtime_ns
        for name, raw in self.texts.items():  # dated as the workspace (or the agent's copy: _redate)
            untrusted.write_bytes(dest, name, raw, 0o644, owner=ident.owner)
            os.utime(dest / name, ns=(root_ns, root_ns), follow_symlinks=False)
        changed = [*(self.prepare(dest) if self.prepare is not None and how.common else []),
                   *(how.prepare(dest) if how.prepare is not None else [])]
        binds, overlays = present(shown, dest, stage / OVERLAYS, depth=LAYERS)  # uppers: dest/<kind>
        if ident.dedicated:  # the stand-in layers the harness made are the sandbox user's, as the cache's objects
            for layer in {p for s in shown if s.writable for p in s.layers if p.is_relative_to(self.base)}:
                ident.give_tree(layer)
        _redate(ws, dest)
        before = snapshot(dest)
        extras = dict(self.extras)
        env = dict(extras.pop("env", {})) | how.env
        extras["binds"] = [*extras.get("binds", []), *binds, *how.binds]
        if self.fresh is not None:
            own = self.fresh(stage, how.folder)
            extras["binds"] = [*extras["binds"], *own.pop("binds", [])]
            extras.update(own)
            ns = ws.lstat().st_mtime_ns  # its own home and /tmp, fresh, dated alike in every re-run
            for part in stage.iterdir():
                if part.is_dir() and not part.is_symlink() and part.name != "workspace":
                    os.utime(part, ns=(ns, ns))
        deadline = Deadline(how.wall or self.wall_seconds)
        # what a program is told of its time is the counting run's, whatever bound a check sets
        env["RECLAIM_DEADLINE"] = f"{time.time() + self.wall_seconds:.0f}"
        box = make_sandbox(self.sandbox, SandboxConfig(dest, hidden=self.hidden, env=env, overlays=overlays, **extras))
        box.start()
        rec = Recorder(box, self.trace, dest, final / "logs", "reexec", deadline, self.cancellation, meter=self.meter,
                       staged=stage / OUTPUT)
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
                self.done(how.folder)
            _settle(stage, final)
        dest = final / "workspace"
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

    def own_files(self, script: str) -> list[str]:
        """The agent's own files in the workspace, as the scope tells them from installed packages
        and caches (judge/scope.py), before any re-run."""
        ws = self.trial_dir / "workspace"
        cand = [e.rel for e in untrusted.walk(ws) if e.kind == "file" and not self._released_as_is(ws, e.rel)]
        return agent_sources(ws, cand, self._trace(), entry=script, package_file=_proxy_copy,
                             released_file=self._released).sources

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
        return next((s.layers[-1] for s in self.released or self.shown if s.name == kind), None)

    def _released(self, inside: str) -> Path | None:
        """The harness's copy of the material file at ``inside`` (a path in the sandbox), when its
        sha256 is the one recorded for it: a released wheel the agent installed from."""
        for s in self.released or self.shown:
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


def _redate(ws: Path, dest: Path) -> None:
    """The re-run's workspace dated as the agent left it: what the harness changed in the copy
    (code copies rewritten, literals altered, the materials' folders made) keeps the times of the
    agent's file, so no re-run is told by when it was prepared. ``dest`` is the harness's copy,
    walked without following a link; nothing runs in it yet."""
    times = {e.rel: e.mtime_ns for e in untrusted.walk(ws)}
    times[""] = ws.lstat().st_mtime_ns
    for e in [*untrusted.walk(dest), None]:
        rel = "" if e is None else e.rel
        ns = times.get(rel)
        if ns is not None and (e is None or e.mtime_ns != ns):
            os.utime(dest / rel if rel else dest, ns=(ns, ns), follow_symlinks=False)


def _settle(stage: Path, final: Path) -> None:
    """The re-run made in ``stage`` moved to its folder ``final`` (the fresh one's is reexec/ itself,
    which holds the others: its parts are moved one by one)."""
    shutil.rmtree(stage / OUTPUT, ignore_errors=True)  # emptied as each command ended
    if final == stage.parent:
        for part in stage.iterdir():
            target = final / part.name
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            os.replace(part, target)
        stage.rmdir()
        return
    if final.exists():
        shutil.rmtree(final)
    os.replace(stage, final)


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
