"""How often a trial runs: a harness ``error`` is run again, a bounded number of times.

An ``error`` is left out of the agent's rate, so unbounded retries would let an agent that can
end its trial in ``error`` try until it wins. Every finished attempt that ended in ``error`` is
kept under retried/ and counted there, so the bound holds across ``--resume``; an attempt a kill
or Ctrl-C cut short (not finished) goes to interrupted/ and does not count.
"""

from __future__ import annotations

from reclaim.sandbox import kill_strays
from reclaim.store import Outcome, RunDir, TrialRecord


def errors_so_far(rd: RunDir, trial_id: str) -> int:
    """Finished attempts of the trial that ended in a harness error, the one in trials/ included."""
    rec = rd.record(trial_id)
    current = rec is not None and rec.done and rec.outcome == Outcome.error
    return len(rd.retried(trial_id)) + current


def may_retry(rd: RunDir, rec: TrialRecord, max_retries: int) -> bool:
    """Whether a finished trial should run again: only a harness error, and only while retries are left."""
    return rec.done and rec.outcome == Outcome.error and errors_so_far(rd, rec.trial_id) <= max_retries


def needs_run(rd: RunDir, trial_id: str, max_retries: int) -> bool:
    """Whether the trial must (still, or again) run: never started, cut short, or an error with retries left."""
    rec = rd.record(trial_id)
    return rec is None or not rec.done or may_retry(rd, rec, max_retries)


def clear(rd: RunDir, trial_id: str) -> None:
    """Make way for a new attempt: stop what the old one left running and keep its directory."""
    if rd.trial_dir(trial_id).exists():
        kill_strays(rd.trial_dir(trial_id))
        rd.set_aside(trial_id)
