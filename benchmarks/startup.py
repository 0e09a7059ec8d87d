"""How long `reclaim` takes to start: the median wall time of three everyday commands.

Each command runs as a fresh subprocess of the installed `reclaim` (the one beside this
Python, normally .venv/bin/reclaim), so the figure includes the interpreter's start and every
import the command pulls in — what a user waits for at the prompt.

    .venv/bin/python benchmarks/startup.py [--runs 10] [--run-dir RUN_DIR] [--reclaim "COMMAND"]

--reclaim measures another reclaim, e.g. an older checkout for a before/after figure:
--reclaim "env PYTHONPATH=/tmp/old/src .venv/bin/python -m reclaim.cli".

Without --run-dir, a one-trial demo run (agent nop) is made once in a temporary folder for
`reclaim report` to read. The aim is under 0.3 s for each command.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def reclaim_exe() -> str:
    beside = Path(sys.executable).parent / "reclaim"
    found = str(beside) if beside.exists() else shutil.which("reclaim")
    if not found:
        sys.exit("benchmarks/startup.py: no `reclaim` beside this Python or on PATH; "
                 "install it first (pip install -e .)")
    return found


def median_seconds(cmd: list[str], runs: int) -> float:
    times = []
    env = {**os.environ, "COLUMNS": "100"}
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        times.append(time.perf_counter() - t0)
        if proc.returncode != 0:
            sys.exit(f"`{' '.join(cmd)}` failed (exit {proc.returncode}):\n{proc.stderr.decode()}")
    return statistics.median(times)


def first_task(exe: list[str]) -> str:
    """The first task id `tasks list demo` prints (a bordered table or, since, a borderless one)."""
    listing = subprocess.run([*exe, "tasks", "list", "demo"], capture_output=True, text=True,
                             env={**os.environ, "COLUMNS": "200"}, check=True).stdout.splitlines()
    for i, line in enumerate(listing):
        if line.strip().startswith(("─", "┡", "━")) and i + 1 < len(listing):
            cell = listing[i + 1].replace("│", " ").split()
            if cell:
                return cell[0]
    sys.exit(f"could not read a task id from `tasks list demo`:\n{listing}")


def make_run(exe: list[str], where: Path) -> Path:
    """A one-trial demo run to report on: the first demo task, agent nop."""
    run_dir = where / "startup-run"
    proc = subprocess.run([*exe, "run", "--suite", "demo", "--task", first_task(exe), "--agent", "nop",
                           "--run-dir", str(run_dir)], capture_output=True, text=True)
    if not (run_dir / "run.json").exists():
        sys.exit(f"could not make a run to report on:\n{proc.stdout}\n{proc.stderr}")
    return run_dir


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10, help="runs per command (default 10)")
    ap.add_argument("--run-dir", type=Path, help="an existing run for `reclaim report`")
    ap.add_argument("--reclaim", help="the command that starts reclaim (default: the installed one)")
    args = ap.parse_args()
    exe = shlex.split(args.reclaim) if args.reclaim else [reclaim_exe()]
    with tempfile.TemporaryDirectory(prefix="reclaim-startup-") as tmp:
        run_dir = args.run_dir or make_run(exe, Path(tmp))
        commands = {
            "reclaim --help": [*exe, "--help"],
            "reclaim tasks list": [*exe, "tasks", "list"],
            "reclaim report RUN_DIR": [*exe, "report", str(run_dir)],
        }
        print(f"median wall time over {args.runs} runs (aim: under 0.3 s)")
        for name, cmd in commands.items():
            print(f"  {name:<24} {median_seconds(cmd, args.runs):6.3f} s", flush=True)


if __name__ == "__main__":
    main()
