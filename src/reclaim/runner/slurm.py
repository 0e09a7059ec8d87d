"""The Slurm executor: one job per trial through submitit, on a path every node shares.

A job that Slurm ends before its trial finished (node failure, preemption, scancel) is
submitted again; a trial that finished is never run twice; interrupting `reclaim run`
cancels the run's jobs.
"""

from __future__ import annotations

import logging
import math
import os
import subprocess
import time
from pathlib import Path

from reclaim.runner.resources import time_limit
from reclaim.runner.slurm_options import SlurmOptions
from reclaim.store import Outcome, RunDir, trial_id

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
    from reclaim.runner.run import _index, load_run_suite, make_settings
    from reclaim.runner.trial import run_trial
    from reclaim.sandbox import kill_strays

    rd = RunDir(Path(run_dir))
    spec = rd.spec()
    spec = spec.model_copy(update={"gpus": job_gpus(spec.gpus, dict(os.environ))})
    suite = load_run_suite(rd, spec)
    tid = trial_id(task_id, agent, seed)
    done = rd.record(tid)
    if done is not None and done.done and done.outcome != Outcome.error:
        return done.model_dump(mode="json")  # a requeued job whose trial already finished
    if rd.trial_dir(tid).exists():
        kill_strays(rd.trial_dir(tid))
        rd.set_aside(tid)
    task = suite.task(task_id)
    settings = make_settings(rd, spec, suite, [(task, agent, seed)])
    try:
        rec = run_trial(settings, task, agent, seed)
    finally:
        if settings.gateway is not None:
            settings.gateway.stop()
    _index(rd, lambda ix: ix.add_trial(rec))
    return rec.model_dump(mode="json")


def _alive(job_ids: list[str]) -> set[str]:
    """The jobs Slurm still knows as pending or running."""
    out = subprocess.run(["squeue", "-h", "-o", "%i %T", "-j", ",".join(job_ids)], capture_output=True, text=True)
    return {line.split()[0] for line in out.stdout.splitlines()
            if line.split()[1:] and line.split()[1] not in ("COMPLETED", "CANCELLED", "FAILED", "TIMEOUT")}


class SlurmExecutor:
    name = "slurm"

    def __init__(self, options: SlurmOptions):
        self.options = options

    def _executor(self, rd: RunDir, budget, scale: float):
        import submitit

        ex = submitit.AutoExecutor(folder=str(rd.path / "slurm" / "%j"), cluster="slurm")
        params = {"timeout_min": math.ceil(time_limit(budget, scale) * 2 / 60) + self.options.margin_min,
                  "cpus_per_task": budget.cpus, "mem_gb": max(1, math.ceil(budget.memory_gb)),
                  "name": f"reclaim-{rd.path.name}"}
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
        jobs: dict[str, tuple] = {}  # trial id -> (job, key, attempts)

        def submit(key, attempts: int) -> None:
            task, agent, seed = key
            ex = self._executor(rd, task.spec.budget, spec.budget_scale)  # --time, --gres from the budget
            job = ex.submit(slurm_trial, str(rd.path), task.id, agent, seed)
            jobs[trial_id(task.id, agent, seed)] = (job, key, attempts)
            progress.started(trial_id(task.id, agent, seed))

        for key in pending:
            submit(key, 0)
        try:
            while jobs:
                time.sleep(self.options.poll_s)
                alive = _alive([j.job_id for j, _, _ in jobs.values()])
                for tid, (job, key, attempts) in list(jobs.items()):
                    rec = rd.record(tid)
                    ended = job.job_id not in alive
                    if rec is not None and rec.done and (rec.outcome != Outcome.error or
                                                         (ended and attempts >= self.options.max_requeues)):
                        del jobs[tid]
                        progress.finished(rec)
                    elif rec is not None and rec.done:  # a harness error, often Slurm killing the job
                        if ended:
                            del jobs[tid]
                            submit(key, attempts + 1)
                    elif ended and _has_result(job):
                        del jobs[tid]
                        job.result()  # the job itself failed (not the trial): raise its error here
                    elif job.job_id not in alive:
                        del jobs[tid]  # ended by Slurm before the trial finished: run it again
                        if attempts >= self.options.max_requeues:
                            raise RuntimeError(f"trial {tid}: Slurm ended its job {attempts + 1} times "
                                               f"(last {job.job_id}); see {rd.path / 'slurm'}")
                        submit(key, attempts + 1)
        except KeyboardInterrupt:
            for job, _, _ in jobs.values():
                job.cancel(check=False)
            raise


def _has_result(job) -> bool:
    return Path(job.paths.result_pickle).exists()
