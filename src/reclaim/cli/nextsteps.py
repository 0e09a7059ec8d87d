"""What to do after a run: the commands that read it, spelt as they work from here (the `reclaim`
that ran, by its path where it is not on PATH, and the run by its id where that finds it)."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

from reclaim.report.aggregate import LEVELS
from reclaim.store import Outcome, RunDir, TrialRecord, find_run


def _shown(path: Path) -> str:
    """A path as short as it stays right from here: relative under the working folder, else absolute."""
    path = path.absolute()
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def invoked_as(argv0: str | None = None) -> tuple[str, list[str]]:
    """The command that runs this reclaim again from here, and where it is not `reclaim` on PATH, lines
    saying so."""
    argv0 = argv0 or sys.argv[0]
    if Path(argv0).name == "__main__.py":  # python -m reclaim.cli
        return f"{shlex.quote(_shown(Path(sys.executable)))} -m reclaim.cli", []
    found = shutil.which("reclaim")
    if found and os.path.realpath(found) == os.path.realpath(argv0):
        return "reclaim", []
    if found is None and not (Path(argv0).is_file() or os.sep in argv0):
        return "reclaim", []  # run by a name we cannot place: leave it as people type it
    prog = shlex.quote(argv0 if os.sep in argv0 and not Path(argv0).is_absolute() else _shown(Path(argv0)))
    activate = Path(argv0).parent / "activate"
    if activate.is_file():
        return prog, [f"  # {prog} is not on your PATH; to type `reclaim` instead:",
                      f"  source {shlex.quote(_shown(activate))}"]
    return prog, [f"  # {prog} is not on your PATH: the commands above name it by its path"]


def run_named(rd: RunDir) -> str:
    """The run as the user can name it from here: its id where that finds it, else its folder."""
    run_id = rd.path.name
    try:
        if find_run(Path(run_id)).resolve() == rd.path.resolve():
            return run_id
    except OSError:
        pass
    return shlex.quote(_shown(rd.path))


def example_trial(records: list[TrialRecord]) -> str:
    """A trial worth a first look: the first, in level order, that did not reproduce (else the first)."""
    rank = {level: i for i, level in enumerate(LEVELS)}
    done = sorted((r for r in records if r.done), key=lambda r: (rank.get(r.level, len(LEVELS)), r.task, r.agent,
                                                                  r.seed))
    pick = next((r for r in done if r.outcome != Outcome.reproduced), done[0] if done else None)
    return pick.trial_id if pick is not None else "TRIAL"


def next_steps(rd: RunDir, records: list[TrialRecord], argv0: str | None = None) -> list[str]:
    prog, hint = invoked_as(argv0)
    run = run_named(rd)
    lines = ["next:",
             "  # every trial in level order, with its reason and flags",
             f"  {prog} report {run} --trials",
             "  # one trial's whole story (any TRIAL that --trials lists)",
             f"  {prog} show {run} {example_trial(records)}",
             "  # the report as one web page; or served to your browser",
             f"  {prog} report {run} --format html -o report.html",
             f"  {prog} view {run}"]
    return lines + hint
