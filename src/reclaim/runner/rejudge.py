"""Judging finished trials again, with any judge; verdicts are filed side by side."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from reclaim.judge import Judge, Verdict
from reclaim.store import VERDICTS, RunDir, Status, TrialRecord, trial_spec, write_model
from reclaim.store.runlock import hold


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

    with hold(rd.path, "re-judging"), ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, records))  # a run in progress moves trials it retries: one at a time
