"""Where runs are kept: one root for run folders and their index, and who may read the records."""

from __future__ import annotations

import os
from pathlib import Path

HOME_ENV = "RECLAIM_HOME"
"""With it set, runs are kept in $RECLAIM_HOME/runs, wherever the command is started from."""


def runs_root(given: Path | None = None) -> Path:
    """--runs-root, else $RECLAIM_HOME/runs, else ./runs."""
    if given is not None:
        return Path(given)
    home = os.environ.get(HOME_ENV)
    return Path(home).expanduser() / "runs" if home else Path("runs")


_mask: dict[str, int | None] = {"bits": None}


def keep_records(private: bool) -> None:
    """Records readable by everyone (files 0644, folders 0755), or by the owner alone with
    ``private`` (0600, 0700): set through the process's umask, so every file and folder the run
    writes follows, and remembered for atomic writes (store/files.py)."""
    old = os.umask(0o077)
    bits = 0o077 if private else old & ~0o055
    os.umask(bits)
    _mask["bits"] = bits


def file_mode() -> int:
    """The mode a new record file gets: 0666 less the umask keep_records set (the process's own
    umask when it was not called, read from /proc where it can be without changing it)."""
    bits = _mask["bits"]
    if bits is None:
        bits = _read_umask()
    return 0o666 & ~bits


def _read_umask() -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022
