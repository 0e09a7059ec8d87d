"""Append-only trace.jsonl: each event is written, flushed and synced as it happens."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import TypeVar

from pydantic import TypeAdapter

from reclaim.trace.events import Event, _Event

E = TypeVar("E", bound=_Event)
_adapter: TypeAdapter = TypeAdapter(Event)


class TraceWriter:
    """Writes one trial's events. Ids count from 1 and continue an existing file."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._next = len(read_trace(self.path)) + 1 if self.path.exists() else 1
        self._fh = open(self.path, "a", encoding="utf-8")

    def emit(self, cls: type[E], **fields) -> E:
        with self._lock:
            event = cls(id=self._next, ts=time.time(), **fields)
            self._fh.write(event.model_dump_json() + "\n")
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._next += 1
            return event

    def close(self) -> None:
        with self._lock:
            if not self._fh.closed:
                self._fh.close()

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def read_trace(path: Path) -> list:
    """Every complete event in the file; a line cut short by a crash is skipped."""
    events = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.endswith("\n"):
                break  # the last write was interrupted
            events.append(_adapter.validate_json(line))
    return events
