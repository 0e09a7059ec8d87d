"""Running a command in a sandbox and putting it on the record: output, exit code, files."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from reclaim.budget import BudgetExhausted, Deadline
from reclaim.sandbox import (
    ExecResult,
    Sandbox,
    SandboxError,
    execlog,
    identity,
    untrusted,
)
from reclaim.store import HASH_LIMIT
from reclaim.trace import (
    BudgetEvent,
    CommandFinished,
    CommandStarted,
    FileChange,
    Note,
    Phase,
    ProgramExec,
    TraceWriter,
)

MAX_FILE_CHANGES = 2000  # per command, on the record; the rest are counted
EXCERPT_BYTES = 8192  # head and tail kept in the event; the whole stream stays in its file


def snapshot(root: Path, deletions: bool = False) -> dict[str, tuple[int, int]]:
    """path -> (size, mtime_ns) for every regular file under root, never through a link; with
    ``deletions``, an overlay's whiteouts too (size -1): a released file the agent deleted."""
    return {e.rel: (e.size if e.kind == "file" else -1, e.mtime_ns) for e in untrusted.walk(root)
            if e.kind == "file" or (deletions and e.kind == "device")}


def diff(root: Path, before: dict, after: dict, limit: int = MAX_FILE_CHANGES,
         released: frozenset[str] = frozenset()) -> tuple[list[FileChange], int]:
    """(the files a command created, changed or deleted, the workspace root's first; how many more
    there were): at most ``limit`` go on the record, so 100,000 files cannot swell the trace.
    ``released``: the material files under copy-on-write (their first change is a modification,
    their whiteout a deletion)."""
    def order(p: str) -> tuple[int, str]:
        return p.count("/"), p

    def kind(p: str, new: bool) -> str | None:
        if after.get(p, (0,))[0] == -1:  # a whiteout: the release's file is gone
            return "deleted" if p in released and before.get(p, (0,))[0] != -1 else None
        return "modified" if not new or p in released else "created"

    every = []
    for p in set(before) | set(after):
        if p not in after:
            if before[p][0] != -1:
                every.append((p, "deleted"))
        elif (p not in before or before[p] != after[p]) and (change := kind(p, p not in before)) is not None:
            every.append((p, change))
    every.sort(key=lambda x: order(x[0]))
    changes = []
    for path, change in every[:limit]:
        if change == "deleted":
            changes.append(FileChange(path=path, change="deleted"))
        else:
            changes.append(FileChange(path=path, change=change, size=after[path][0],
                                      sha256=_hash_or_none(root, path)))
    return changes, max(0, len(every) - limit)


def _hash_or_none(root: Path, rel: str) -> str | None:
    try:
        return untrusted.sha256(root, rel, limit=HASH_LIMIT)
    except (OSError, untrusted.Untrusted):
        return None


def excerpt(path: Path, limit: int = EXCERPT_BYTES) -> tuple[str, int]:
    """(head and tail of the file, its full size in bytes)."""
    data, size = untrusted.read_ends(path, limit)
    return data.decode("utf-8", "replace"), size


class Cancelled(Exception):
    """The run was interrupted: the trial is left unfinished, to be run again on resume."""


@dataclass
class Cancellation:
    """Shared by a run's trials: interrupting stops every sandbox that is running a command."""

    event: threading.Event = field(default_factory=threading.Event)
    active: set = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def cancel(self) -> None:
        self.event.set()
        with self.lock:
            boxes = list(self.active)
        for box in boxes:
            box.stop()

    def check(self) -> None:
        if self.event.is_set():
            raise Cancelled("the run was interrupted")


@dataclass
class Recorder:
    """Runs commands for one phase of a trial, each recorded in the trace as it happens."""

    sandbox: Sandbox
    trace: TraceWriter
    workspace: Path
    logs: Path
    phase: Phase
    deadline: Deadline
    cancellation: Cancellation | None = None
    last_event: int | None = None
    command_seconds: float = 0.0
    last_env: dict[str, str] | None = None
    """The variables the last command got beyond the sandbox's own: the re-execution gets them too."""
    meter: Callable[[], tuple[float | None, float | None]] | None = None
    """Cumulative (CPU seconds, GPU-busy seconds) of the phase: each command gets its share."""
    released: frozenset[str] = frozenset()
    """The released files the workspace shows copy-on-write: their changes are modifications."""
    staged: Path | None = None
    """Where each command's output is written under one name (``<phase>.stdout``) while it runs,
    then moved to ``logs`` under its numbered one: what a program reads of its own output's path
    (/proc/self/fd/1) is then the same in every run of the phase."""

    def run(self, cmd: list[str], *, timeout: float | None = None,
            env: dict[str, str] | None = None) -> ExecResult:
        """Run ``cmd``; raise BudgetExhausted (after recording) if the deadline cut it short."""
        cancel = self.cancellation or Cancellation()
        cancel.check()
        if self.deadline.ended:
            raise BudgetExhausted(f"the trial was stopped (a disk limit) before {str(cmd)[:200]}")
        if self.deadline.expired:
            raise BudgetExhausted(f"no wall-clock budget left for {str(cmd)[:200]}")
        limit = self.deadline.timeout(timeout)
        started = self.trace.emit(CommandStarted, phase=self.phase, cmd=cmd,
                                  cwd=self.sandbox.workspace_inside, timeout_s=limit)
        stem = f"{self.phase}-{started.id:04d}"
        self.last_env = dict(env or {})
        before = snapshot(self.workspace, deletions=bool(self.released))
        used = self.meter() if self.meter is not None else (None, None)
        with cancel.lock:
            cancel.active.add(self.sandbox)
        try:
            at, name = (self.logs, stem) if self.staged is None else (self.staged, self.phase)
            res = self.sandbox.exec(cmd, stdout=at / f"{name}.stdout", stderr=at / f"{name}.stderr",
                                    timeout=limit, env=env)
        except SandboxError:
            cancel.check()  # a sandbox stopped by an interrupt is not a broken sandbox
            raise
        finally:
            with cancel.lock:
                cancel.active.discard(self.sandbox)
        if self.staged is not None:
            self._unstage(res, stem)
        execs = None
        if res.exec_log is not None:
            execs = execlog.parse(res.exec_log, identity.current().drop(), res.exec_log_outside)
            for ex in execs:
                self.trace.emit(ProgramExec, phase=self.phase, command_id=started.id, pid=ex.pid,
                                path=ex.path[:4000], argv=[a[:4000] for a in ex.argv[:256]],
                                truncated=ex.truncated, count=ex.count)
            if execs.cut:
                self.trace.emit(Note, phase=self.phase, level="warning",
                                message=f"the exec record of command {started.id} was cut ({execs.why}): the "
                                        f"{len(execs)} distinct programs first seen are on the record, those "
                                        "after are not; the judge relies on nothing the record does not show")
        changes, omitted = diff(self.workspace, before, snapshot(self.workspace, deletions=bool(self.released)),
                                released=self.released)
        now = self.meter() if self.meter is not None else (None, None)
        cpu_s, gpu_s = (None if a is None or b is None else round(max(0.0, b - a), 3)
                        for a, b in zip(used, now, strict=True))
        out, out_n = excerpt(res.stdout_path)
        err, err_n = excerpt(res.stderr_path)
        self.command_seconds += res.duration
        self.last_event = self.trace.emit(
            CommandFinished, phase=self.phase, started_id=started.id, cmd=cmd, start=res.start,
            end=res.end, exit_code=res.exit_code, timed_out=res.timed_out, stdout=out, stderr=err,
            stdout_bytes=out_n, stderr_bytes=err_n,
            stdout_file=res.stdout_path.relative_to(self.trace.path.parent).as_posix(),
            stderr_file=res.stderr_path.relative_to(self.trace.path.parent).as_posix(),
            files=changes, files_omitted=omitted, cpu_s=cpu_s, gpu_s=gpu_s,
            programs=execs.seen if execs is not None else None, programs_cut=bool(execs and execs.cut)).id
        cancel.check()
        if res.timed_out and self.deadline.expired:
            self.trace.emit(BudgetEvent, phase=self.phase, what="wall_exhausted",
                            detail=f"{self.deadline.seconds:.1f} s of wall clock used up; process tree stopped")
            raise BudgetExhausted(f"wall-clock budget of {self.deadline.seconds:.1f} s exhausted")
        return res

    def _unstage(self, res: ExecResult, stem: str) -> None:
        """The command's output files (and exec record) moved to their numbered place in ``logs``."""
        self.logs.mkdir(parents=True, exist_ok=True)
        for kind in ("stdout", "stderr"):
            src = getattr(res, f"{kind}_path")
            os.replace(src, self.logs / f"{stem}.{kind}")
            setattr(res, f"{kind}_path", self.logs / f"{stem}.{kind}")
        if res.exec_log is not None and res.exec_log.parent.name == f"{self.phase}.execs":
            moved = self.logs / f"{stem}.execs"
            shutil.rmtree(moved, ignore_errors=True)
            os.replace(res.exec_log.parent, moved)
            res.exec_log = moved / res.exec_log.name
