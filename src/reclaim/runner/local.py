"""The local executor: trials run on this machine, several at once, within its CPUs, memory
and GPUs."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor, as_completed

from reclaim.budget import Capacity
from reclaim.failpoints import failpoint
from reclaim.runner.attempts import clear, may_retry
from reclaim.runner.context import index_run, make_settings
from reclaim.runner.trial import RecordUnwritable, run_trial
from reclaim.spec import Suite
from reclaim.store import RunDir, RunSpec, trial_id


def run_local(rd: RunDir, spec: RunSpec, suite: Suite, pending: list, progress) -> None:
    settings = make_settings(rd, spec, suite, pending)
    capacity = Capacity()

    def one(task, agent, seed):
        need = (task.spec.budget.cpus, int(task.spec.budget.memory_gb * 1024))
        capacity.acquire(*need)
        try:
            progress.started(trial_id(task.id, agent, seed))
            while True:
                try:
                    rec = run_trial(settings, task, agent, seed)
                except RecordUnwritable as e:
                    progress.note(str(e))
                    return None
                if settings.cancellation.event.is_set() or not may_retry(rd, rec, spec.max_retries):
                    return rec
                progress.retrying(rec)
                clear(rd, rec.trial_id)  # kept under retried/, where it counts
        finally:
            capacity.release(*need)

    with ThreadPoolExecutor(max_workers=spec.jobs) as pool:
        futures = {pool.submit(one, *key) for key in pending}
        try:
            for fut in as_completed(futures):
                futures.discard(fut)  # its record is on disk: holding every result would grow with the run
                rec = fut.result()
                if rec is None:  # its record could not be written: left unfinished, said already
                    continue
                failpoint("index")
                index_run(rd, lambda ix, rec=rec: ix.add_trial(rec))
                if rec.done:
                    progress.finished(rec)
        except KeyboardInterrupt:
            for fut in futures:
                fut.cancel()
            settings.cancellation.cancel()  # running trials stop now and stay unfinished
            raise
        finally:
            if settings.gateway is not None:
                settings.gateway.stop()
            if settings.egress is not None:
                settings.egress.stop()
