"""Running a command in a sandbox and putting it on the record: output, exit code, files."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from reclaim.budget import BudgetExhausted, Deadline
from reclaim.sandbox import ExecResult, Sandbox, SandboxError
from reclaim.store.files import sha256_file
from reclaim.trace import (
    BudgetEvent,
    CommandFinished,
    CommandStarted,
    FileChange,
    TraceWriter,
)
from reclaim.trace.events import Phase

EXCERPT_BYTES = 8192  # head and tail kept in the event; the whole stream stays in its file


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """path -> (size, mtime_ns) for every file under root."""
    out = {}
    for p in root.rglob("*"):
        try:
            if p.is_file() and not p.is_symlink():
                st = p.stat()
                out[p.relative_to(root).as_posix()] = (st.st_size, st.st_mtime_ns)
        except OSError:
            continue
    return out


def diff(root: Path, before: dict, after: dict) -> list[FileChange]:
    changes = []
    for path in sorted(after.keys() - before.keys()):
        changes.append(FileChange(path=path, change="created", size=after[path][0],
                                  sha256=_hash_or_none(root / path)))
    for path in sorted(before.keys() & after.keys()):
        if before[path] != after[path]:
            changes.append(FileChange(path=path, change="modified", size=after[path][0],
                                      sha256=_hash_or_none(root / path)))
    for path in sorted(before.keys() - after.keys()):
        changes.append(FileChange(path=path, change="deleted"))
    return changes


def _hash_or_none(path: Path) -> str | None:
    try:
        return sha256_file(path)
    except OSError:
        return None


def excerpt(path: Path, limit: int = EXCERPT_BYTES) -> tuple[str, int]:
    """(head and tail of the file, its full size in bytes)."""
    size = path.stat().st_size if path.exists() else 0
    with open(path, "rb") as fh:
        if size <= limit:
            return fh.read().decode("utf-8", "replace"), size
        head = fh.read(limit // 2)
        fh.seek(size - limit // 2)
        tail = fh.read()
    cut = size - len(head) - len(tail)
    text = head.decode("utf-8", "replace") + f"\n[... {cut} bytes cut ...]\n" + tail.decode("utf-8", "replace")
    return text, size


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

    def run(self, cmd: list[str], *, timeout: float | None = None,
            env: dict[str, str] | None = None) -> ExecResult:
        """Run ``cmd``; raise BudgetExhausted (after recording) if the deadline cut it short."""
        cancel = self.cancellation or Cancellation()
        cancel.check()
        if self.deadline.expired:
            raise BudgetExhausted(f"no wall-clock budget left for {cmd!r}")
        limit = self.deadline.timeout(timeout)
        started = self.trace.emit(CommandStarted, phase=self.phase, cmd=cmd,
                                  cwd=self.sandbox.workspace_inside, timeout_s=limit)
        stem = f"{self.phase}-{started.id:04d}"
        before = snapshot(self.workspace)
        with cancel.lock:
            cancel.active.add(self.sandbox)
        try:
            res = self.sandbox.exec(cmd, stdout=self.logs / f"{stem}.stdout",
                                    stderr=self.logs / f"{stem}.stderr", timeout=limit, env=env)
        except SandboxError:
            cancel.check()  # a sandbox stopped by an interrupt is not a broken sandbox
            raise
        finally:
            with cancel.lock:
                cancel.active.discard(self.sandbox)
        out, out_n = excerpt(res.stdout_path)
        err, err_n = excerpt(res.stderr_path)
        self.command_seconds += res.duration
        self.last_event = self.trace.emit(
            CommandFinished, phase=self.phase, started_id=started.id, cmd=cmd, start=res.start,
            end=res.end, exit_code=res.exit_code, timed_out=res.timed_out, stdout=out, stderr=err,
            stdout_bytes=out_n, stderr_bytes=err_n,
            stdout_file=res.stdout_path.relative_to(self.trace.path.parent).as_posix(),
            stderr_file=res.stderr_path.relative_to(self.trace.path.parent).as_posix(),
            files=diff(self.workspace, before, snapshot(self.workspace))).id
        cancel.check()
        if res.timed_out and self.deadline.expired:
            self.trace.emit(BudgetEvent, phase=self.phase, what="wall_exhausted",
                            detail=f"{self.deadline.seconds:.1f} s of wall clock used up; process tree stopped")
            raise BudgetExhausted(f"wall-clock budget of {self.deadline.seconds:.1f} s exhausted")
        return res
