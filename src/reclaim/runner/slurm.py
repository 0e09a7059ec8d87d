"""The Slurm executor: one job per trial through submitit, on a path every node shares.

A job that Slurm ends before its trial finished (node failure, preemption, scancel) is
submitted again, and one Slurm requeues itself runs its trial again from the start; a trial
that finished is never run twice, except one that ended in a harness error, which is submitted
again within the run's bound (runner/attempts.py). Interrupting `reclaim run` (Ctrl-C, SIGTERM,
SIGHUP) cancels the run's jobs, and a resume first cancels any that a killed driver left running.
"""

from __future__ import annotations

import logging
import math
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from reclaim.errors import RunError
from reclaim.failpoints import failpoint
from reclaim.runner.attempts import clear, needs_run
from reclaim.runner.context import index_run, load_run_suite, make_settings
from reclaim.runner.resources import time_limit
from reclaim.runner.slurm_options import SlurmOptions
from reclaim.store import RunDir, trial_id

logging.getLogger("submitit").setLevel(logging.ERROR)  # it warns on every poll without accounting


def job_gpus(configured: str | None, env: dict[str, str]) -> str | None:
    """The GPUs this job may use: the ones Slurm assigned it (by physical index), never the
    node's others; a fake or explicit --gpus is kept where Slurm names none."""
    for var in ("SLURM_JOB_GPUS", "SLURM_STEP_GPUS", "CUDA_VISIBLE_DEVICES"):
        value = env.get(var, "").strip()
        if value and all(part.strip().isdigit() for part in value.split(",")):
            return value
    return configured


def slurm_trial(run_dir: str, task_id: str, agent: str, seed: int) -> dict:
    """What a job runs on its node: one trial, recorded in the shared run directory."""
    from reclaim.runner.trial import run_trial  # on the node only: the submitting side never runs one

    rd = RunDir(Path(run_dir))
    spec = rd.spec()
    spec = spec.model_copy(update={"gpus": job_gpus(spec.gpus, dict(os.environ))})
    suite = load_run_suite(rd, spec)
    tid = trial_id(task_id, agent, seed)
    if not needs_run(rd, tid, spec.max_retries):
        done = rd.record(tid)  # a requeued job whose trial already finished
        assert done is not None  # needs_run: a trial without a record must run
        return done.model_dump(mode="json")
    clear(rd, tid)
    task = suite.task(task_id)
    settings = make_settings(rd, spec, suite, [(task, agent, seed)])
    try:
        with _killed_by_slurm(settings.cancellation) as killed:
            rec = run_trial(settings, task, agent, seed)
    finally:
        if settings.gateway is not None:
            settings.gateway.stop()
        if settings.egress is not None:
            settings.egress.stop()
    if killed and rec.done and rec.finished is not None and killed[0] <= rec.finished:
        rd.set_aside(tid, cut_short=True)  # whatever the kill made of it: an interruption, not an attempt
        return rec.model_dump(mode="json")
    failpoint("index")
    index_run(rd, lambda ix: ix.add_trial(rec))
    return rec.model_dump(mode="json")


@contextmanager
def _killed_by_slurm(cancellation) -> Iterator[list[float]]:
    """Slurm ends a job (scancel, preemption, a drained node) with SIGTERM, then SIGKILL: stop the
    trial at once, and note when, so that what the kill did to it is not taken for its outcome."""
    when: list[float] = []
    if threading.current_thread() is not threading.main_thread():
        yield when
        return

    def on_term(signum, frame) -> None:
        when.append(time.time())
        threading.Thread(target=cancellation.cancel, daemon=True).start()  # it takes locks: not here

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield when
    finally:
        signal.signal(signal.SIGTERM, previous)


def _alive(job_ids: list[str], name: str | None = None) -> set[str]:
    """The jobs Slurm still knows as pending or running (of those named ``name``, where given)."""
    out = subprocess.run(["squeue", "-h", "-o", "%i|%T|%j", "-j", ",".join(job_ids)], capture_output=True, text=True)
    if out.returncode != 0 and "Invalid job id" not in out.stderr:  # every one of them long gone: none alive
        raise RunError(f"cannot ask Slurm about this run's jobs (squeue: {out.stderr.strip() or out.returncode}); "
                       "is slurmctld up? Try again once squeue answers")
    alive = set()
    for line in out.stdout.splitlines():
        job, state, job_name = (line.split("|", 2) + ["", ""])[:3]
        if state not in ("", "COMPLETED", "CANCELLED", "FAILED", "TIMEOUT") and name in (None, job_name):
            alive.add(job)
    return alive


def job_name(rd: RunDir) -> str:
    return f"reclaim-{rd.path.name}"


def cancel_left_jobs(rd: RunDir, wait_s: float = 120.0) -> list[str]:
    """Jobs an earlier driver of this run submitted that Slurm still holds (the driver was killed,
    or the machine it ran on was lost): cancelled and waited for before their trials are set aside
    and run again, so that two jobs never run one trial. Job ids come from the run's own slurm/
    folder and must carry the run's job name (ids restart with a new controller)."""
    folder = rd.path / "slurm"
    ids = sorted(p.name for p in folder.iterdir() if p.name.isdigit()) if folder.is_dir() else []
    if not ids or shutil.which("squeue") is None:
        return []
    left = sorted(_alive(ids, job_name(rd)))
    if left:
        subprocess.run(["scancel", *left], capture_output=True)
        deadline = time.monotonic() + wait_s
        while (still := _alive(left, job_name(rd))) and time.monotonic() < deadline:
            time.sleep(0.5)
        if still:
            raise RunError(f"Slurm still runs job(s) {', '.join(sorted(still))} of this run {wait_s:.0f} s after "
                           f"scancel; resume once squeue no longer lists them")
    return left


class SlurmExecutor:
    name = "slurm"

    def __init__(self, options: SlurmOptions):
        self.options = options

    def _executor(self, rd: RunDir, budget, scale: float):
        import submitit

        ex = submitit.AutoExecutor(folder=str(rd.path / "slurm" / "%j"), cluster="slurm")
        params = {"timeout_min": math.ceil(time_limit(budget, scale) * 2 / 60) + self.options.margin_min,
                  "cpus_per_task": budget.cpus, "mem_gb": max(1, math.ceil(budget.memory_gb)),
                  "name": job_name(rd)}
        if budget.gpus:
            params["slurm_gres"] = f"gpu:{budget.gpus}"
        if self.options.partition:
            params["slurm_partition"] = self.options.partition
        if self.options.account:
            params["slurm_account"] = self.options.account
        ex.update_parameters(**params)
        return ex

    def run(self, rd: RunDir, pending: list, progress) -> None:
        spec = rd.spec()
        jobs: dict[str, tuple] = {}  # trial id -> (job, key, times Slurm ended its job early)

        def submit(key, requeues: int) -> None:
            task, agent, seed = key
            ex = self._executor(rd, task.spec.budget, spec.budget_scale)  # --time, --gres from the budget
            job = ex.submit(slurm_trial, str(rd.path), task.id, agent, seed)
            jobs[trial_id(task.id, agent, seed)] = (job, key, requeues)
            progress.started(trial_id(task.id, agent, seed))

        for key in pending:
            submit(key, 0)
        try:
            while jobs:
                time.sleep(self.options.poll_s)
                alive = _alive([j.job_id for j, _, _ in jobs.values()])
                for tid, (job, key, requeues) in list(jobs.items()):
                    rec = rd.record(tid)
                    if rec is not None and rec.done and not needs_run(rd, tid, spec.max_retries):
                        del jobs[tid]
                        progress.finished(rec)
                    elif job.job_id in alive:
                        continue
                    elif rec is not None and rec.done:  # a harness error with retries left
                        del jobs[tid]
                        progress.retrying(rec)
                        submit(key, requeues)  # the job ran its trial to the end: not a requeue
                    else:  # the job ended before its trial finished
                        del jobs[tid]
                        if _has_result(job):
                            job.result()  # the job itself failed (not the trial): raise its error here
                        if requeues >= self.options.max_requeues:
                            raise RunError(f"trial {tid}: Slurm ended its job {requeues + 1} times "
                                               f"(last {job.job_id}); see {rd.path / 'slurm'}")
                        submit(key, requeues + 1)  # cut short by Slurm: run it again
        except KeyboardInterrupt:
            for job, _, _ in jobs.values():
                job.cancel(check=False)
            raise


def _has_result(job) -> bool:
    return Path(job.paths.result_pickle).exists()
