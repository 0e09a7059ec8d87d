"""Records made durable against a machine crash, off the path of the work.

Every record is in the kernel's hands the moment it is written (a file flushed, or renamed into
place), so a kill of the harness loses nothing. What a crash of the whole machine could still
take is made durable here: one daemon thread fsyncs what was written since it last woke, at
most SYNC_SECONDS later, and everything still pending when the process exits. An fsync costs
milliseconds on a real disk; several a trial in line with the work were a tenth of its time.
"""

from __future__ import annotations

import atexit
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

SYNC_SECONDS = 0.2


class Syncer:
    """Runs each pending sync once, in the background; ``flush`` runs them now."""

    def __init__(self) -> None:
        self._pending: dict[object, Callable[[], None]] = {}
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def mark(self, key: object, sync: Callable[[], None]) -> None:
        with self._cond:
            self._pending.pop(key, None)  # to the end: synced after what was written before it
            self._pending[key] = sync
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="reclaim-sync", daemon=True)
                self._thread.start()
            self._cond.notify()

    def flush(self) -> None:
        with self._cond:
            pending, self._pending = self._pending, {}
        _run(pending)

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._pending:
                    self._cond.wait()
            time.sleep(SYNC_SECONDS)  # what comes meanwhile is synced in the same pass
            self.flush()


def _run(pending: dict[object, Callable[[], None]]) -> None:
    for sync in pending.values():
        try:
            sync()
        except OSError:  # gone or unreadable since: nothing left to make durable
            pass


def fsync_path(path: Path) -> None:
    """fsync a file by its name, then the folder that names it (the rename into place)."""
    for p, flags in ((path, os.O_RDONLY), (path.parent, os.O_RDONLY | os.O_DIRECTORY)):
        fd = os.open(p, flags | os.O_CLOEXEC | os.O_NOFOLLOW)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def sync_later(path: Path) -> None:
    """``path`` (already written and in place) made durable within SYNC_SECONDS."""
    path = Path(path)
    syncer.mark(("path", str(path)), lambda: fsync_path(path))


syncer = Syncer()
atexit.register(syncer.flush)
