"""A SQLite index over run directories, for queries across runs. Always rebuildable."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from reclaim.errors import NotFound
from reclaim.store.files import RUN_JSON, RunDir
from reclaim.store.home import HOME_ENV, legacy_root, runs_root
from reclaim.store.models import RunSpec, TrialRecord

INDEX_FILE = "index.sqlite"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY, path TEXT, created REAL, suite TEXT, suite_version TEXT,
  agents TEXT, seeds INTEGER, judge TEXT, sandbox TEXT);
CREATE TABLE IF NOT EXISTS trials (
  run_id TEXT, trial_id TEXT, task TEXT, level TEXT, agent TEXT, seed INTEGER,
  status TEXT, outcome TEXT, measured REAL, target REAL, wall_s REAL, spec_hash TEXT,
  PRIMARY KEY (run_id, trial_id));
"""
_lock = threading.Lock()


class Index:
    """<runs root>/index.sqlite: every run kept in the root, and runs kept elsewhere (--run-dir) by
    their path. Trial directories stay the truth; this only mirrors them."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.path = self.root / INDEX_FILE

    def _connect(self) -> sqlite3.Connection:
        self.root.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(self.path, timeout=30)
        con.executescript(_SCHEMA)
        return con

    def exists(self) -> bool:
        return self.path.is_file()

    def add_run(self, spec: RunSpec, path: Path) -> None:
        with _lock, self._connect() as con:
            con.execute("INSERT OR REPLACE INTO runs VALUES (?,?,?,?,?,?,?,?,?)",
                        (spec.run_id, str(Path(path).resolve()), spec.created, spec.suite_name,
                         spec.suite_version, ",".join(spec.agents), len(spec.seeds), spec.judge,
                         spec.sandbox))

    def add_trial(self, rec: TrialRecord) -> None:
        with _lock, self._connect() as con:
            con.execute("INSERT OR REPLACE INTO trials VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                        (rec.run_id, rec.trial_id, rec.task, rec.level, rec.agent, rec.seed,
                         rec.status.value, rec.outcome.value if rec.outcome else None,
                         rec.measured, rec.target, rec.timings.get("total_s"), rec.spec_hash))

    def rebuild(self) -> tuple[int, int]:
        """Drop the index and refill it from every run directory under the root, and from the
        runs kept elsewhere (--run-dir outside the root) that the index listed and that still exist."""
        here = [p.parent.resolve() for p in sorted(self.root.glob(f"*/{RUN_JSON}"))]
        try:
            listed = self.run_paths()
        except sqlite3.DatabaseError:
            listed = []  # an unreadable index: only the runs under the root are found again
        elsewhere = [p for p in listed if p not in here and (p / RUN_JSON).is_file()]
        with _lock:
            self.path.unlink(missing_ok=True)
        runs = trials = 0
        for path in here + elsewhere:
            rd = RunDir(path)
            try:
                rd.spec()
            except FileNotFoundError:
                continue  # not a readable run.json: not a run
            self.add_run(rd.spec(), rd.path)
            runs += 1
            for rec in rd.records():
                self.add_trial(rec)
                trials += 1
        return runs, trials

    def run_paths(self) -> list[Path]:
        """The folders of the runs the index lists (none when there is no index yet)."""
        return [Path(p) for (p,) in self.query("SELECT path FROM runs ORDER BY created") if p]

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        """Read the index; no index file is no rows, and nothing is created."""
        if not self.exists():
            return []
        con = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=30)
        try:
            return con.execute(sql, params).fetchall()
        finally:
            con.close()


def find_run(given: Path, root: Path | None = None) -> Path:
    """A run folder as the user names it: a path to it, or its run id as `reclaim runs` prints it,
    found in the runs root (--runs-root, else $RECLAIM_HOME/runs: store/home.py) or, for a run kept
    elsewhere with --run-dir, in the root's index; then in ./runs, where runs were kept by default
    before (read, never written). Anything else is returned as given, for the caller to refuse."""
    path = Path(given)
    if (path / RUN_JSON).is_file() or path.is_absolute() or len(path.parts) != 1:
        return path
    base = runs_root(root)
    roots = [base] + ([old] if root is None and (old := legacy_root(base)) is not None else [])
    for where in roots:
        found = _in_root(where, path.name)
        if found is not None:
            return found
    if not path.exists():  # an id found nowhere: say where it was looked for
        looked = f"the runs root {base.absolute()}" + (f" nor in {roots[1].absolute()}" if len(roots) > 1 else "")
        raise NotFound(f"no run {given}: not a folder here, not in {looked} nor in an "
                       "index (runs started with --run-dir elsewhere are listed there); give the run's folder, "
                       f"or its runs root (--runs-root, or ${HOME_ENV} for one root wherever you start from)")
    return path


def _in_root(root: Path, run_id: str) -> Path | None:
    """The run folder of that id under the root, or listed in its index."""
    if (root / run_id / RUN_JSON).is_file():
        return root / run_id
    try:
        listed = Index(root).run_paths()
    except sqlite3.DatabaseError:
        listed = []
    return next((p for p in listed if p.name == run_id and (p / RUN_JSON).is_file()), None)
