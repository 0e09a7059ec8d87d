"""One harness at a time on a run folder.

``hold(run_path, doing)`` takes an advisory lock (flock) on ``runs/<id>/.lock`` for as long as a
process runs, resumes or re-judges the run. A second process is refused at once with one line
naming the holder; the two never write the same trials. The kernel lets go of the lock when its
holder ends, however it ends (SIGKILL, the OOM killer), so a killed run is never locked out of its
own resume, and there is no stale lock file to clean. The file's content (who holds it) is only
for the message; the lock is the flock. The descriptor is not inherited by anything the holder
starts, so a sandbox that outlives its harness cannot keep the run locked.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from reclaim.errors import RunError

LOCK = ".lock"


class RunInUse(RunError):
    """Another reclaim process holds the run folder."""


def _holder(fd: int) -> str:
    try:
        info = json.loads(os.pread(fd, 4096, 0) or b"{}")
        since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(info["since"])))
        return f"reclaim process {int(info['pid'])} on {info['host']} is {info['doing']} it (since {since})"
    except (ValueError, KeyError, TypeError, OSError):
        return "another reclaim process holds it"


@contextmanager
def hold(run_path: Path, doing: str) -> Iterator[None]:
    """Hold the run folder's lock while the body runs; RunInUse when another process holds it."""
    path = Path(run_path) / LOCK
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as e:  # a link in its place, a read-only folder: said, never followed
        raise RunError(f"{path}: the run's lock cannot be taken ({e.strerror}); it must be a plain file in a "
                       "run folder this user can write") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunInUse(f"{run_path} is in use: {_holder(fd)}; wait for it to end, or stop it (finished "
                           f"trials are kept) and then: reclaim run --resume {run_path}") from None
        mine = {"pid": os.getpid(), "host": socket.gethostname(), "doing": doing, "since": time.time()}
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps(mine).encode(), 0)
        except OSError:
            pass  # only the message would lack the holder's name; the lock is the flock, held
        yield
    finally:
        os.close(fd)
