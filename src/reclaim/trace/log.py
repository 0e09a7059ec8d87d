"""Append-only trace.jsonl: each event is written and flushed as it happens, synced to disk in groups.

A flushed event is the kernel's: it survives the harness being killed. Syncing each event to
the disk as well (against the machine itself going down) cost 0.4 ms an event on the writer's
path, 13 ms a trivial trial; so the records' one background thread (reclaim/durable.py) syncs
every file written to within the last SYNC_SECONDS, in the order they were written. A machine
crash can lose at most those last SYNC_SECONDS: a trial that finished within them is found
unfinished, or with a record its seal no longer matches (an error, never the agent's), and
--resume runs it again.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import TypeVar

from pydantic import TypeAdapter

from reclaim import durable
from reclaim.errors import ReclaimError
from reclaim.trace.events import Event, EventBase

E = TypeVar("E", bound=EventBase)


_adapter: TypeAdapter = TypeAdapter(Event)


class TraceWriter:
    """Writes one trial's events. Ids count from 1 and continue an existing file."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._next = len(read_trace(self.path)) + 1 if self.path.exists() else 1
        self._fh = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - held open for the trial; close() ends it

    def emit(self, cls: type[E], **fields) -> E:
        with self._lock:
            event = cls(id=self._next, ts=time.time(), **fields)
            self._fh.write(event.model_dump_json() + "\n")
            self._fh.flush()
            self._next += 1
        durable.syncer.mark(self, self.sync)
        return event

    def sync(self) -> None:
        """Make what was written durable against a machine crash too."""
        with self._lock:
            if not self._fh.closed:
                os.fsync(self._fh.fileno())
                return
        durable.fsync_path(self.path)

    @property
    def closed(self) -> bool:
        return self._fh.closed

    def close(self) -> None:
        """Flush and close; where the flush fails (a full disk), the file is closed all the same and
        the flush's error raised."""
        with self._lock:
            if not self._fh.closed:
                try:
                    self._fh.flush()
                finally:
                    try:
                        self._fh.close()
                    except OSError:
                        pass  # what the flush could not write, the close cannot either: its error is raised
        durable.sync_later(self.path)

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class TraceCorrupt(ReclaimError):
    """A complete line of a trace that is no event: the record was damaged after it was written."""


def read_trace(path: Path) -> list:
    """Every complete event in the file; a line cut short by a crash is skipped. A complete line
    that is no event (a damaged disk, a hand edit) is TraceCorrupt, naming the file and line."""
    events = []
    with open(path, encoding="utf-8", errors="replace") as fh:
        for n, line in enumerate(fh, start=1):
            if not line.endswith("\n"):
                break  # the last write was interrupted
            try:
                events.append(_adapter.validate_json(line))
            except ValueError as e:  # pydantic's ValidationError is one
                first = str(e).splitlines()
                raise TraceCorrupt(f"{path}:{n}: not a trace event ({first[-1].strip() if first else e}); the "
                                   "record was damaged after it was written: run the trial again "
                                   "(reclaim run --resume) or restore the file") from None
    return events
