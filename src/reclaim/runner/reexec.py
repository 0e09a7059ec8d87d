"""Re-executing the agent's reproduce.sh in a fresh sandbox, from a copy of its workspace.

The copy is made as an adversary's tree (sandbox/untrusted_copy.py): links are recreated, never
followed, special files are left out, holes stay holes, and a workspace larger than the trial's
disk budget is refused as the agent's failure. The re-execution sees the same paths and the same
variables as the agent did, so telling the two apart gains a script nothing: whatever it prints
is also checked against a run with the released data and weights withheld.
"""

from __future__ import annotations

import posixpath
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from reclaim.budget import BudgetExhausted, Deadline
from reclaim.budget.disk import MAX_MIN_FREE_BYTES, free_bytes
from reclaim.gateway.pkgcache import PackageCache
from reclaim.judge.claim import Reading, holds, read_claim, same_result
from reclaim.judge.provenance import checkable, find_literals, is_code
from reclaim.judge.scope import agent_sources
from reclaim.materials import PAPER_MD, TASK_MD
from reclaim.runner.recorder import Cancellation, Recorder, snapshot
from reclaim.runner.scramble import scramble, scrambled_view
from reclaim.sandbox import Bind, SandboxConfig, identity, make_sandbox, untrusted, untrusted_copy
from reclaim.spec import ReexecMode, TaskSpec
from reclaim.store import sha256_file
from reclaim.store.files import HASH_LIMIT, RESULTS
from reclaim.store.models import ReexecRecord
from reclaim.trace import TraceWriter, read_trace

SCRIPT = "reproduce.sh"
# Removed before re-running: the claimed result, and the texts a script could copy a number from.
EXCLUDED = (RESULTS, PAPER_MD, TASK_MD)
WITHHELD_KINDS = ("data", "weights")  # what a computed number must depend on
WITHHELD_MIN_S = 30.0
WITHOUT_MATERIALS = ("withheld", "scrambled")
"""The re-runs without the released data and weights (or with them scrambled): no fetching them either."""


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
    mounts: list[Bind] = field(default_factory=list)
    """The materials, bound read-only into the workspace as for the agent."""
    fresh: Callable[[Path], dict] | None = None
    """Per re-run sandbox settings made under its own folder: binds added, a /tmp of its own."""
    done: Callable[[Path], object] | None = None
    """Called with the re-run's folder once its sandbox has stopped."""
    seconds: float = 0.0

    def run(self, base: Path, exclude: set[str], wall: float | None = None,
            prepare: Callable[[Path], list[str]] | None = None,
            mounts: list[Bind] | None = None, script: str = SCRIPT) -> ReexecRecord:
        ws, dest = self.trial_dir / "workspace", base / "workspace"
        if dest.exists():
            shutil.rmtree(dest)
        ident = identity.current()
        room = free_bytes(self.trial_dir) - MAX_MIN_FREE_BYTES  # what the disk can take and keep records
        limit = room if self.disk_bytes is None else min(self.disk_bytes, room)
        try:
            copied = untrusted_copy.copy_tree(ws, dest, exclude=exclude, max_bytes=limit,
                                         owner=(ident.uid, ident.gid) if ident.dedicated else None)
        except untrusted_copy.TooLarge as e:
            return ReexecRecord(ran=False, reason=f"not copied for re-execution: {e}")
        removed = sorted(p for p in exclude if (ws / p).exists() or (ws / p).is_symlink())
        changed = prepare(dest) if prepare is not None else []
        before = snapshot(dest)
        extras = dict(self.extras)
        env = dict(extras.pop("env", {}))
        extras["binds"] = [*extras.get("binds", []), *(self.mounts if mounts is None else mounts)]
        if self.fresh is not None:
            own = self.fresh(base)
            extras["binds"] = [*extras["binds"], *own.pop("binds", [])]
            extras.update(own)
        deadline = Deadline(wall or self.wall_seconds)
        env["RECLAIM_DEADLINE"] = f"{time.time() + deadline.seconds:.0f}"
        box = make_sandbox(self.sandbox, SandboxConfig(dest, hidden=self.hidden, env=env, **extras))
        box.start()
        rec = Recorder(box, self.trace, dest, base / "logs", "reexec", deadline, self.cancellation)
        timed_out = False
        try:
            res = rec.run(["bash", script])
            exit_code, timed_out = res.exit_code, res.timed_out
        except BudgetExhausted:
            exit_code, timed_out = None, True
        finally:
            box.stop()
            if self.done is not None:
                self.done(base)
        self.seconds += rec.command_seconds
        untrusted.strip_setid(dest)
        after = snapshot(dest)
        outputs = sorted(p for p in after if before.get(p) != after[p])
        # the agent's programs as it left them: a program the re-run only touched is still one; one
        # it rewrote or deleted is named in the scope and read from the trial's workspace/
        same = {p for p in outputs if p in before and _code(dest, p) and _digest(dest, p) == _digest(ws, p)}
        rewritten = [p for p in before if (p not in after or p in outputs) and p not in same and _code(ws, p)
                     and not self._released_as_is(ws, p)]
        candidates = [p for p in before if p in after and (p not in outputs or p in same)
                      and not self._released_as_is(ws, p)]
        # decided on the workspace as the agent left it: what the re-run read, where it left a file
        # as it was, and the agent's own version of each program the re-run rewrote
        scope = agent_sources(ws, [*candidates, *rewritten], self._trace(), entry=script, package_file=_proxy_copy,
                              released_file=self._released)
        sources = [p for p in scope.sources if p not in set(rewritten)]
        return ReexecRecord(ran=True, reason="timed out" if timed_out else f"exit {exit_code}",
                            exit_code=exit_code, timed_out=timed_out, event_id=rec.last_event,
                            wall_s=rec.deadline.elapsed, removed=removed, sources=sources,
                            outputs=outputs, skipped=copied.skipped or [], scrambled_files=changed,
                            scope=scope.record(rewritten),
                            mode="full" if script == SCRIPT else "evaluate", script=script)

    def _released_as_is(self, ws: Path, rel: str) -> bool:
        """A material file as released: only a provided path is hashed (100,000 files are not)."""
        return rel in self.provided and self.provided[rel] == _digest(ws, rel)

    def material_sizes(self) -> set[int] | None:
        """The sizes of the bound data and weights files, from the harness's own copies: a copy of
        one in the workspace has one of these sizes. None when one is not bound (then every file
        is hashed)."""
        sizes = set()
        for rel in self.provided:
            kind, _, rest = rel.partition("/")
            if kind not in WITHHELD_KINDS:
                continue
            host = next((Path(b.host) / rest for b in self.mounts if Path(b.inside).name == kind), None)
            try:
                sizes.add(host.lstat().st_size)  # the harness's cache: not the agent's to change
            except (AttributeError, OSError):
                return None
        return sizes

    def _released(self, inside: str) -> Path | None:
        """The harness's copy of the material file at ``inside`` (a path in the sandbox), when its
        sha256 is the one recorded for it: a released wheel the agent installed from."""
        for m in self.mounts:
            top = m.inside.rstrip("/")
            if not inside.startswith(top + "/"):
                continue
            rest = posixpath.normpath(inside[len(top) + 1:])
            rel = f"{posixpath.basename(top)}/{rest}"
            host = Path(m.host) / rest
            if rest.startswith("..") or rel not in self.provided or host.is_symlink() or not host.is_file():
                return None
            return host if sha256_file(host) == self.provided[rel] else None
        return None

    def _trace(self) -> list:
        """The trial's trace so far (the proxy's downloads, the re-run's exec record)."""
        try:
            return read_trace(self.trace.path)
        except (OSError, ValueError, AttributeError):
            return []


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


def reexecute(rx: Reexec, spec: TaskSpec) -> tuple[ReexecRecord, float]:
    """Run reproduce.sh again (with ``budget.reexec.mode: evaluate``, the agent's evaluation
    entry point instead, on the artefacts it left: the judge then checks that recorded training
    made them); return its record and the seconds its commands took.

    When the re-executed value is already written in a data file the agent left (a cached
    result), reproduce.sh runs once more without those files. When it meets the criteria and the
    workspace holds released data or weights, it runs once more without them (and without any
    copy of them elsewhere in the workspace): a value that still comes out is not computed from
    the materials.
    """
    ws, base = rx.trial_dir / "workspace", rx.trial_dir / "reexec"
    how = spec.budget.reexec
    script = SCRIPT if how.mode == ReexecMode.full else how.entrypoint
    mode = how.mode.value
    try:
        untrusted.read_head(ws, script, 0)
    except untrusted.Untrusted as e:
        return ReexecRecord(ran=False, reason=f"no usable {script} in the workspace root: {e}", mode=mode,
                            script=script), 0.0
    record = rx.run(base, set(EXCLUDED), script=script)
    if not record.ran:
        return record, rx.seconds
    got = read_claim(base / "workspace", spec)
    if record.exit_code != 0 or got.missing(spec):
        return record, rx.seconds
    values = [x for x in got.present().values() if checkable(x)]
    cached = sorted({lit.path for x in values for lit in find_literals(base / "workspace", record.sources, x)
                     if not lit.is_code})
    if cached:
        record.ablation = rx.run(base / "ablation", set(EXCLUDED) | set(cached))
    if holds(spec, got):
        held = withheld_paths(ws, rx.provided, rx.material_sizes())  # copies the agent made, and copied materials
        bound = [b for b in rx.mounts if Path(b.inside).name in WITHHELD_KINDS]
        if held or bound:
            keep = [b for b in rx.mounts if b not in bound]
            wall = min(rx.wall_seconds, max(WITHHELD_MIN_S, 2 * record.wall_s + 10))
            record.withheld = rx.run(base / "withheld", set(EXCLUDED) | set(held), wall=wall, mounts=keep,
                                     script=script)
            unbound = [p for p in rx.provided if p.split("/", 1)[0] in {Path(b.inside).name for b in bound}]
            record.withheld.removed = sorted({*held, *unbound})
            if not still_computed(record, base, spec, got):  # it needs the files: does it read them?
                seed = rx.trial_dir.name
                views, done = [], []
                for b in bound:  # a scrambled view of each bound material, bound where it was
                    name = Path(b.inside).name
                    done += [f"{name}/{rel}" for rel in scrambled_view(b.host, base / "scrambled-materials" / name, seed)]
                    views.append(Bind(base / "scrambled-materials" / name, b.inside))
                record.scrambled = rx.run(base / "scrambled", set(EXCLUDED), mounts=keep + views, script=script,
                                          prepare=lambda dest: scramble(dest, held, seed) + done)
    return record, rx.seconds


def withheld_paths(ws: Path, provided: dict[str, str], sizes: set[int] | None = None) -> list[str]:
    """The released data and weights in the workspace, and every copy of them the agent made
    (with ``sizes``, the materials' sizes, only a file of one of them is hashed)."""
    digests = {h for p, h in provided.items() if p.split("/", 1)[0] in WITHHELD_KINDS}
    if not digests:
        return []
    out = []
    for e in untrusted.walk(ws):
        if e.kind != "file" or not e.plain:
            continue
        if (e.rel.split("/", 1)[0] in WITHHELD_KINDS and e.rel in provided) or ((sizes is None or e.size in sizes) and _digest(ws, e.rel) in digests):
            out.append(e.rel)
    return sorted(out)


def still_computed(record: ReexecRecord, base: Path, spec: TaskSpec, measured: Reading,
                   which: str = "withheld") -> bool:
    """Did the run without the materials (or with them scrambled) still produce the result
    (every required number)? Then it was not computed from them."""
    w = getattr(record, which)
    if w is None or not w.ran or w.exit_code != 0:
        return False
    return same_result(spec, read_claim(base / which / "workspace", spec), measured)
