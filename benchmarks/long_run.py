"""A long run of a trivial task: does the driver stay flat, the index stay right, the report stay fast?

    python benchmarks/long_run.py [--trials 2000] [--agent reference] [--sandbox bwrap] [--jobs 2]

Runs one demo task with --seeds N as one `reclaim run`, samples the driver's resident memory and
open descriptors twice a second against the number of finished trials, then checks the run's
index against the trial records and times `reclaim report` on it. Prints the driver's memory and
descriptors at 100 trials and at the end, the most of each, the index check and the report's time
(median of 3). benchmarks/faults.py calls ``long_run`` for its figures.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

RECLAIM = [sys.executable, "-m", "reclaim.cli"]


@dataclass
class LongRun:
    trials: int
    wall_s: float
    path: dict[int, tuple[int, int]]
    """Finished trials -> (driver RSS in MB, open descriptors) when they were reached."""
    rss_mb_at_100: float
    rss_mb_at_end: float
    rss_mb_max: float
    fds_at_100: int
    fds_at_end: int
    fds_max: int
    index_rows: int
    index_mismatches: int
    report_s: float
    report_table_s: float

    def lines(self) -> list[str]:
        return [f"long run: {self.trials} trials in {self.wall_s:.0f} s",
                f"  driver memory (RSS): {self.rss_mb_at_100:.0f} MB at 100 trials, {self.rss_mb_at_end:.0f} MB at "
                f"{self.trials}, at most {self.rss_mb_max:.0f} MB",
                "  along the run (trials: MB, descriptors): "
                + ", ".join(f"{m}: {mb} MB, {fds}" for m, (mb, fds) in self.path.items()),
                f"  driver open descriptors: {self.fds_at_100} at 100 trials, {self.fds_at_end} at {self.trials}, "
                f"at most {self.fds_max}",
                f"  index: {self.index_rows} rows for {self.trials} trials, {self.index_mismatches} disagreeing "
                "with their trial.json",
                f"  reclaim report: {self.report_s:.2f} s as JSON, {self.report_table_s:.2f} s as a table "
                "(median of 3)"]


def _finished(root: Path) -> int:
    return sum(1 for _ in root.glob("*/trials/*/verdict.json"))


def long_run(trials: int = 2000, agent: str = "reference", task: str = "run-ridge-nir", sandbox: str = "bwrap",
             jobs: int = 2, root: Path | None = None) -> LongRun:
    root = root or Path(tempfile.mkdtemp(prefix="reclaim-longrun-"))
    root.mkdir(parents=True, exist_ok=True)
    log = open(root / "run.log", "wb")  # noqa: SIM115 -- the driver's progress, read only if it fails
    t0 = time.monotonic()
    proc = subprocess.Popen(RECLAIM + ["run", "--task", task, "--agent", agent, "--seeds", str(trials),
                                       "--sandbox", sandbox, "--jobs", str(jobs), "--runs-root", str(root),
                                       "--format", "json"], stdout=subprocess.DEVNULL, stderr=log)
    driver = psutil.Process(proc.pid)
    samples: list[tuple[int, float, int]] = []  # finished trials, RSS MB, open descriptors
    while proc.poll() is None:
        try:
            rss, fds = driver.memory_info().rss / 2**20, driver.num_fds()
        except psutil.Error:
            break
        samples.append((_finished(root), rss, fds))
        time.sleep(0.5)
    wall = time.monotonic() - t0
    log.close()
    if proc.wait() != 0:
        raise SystemExit(f"the run failed: {(root / 'run.log').read_text()[-2000:]}")
    run = next(p.parent for p in root.glob("*/run.json"))
    samples = [s for s in samples if s[1] > 0]  # a process on its way out reads as 0 MB
    at_100 = next((s for s in samples if s[0] >= min(100, trials)), samples[-1])
    end = next((s for s in samples if s[0] >= trials), samples[-1])
    marks = sorted({min(trials, m) for m in (100, 250, 500, 1000, 1500, 2000, trials)})
    path = {m: next((s for s in samples if s[0] >= m), samples[-1]) for m in marks}
    records = {p.parent.name: json.loads(p.read_text()) for p in run.glob("trials/*/trial.json")}
    index = root / "index.sqlite"
    with sqlite3.connect(index) as con:
        rows = con.execute("SELECT trial_id, outcome, measured FROM trials").fetchall()
    mismatches = sum(1 for tid, outcome, measured in rows
                     if tid not in records or (records[tid]["outcome"], records[tid].get("measured"))
                     != (outcome, measured))
    mismatches += len(set(records) - {tid for tid, _, _ in rows})

    def timed(fmt: str) -> float:
        times = []
        for _ in range(3):
            t = time.perf_counter()
            subprocess.run(RECLAIM + ["report", str(run), "--format", fmt], check=True, capture_output=True)
            times.append(time.perf_counter() - t)
        return statistics.median(times)

    along = {m: (round(r), f) for m, (_, r, f) in path.items()}
    return LongRun(trials=len(records), wall_s=wall, path=along, rss_mb_at_100=at_100[1], rss_mb_at_end=end[1],
                   rss_mb_max=max(s[1] for s in samples), fds_at_100=at_100[2], fds_at_end=end[2],
                   fds_max=max(s[2] for s in samples), index_rows=len(rows), index_mismatches=mismatches,
                   report_s=timed("json"), report_table_s=timed("table"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=2000)
    ap.add_argument("--agent", default="reference")
    ap.add_argument("--task", default="run-ridge-nir")
    ap.add_argument("--sandbox", default="bwrap")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="reclaim-longrun-"))
    try:
        for line in long_run(a.trials, a.agent, a.task, a.sandbox, a.jobs, root).lines():
            print(line)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
