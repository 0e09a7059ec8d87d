"""Where runs are kept: one root for run folders and their index, and who may read the records."""

from __future__ import annotations

import os
from pathlib import Path

HOME_ENV = "RECLAIM_HOME"
"""Where this user's runs are kept: $RECLAIM_HOME/runs, wherever the command is started from."""

LEGACY_ROOT = Path("runs")
"""Where runs were kept before one root per user (./runs of the folder a run was started in): still
read, by run id and by `reclaim runs`, so that no run recorded there is lost from sight."""


def reclaim_home() -> Path:
    """$RECLAIM_HOME, else $XDG_DATA_HOME/reclaim, else ~/.local/share/reclaim: one home per user, the
    same from every folder (and, on a cluster whose home folders are shared, from every node)."""
    home = os.environ.get(HOME_ENV)
    if home:
        return Path(home).expanduser()
    data = os.environ.get("XDG_DATA_HOME")
    return (Path(data).expanduser() if data else Path.home() / ".local" / "share") / "reclaim"


def runs_root(given: Path | None = None) -> Path:
    """--runs-root, else the user's home's runs/ (reclaim_home)."""
    return Path(given) if given is not None else reclaim_home() / "runs"


def root_origin(given: Path | None = None) -> str:
    """How the runs root was chosen, in words for `reclaim runs`."""
    if given is not None:
        return "given"
    if os.environ.get(HOME_ENV):
        return f"${HOME_ENV}/runs"
    return f"this user's default; set ${HOME_ENV} to keep runs elsewhere"


def legacy_root(root: Path) -> Path | None:
    """./runs, where runs were kept by default before, when it holds runs and is not the root itself."""
    if not (LEGACY_ROOT / "index.sqlite").is_file() and not any(LEGACY_ROOT.glob("*/run.json")):
        return None
    try:
        same = LEGACY_ROOT.resolve() == root.resolve()
    except OSError:
        same = False
    return None if same else LEGACY_ROOT


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
