"""Run and trial directories: the source of truth. Every write is atomic."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from reclaim import durable
from reclaim.errors import NotFound
from reclaim.spec import TaskSpec, load_task
from reclaim.store.home import file_mode
from reclaim.store.models import FROM_DISK, Outcome, RunSpec, Status, TrialRecord

M = TypeVar("M", bound=BaseModel)

RUN_JSON = "run.json"
TRIAL_JSON = "trial.json"
VERDICT_JSON = "verdict.json"
VERDICTS = "verdicts"  # verdicts/<judge label>.json, side by side
SPEC_JSON = "spec.json"
TRACE = "trace.jsonl"
PROVIDED = "materials.json"
"""The harness's list of the files it put in a trial's workspace: path -> sha256."""
TEXTS = "texts"
"""The paper.md and TASK.md the harness gave the agent, kept apart from its workspace: what the
re-runs show (answers hidden) is made from these, never from the agent's copies."""
CHANGED = "materials-changed.json"
"""The released files the agent changed, added or deleted in place (copy-on-write): path, change, sha256."""
RESULTS = "results.json"
"""The agent's claim in its workspace root: metric name -> value."""
HASH_LIMIT = 1 << 30
"""Larger files are on the record by size alone, not hashed."""


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


SEALED = (TRACE, SPEC_JSON, VERDICT_JSON, PROVIDED, CHANGED, "reexec/reexec.json", "records/environment.json",
          "records/egress.jsonl")
"""The records a finished trial's trial.json holds the sha256 of."""


def seal(trial_dir: Path) -> dict[str, str]:
    """sha256 of each sealed record the trial has, for trial.json."""
    return {rel: sha256_file(trial_dir / rel) for rel in SEALED if (trial_dir / rel).is_file()}


def checked_record(trial_dir: Path) -> TrialRecord | None:
    """trial.json, with its sealed records checked: a record changed after the trial ended makes
    the trial an ``error`` (its figures can no longer be vouched for), saying which."""
    rec = read_model(trial_dir / TRIAL_JSON, TrialRecord)
    if rec is None or not rec.records:
        return rec
    changed = [rel for rel, digest in rec.records.items()
               if not (trial_dir / rel).is_file() or sha256_file(trial_dir / rel) != digest]
    if changed:
        rec.status, rec.outcome = Status.error, Outcome.error
        rec.error = (f"{', '.join(changed)} changed after the trial ended (sha256 differs from trial.json); "
                     "its result is not counted")
    return rec


def trial_spec(trial_dir: Path, suite_dir: str | None = None, task: str | None = None) -> TaskSpec:
    """The spec a trial ran under: its own snapshot, or the suite's task for older trials."""
    spec = read_model(trial_dir / SPEC_JSON, TaskSpec)
    if spec is None:
        if suite_dir is None or task is None:
            raise NotFound(f"{trial_dir / SPEC_JSON}: missing, and no suite to read the task from")
        spec = load_task(Path(suite_dir) / task)
    return spec


def write_model(path: Path, model: BaseModel) -> None:
    """Write JSON via a temporary file and rename, so a kill leaves the old or the new file
    (and a crash of the machine, after durable.SYNC_SECONDS)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(fd, file_mode())  # mkstemp makes 0600; records follow keep_records (store/home.py)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(model.model_dump_json(indent=2))
        os.replace(tmp, path)
        durable.sync_later(path)  # the kernel's now; the disk's within durable.SYNC_SECONDS
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_model(path: Path, cls: type[M]) -> M | None:
    """The model in ``path``, or None when it is missing or unreadable."""
    try:
        return cls.model_validate_json(path.read_text(encoding="utf-8"), context={FROM_DISK: True})
    except (OSError, ValidationError, ValueError):  # missing, not a file (a folder, a path through a file), unreadable
        return None


class RunDir:
    """runs/<run_id>/: run.json and trials/<task>__<agent>__<seed>/."""

    def __init__(self, path: Path):
        self.path = Path(path)

    @property
    def trials_dir(self) -> Path:
        return self.path / "trials"

    @property
    def interrupted_dir(self) -> Path:
        return self.path / "interrupted"

    @property
    def retried_dir(self) -> Path:
        """Finished attempts that ended in a harness error and were run again."""
        return self.path / "retried"

    def trial_dir(self, trial_id: str) -> Path:
        return self.trials_dir / trial_id

    def write_spec(self, spec: RunSpec) -> None:
        write_model(self.path / RUN_JSON, spec)

    def spec(self) -> RunSpec:
        spec = read_model(self.path / RUN_JSON, RunSpec)
        if spec is None:
            raise NotFound(f"{self.path / RUN_JSON}: missing or unreadable; is {self.path} a run directory?")
        return spec

    def record(self, trial_id: str) -> TrialRecord | None:
        return checked_record(self.trial_dir(trial_id))

    def records(self) -> list[TrialRecord]:
        """Every trial with a trial.json, finished or not, sorted by id."""
        if not self.trials_dir.is_dir():
            return []
        found = (checked_record(d) for d in sorted(self.trials_dir.iterdir()))
        return [r for r in found if r is not None]

    def verdict_outcome(self, trial_id: str, label: str) -> str | None:
        """The outcome a given judge filed for a trial, if it judged it."""
        try:
            return json.loads((self.trial_dir(trial_id) / VERDICTS / f"{label}.json").read_text())["outcome"]
        except (FileNotFoundError, KeyError, ValueError):
            return None

    def set_aside(self, trial_id: str, cut_short: bool = False) -> Path:
        """Move a trial out of the way, keeping everything it recorded: a finished harness error
        into retried/ (where it counts against the trial's retries), anything else, or anything a
        kill ``cut_short`` whatever it recorded, into interrupted/."""
        rec = None if cut_short else self.record(trial_id)
        errored = rec is not None and rec.done and rec.outcome == Outcome.error
        into = self.retried_dir if errored else self.interrupted_dir
        into.mkdir(parents=True, exist_ok=True)
        n = 1
        while (dest := into / f"{trial_id}.{n}").exists():
            n += 1
        os.replace(self.trial_dir(trial_id), dest)
        return dest

    def interrupted(self) -> dict[str, int]:
        """Trial id -> attempts cut short and set aside in interrupted/ (killed, preempted, a node lost)."""
        counts: dict[str, int] = {}
        if self.interrupted_dir.is_dir():
            for d in self.interrupted_dir.iterdir():
                stem, _, n = d.name.rpartition(".")
                if n.isdigit() and stem:
                    counts[stem] = counts.get(stem, 0) + 1
        return counts

    def retried(self, trial_id: str | None = None) -> list[TrialRecord]:
        """The earlier attempts that ended in a harness error (of one trial, or of all), oldest first."""
        if not self.retried_dir.is_dir():
            return []
        found = []
        for d in self.retried_dir.iterdir():
            stem, _, n = d.name.rpartition(".")
            if not n.isdigit() or (trial_id is not None and stem != trial_id):
                continue
            rec = read_model(d / TRIAL_JSON, TrialRecord)
            if rec is not None and rec.trial_id == stem and rec.done and rec.outcome == Outcome.error:
                found.append((stem, int(n), rec))
        return [rec for _, _, rec in sorted(found, key=lambda f: (f[0], f[1]))]
