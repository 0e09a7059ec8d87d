"""Judging finished trials again, with any judge; verdicts are filed side by side."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from reclaim.judge import Judge, Verdict
from reclaim.spec import TaskSpec, load_task
from reclaim.store import (
    SPEC_JSON,
    VERDICTS,
    RunDir,
    Status,
    TrialRecord,
    read_model,
    write_model,
)


def trial_spec(trial_dir: Path, suite_dir: str | None = None, task: str | None = None) -> TaskSpec:
    """The spec the trial ran under: its own snapshot, or the suite's task for older trials."""
    spec = read_model(trial_dir / SPEC_JSON, TaskSpec)
    if spec is None:
        if suite_dir is None or task is None:
            raise FileNotFoundError(f"{trial_dir / SPEC_JSON}: missing, and no suite to read the task from")
        spec = load_task(Path(suite_dir) / task)
    return spec


def judgeable(rec: TrialRecord) -> bool:
    """Harness errors and unfinished trials hold nothing to judge."""
    return rec.done and rec.status in (Status.completed, Status.budget_exhausted)


def rejudge(rd: RunDir, judge: Judge, jobs: int = 4,
            done: Callable[[TrialRecord, Verdict], None] = lambda rec, v: None) -> list[tuple[TrialRecord, Verdict]]:
    spec = rd.spec()
    records = [r for r in rd.records() if judgeable(r)]

    def one(rec: TrialRecord) -> tuple[TrialRecord, Verdict]:
        tdir = rd.trial_dir(rec.trial_id)
        verdict = judge.judge(trial_spec(tdir, spec.suite_dir, rec.task), tdir, rec.status)
        write_model(tdir / VERDICTS / f"{judge.label}.json", verdict)
        done(rec, verdict)
        return rec, verdict

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, records))
