"""A run: every (task, agent, seed) of a suite, several trials at once, resumable after a kill."""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import reclaim
from reclaim.budget import GpuError, discover, limits
from reclaim.failpoints import failpoint
from reclaim.gateway import Upstreams
from reclaim.judge import JudgeConfig, make_judge
from reclaim.materials import MaterialCache, MaterialsError, prefetch
from reclaim.runner import preflight
from reclaim.runner.attempts import clear, needs_run
from reclaim.runner.context import RunError, index_run, load_run_suite
from reclaim.runner.reachable import Gap, Presence, refusal, survey
from reclaim.runner.resources import time_limit
from reclaim.runner.slurm_options import SlurmOptions
from reclaim.sandbox import check_backend
from reclaim.spec import Level, Suite, load_suite
from reclaim.spec.lock import lock_digest
from reclaim.store import (
    MAX_RETRIES,
    RunDir,
    RunSpec,
    TrialRecord,
    keep_records,
    runs_root,
    suite_hash,
    trial_id,
)
from reclaim.store.runlock import hold
from reclaim.suites import bundled
from reclaim.tempdirs import sweep_tempdirs
from reclaim.words import plural

DEFAULT_AGENTS = ("reference", "nop", "fabricate")


@dataclass
class RunOptions:
    suite: Path
    agents: list[str] = field(default_factory=lambda: list(DEFAULT_AGENTS))
    seeds: int = 1
    levels: list[Level] = field(default_factory=list)
    tasks: list[str] = field(default_factory=list)
    jobs: int = 2
    sandbox: str = "bwrap"
    judge: JudgeConfig = field(default_factory=JudgeConfig)
    runs_root: Path | None = None
    """None: $RECLAIM_HOME/runs, one root per user (store/home.py)."""
    run_dir: Path | None = None
    private: bool = False
    allow_pending: bool = False
    """Run tasks of a curated draft that no one has reviewed yet (review: pending)."""
    budget_scale: float = 1.0
    model: str | None = None
    upstreams: Upstreams = field(default_factory=Upstreams)
    gpus: str | None = None
    executor: str = "local"
    slurm: SlurmOptions = field(default_factory=SlurmOptions)
    max_retries: int = MAX_RETRIES
    materials_cache: Path | None = None
    offline: bool = False
    image: str | None = None


def new_run_id() -> str:
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}"


@dataclass
class Checked:
    """A plan that passed preflight: what plan_run writes, or --dry-run prints."""

    suite: Suite
    tasks: list
    cache: MaterialCache
    warnings: list[str]
    presence: Presence | None = None
    """What the materials survey found (the dry run prints it)."""


def plan_run(opts: RunOptions, checked: Checked | None = None) -> RunDir:
    """Check everything that can be checked before a trial starts (check_run, unless done), then write run.json."""
    checked = checked or check_run(opts)
    return _write_plan(opts, checked.suite, checked.tasks, checked.cache)


def check_run(opts: RunOptions, fetch: bool = True) -> Checked:
    """Every option, agent and judge checked and every agent's prerequisites probed (runner/preflight.py);
    writes nothing. With ``fetch`` (not for a dry run, which must stay quick and offline) every material
    is fetched and verified into the cache too. RunError names each problem and its fix."""
    suite = load_suite(opts.suite)
    try:
        make_judge(opts.judge)
    except ValueError as e:
        raise RunError(str(e)) from None
    if (why := check_backend(opts.sandbox)) is not None:
        raise RunError(f"sandbox '{opts.sandbox}' cannot run here: {why}")
    known = {t.id for t in suite.tasks}
    unknown = [t for t in opts.tasks if t not in known]
    if unknown:
        raise RunError(f"unknown task(s) {', '.join(unknown)} in suite {suite.meta.name}; "
                       f"known: {', '.join(sorted(known))}")
    tasks = [t for t in suite.tasks
             if (not opts.tasks or t.id in opts.tasks) and (not opts.levels or t.spec.level in opts.levels)]
    if not tasks:
        raise RunError("no task matches the --task/--level filters")
    chosen = len(tasks)
    tasks, held = _runnable(opts, suite, tasks)
    tasks, short = _within_gpus(opts, tasks)
    held += short
    tasks, short = _within_memory(opts, tasks)
    held += short
    if held:
        held.insert(0, f"{plural(len(tasks), 'task')} of {chosen} run (accepted, values read, within this machine)")
    if opts.seeds < 1 or opts.jobs < 1:
        raise RunError("--seeds and --jobs must be at least 1")
    if opts.max_retries < 0:
        raise RunError("--max-retries must be 0 or more")
    if opts.budget_scale <= 0:
        raise RunError("--budget-scale must be positive")
    try:
        warnings = held + _disk_note(opts, tasks) + preflight.check(opts, tasks)
    except preflight.PreflightError as e:
        raise RunError(str(e)) from None
    cache = MaterialCache(opts.materials_cache, offline=opts.offline)
    # every item looked up before any trial starts (a dry run also asks each host once), then, for a
    # real run, fetched and verified: a bad pin or an unreachable host costs seconds, and each is named
    presence = survey(tasks, cache, ask=not fetch)
    gaps = presence.gaps
    for t in tasks if fetch and not gaps else []:
        try:
            prefetch(t, cache)
        except MaterialsError as e:
            gaps.append(Gap(t.id, "materials", "", str(e)))
    if gaps:
        raise RunError(refusal(gaps, _suite_arg(suite, opts.suite), cache, warnings))
    return Checked(suite, tasks, cache, warnings, presence)


def _suite_arg(suite: Suite, path: Path) -> str:
    """How a command names the suite: by its name where it is the bundled one, else by its folder."""
    return suite.meta.name if bundled().get(suite.meta.name) == Path(path) else str(path)


def _runnable(opts: RunOptions, suite: Suite, tasks: list) -> tuple[list, list[str]]:
    """The tasks that can run, and a warning for those a whole-suite run leaves out: not yet accepted
    by a reviewer (unless --allow-pending takes the pending ones), or a target value not yet read
    from the paper (never run: there is nothing to judge against). A task named with --task that
    cannot run is an error, not a skip."""
    pending = [t.id for t in tasks if t.spec.pending_values()]
    unreviewed = [t.id for t in tasks if t.spec.review is not None and t.spec.review.status != "accepted"
                  and not (opts.allow_pending and t.spec.review.status == "pending") and t.id not in pending]
    if opts.tasks and (pending or unreviewed):
        parts = []
        if unreviewed:
            parts.append(f"{', '.join(unreviewed)} not accepted by a reviewer (review: pending or rejected); review "
                         f"them (reclaim curate review {suite.dir}), or run pending ones with --allow-pending")
        if pending:
            parts.append(f"{', '.join(pending)} with a target value pending (not yet read from the paper): read it "
                         "where the task's 'where' says, write it as the value, and have the task reviewed")
        raise RunError("task(s) " + "; task(s) ".join(parts))
    runnable = [t for t in tasks if t.id not in pending and t.id not in unreviewed]
    if not runnable:
        raise RunError(f"no task of suite {suite.meta.name} can run: {len(unreviewed)} not accepted by a reviewer "
                       f"(--allow-pending runs those pending), {len(pending)} with a target value not yet read "
                       "from the paper")
    held = []
    if unreviewed:
        held.append(f"{plural(len(unreviewed), 'task')} left out, not accepted by a reviewer (review: pending or "
                    f"rejected; --allow-pending runs the pending ones): {', '.join(unreviewed)}")
    if pending:
        held.append(f"{plural(len(pending), 'task')} left out, a target value not yet read from the paper "
                    f"(value: pending): {', '.join(pending)}")
    return runnable, held


def _within_gpus(opts: RunOptions, tasks: list) -> tuple[list, list[str]]:
    """The tasks this machine has the GPUs for (the local executor; a cluster's are its own): one that
    needs more is left out of a whole-suite run with a line that says so, and refused when named."""
    try:
        backend = discover(opts.gpus)
    except GpuError as e:
        raise RunError(str(e)) from None
    if opts.executor != "local":
        return tasks, []
    have = len(backend.devices()) if backend is not None else 0
    short = [t for t in tasks if t.spec.budget.gpus > have]
    if not short:
        return tasks, []
    here = f"{have} GPU(s)" if have else "no GPUs"
    names = ", ".join(f"{t.id} ({t.spec.budget.gpus})" for t in short)
    return _leave_out(opts, tasks, short, names, "GPUs", here,
                      "--executor slurm runs them on a cluster's GPUs, --gpus names this machine's")


def _within_memory(opts: RunOptions, tasks: list) -> tuple[list, list[str]]:
    """The tasks whose memory budget this machine holds (the local executor): as for GPUs, one that
    needs more is left out of a whole-suite run with a line, and refused when named."""
    if opts.executor != "local":
        return tasks, []
    import psutil

    have = psutil.virtual_memory().total / 2**30
    short = [t for t in tasks if t.spec.budget.memory_gb > have]
    if not short:
        return tasks, []
    names = ", ".join(f"{t.id} ({t.spec.budget.memory_gb:g} GiB)" for t in short)
    return _leave_out(opts, tasks, short, names, "memory", f"{have:.0f} GiB",
                      "--executor slurm runs them on a cluster's nodes")


def _disk_note(opts: RunOptions, tasks: list) -> list[str]:
    """A line where the runs root's file system cannot hold the trials that run at once, each at its
    disk budget (the local executor). Not a refusal: a budget is a ceiling most trials stay far
    below, and a full disk ends a trial as the harness's error, never the agent's."""
    if opts.executor != "local" or not tasks:
        return []
    import shutil

    where = (Path(opts.run_dir) if opts.run_dir else runs_root(opts.runs_root)).absolute()
    while not where.exists() and where != where.parent:
        where = where.parent
    free = shutil.disk_usage(where).free / 2**30
    at_once = sorted((t.spec.budget.disk_gb for t in tasks), reverse=True)[:opts.jobs]
    if sum(at_once) <= free:
        return []
    return [f"disk: {len(at_once)} trial(s) at once may each take their disk budget, {sum(at_once):g} GiB in all, "
            f"and {where} has {free:.1f} GiB free: a trial that fills it ends as a harness error (--jobs fewer, or "
            "--runs-root on a larger file system)"]


def _leave_out(opts: RunOptions, tasks: list, short: list, names: str, what: str, here: str,
               fix: str) -> tuple[list, list[str]]:
    """Tasks that need more of ``what`` than this machine has: refused when named with --task, else
    left out with a line that says so (and refused when nothing is left)."""
    if opts.tasks:
        raise RunError(f"task(s) {names} need more {what} than this machine has ({here}): {fix}")
    rest = [t for t in tasks if t not in short]
    if not rest:
        raise RunError(f"no task of this run fits this machine ({here}): {names} need {what}; {fix}")
    return rest, [f"{plural(len(short), 'task')} left out, needing more {what} than this machine has ({here}; "
                  f"{fix}): {names}"]


def _write_plan(opts: RunOptions, suite: Suite, tasks: list, cache: MaterialCache) -> RunDir:
    keep_records(opts.private)
    root = runs_root(opts.runs_root).resolve()
    try:  # the index lives there, and the sandboxes hide it: one line now, not an error in every trial
        root.mkdir(parents=True, exist_ok=True)
        if not os.access(root, os.W_OK | os.X_OK):
            raise PermissionError("not writable by this user")
    except OSError as e:
        raise RunError(f"the runs root {root} cannot be used ({e.strerror or e}): set $RECLAIM_HOME to a folder "
                       "of yours (runs go to $RECLAIM_HOME/runs), or give --runs-root DIR") from None
    run_id = new_run_id() if opts.run_dir is None else Path(opts.run_dir).name
    rd = RunDir(Path(opts.run_dir).resolve() if opts.run_dir else root / run_id)
    if (rd.path / "run.json").exists():
        raise RunError(f"{rd.path} already holds a run; finish it with --resume {rd.path}")
    spec = RunSpec(
        run_id=run_id, created=time.time(), reclaim_version=reclaim.__version__,
        suite_dir=str(suite.dir.resolve()), suite_hash=suite_hash({t.id: t.hash for t in tasks}),
        suite_name=suite.meta.name,
        suite_version=suite.meta.version, task_hashes={t.id: t.hash for t in tasks},
        suite_lock=lock_digest(suite.dir),
        tasks=[t.id for t in tasks], agents=list(opts.agents), seeds=list(range(opts.seeds)),
        judge=opts.judge.label, judge_config=opts.judge.model_dump(), sandbox=opts.sandbox, jobs=opts.jobs,
        budget_scale=opts.budget_scale, model=opts.model, upstreams=opts.upstreams.model_dump(), gpus=opts.gpus,
        executor=opts.executor, slurm=opts.slurm.model_dump(), max_retries=opts.max_retries,
        materials_cache=str(cache.root.resolve()), offline=opts.offline, image=opts.image,
        runs_root=str(root), private=opts.private)
    rd.write_spec(spec)
    index_run(rd, lambda ix: ix.add_run(spec, rd.path))
    return rd


def relocate_suite(rd: RunDir, suite_dir: Path) -> RunSpec:
    """--resume RUN --suite NEWPATH: the suite moved; accept it where its tasks hash the same as
    when the run began, and keep the new path in run.json for what follows."""
    spec = rd.spec()
    load_run_suite(rd, spec, suite_dir)
    spec.suite_dir = str(Path(suite_dir).resolve())
    if not spec.suite_hash:
        spec.suite_hash = suite_hash(spec.task_hashes)
    rd.write_spec(spec)
    index_run(rd, lambda ix: ix.add_run(spec, rd.path))
    return spec


@dataclass
class Progress:
    """Callbacks for a display; all optional."""

    planned: Callable[[int, int], None] = lambda total, done: None
    started: Callable[[str], None] = lambda trial_id: None
    finished: Callable[[TrialRecord], None] = lambda rec: None
    retrying: Callable[[TrialRecord], None] = lambda rec: None
    """A trial ended in a harness error and runs again at once."""
    note: Callable[[str], None] = lambda message: None
    """Something the harness did the user should know of (leftovers of an earlier run removed)."""


def execute(rd: RunDir, progress: Progress | None = None, executor: str | None = None) -> list[TrialRecord]:
    """Run every trial of the run that has not finished; set aside ones a kill interrupted, and
    run again (within the run's bound, runner/attempts.py) ones that ended in a harness error.
    One process at a time: another one running or resuming the run is refused (store/runlock.py)."""
    with hold(rd.path, "running"):
        return _execute(rd, progress or Progress(), executor)


def _execute(rd: RunDir, progress: Progress, executor: str | None) -> list[TrialRecord]:
    spec = rd.spec()
    keep_records(spec.private)
    suite = load_run_suite(rd, spec)
    if (why := check_backend(spec.sandbox)) is not None:
        raise RunError(f"sandbox '{spec.sandbox}' cannot run here: {why}")
    from reclaim.runner.slurm import cancel_left_jobs

    if left := cancel_left_jobs(rd):  # before any trial is set aside: their jobs may still write them
        progress.note(f"cancelled {plural(len(left), 'Slurm job')} that an earlier driver of this run left "
                      f"running ({', '.join(left[:4])}{' ...' if len(left) > 4 else ''}); their trials run again")
    pending = []
    for task_id, agent, seed in spec.trial_keys():
        tid = trial_id(task_id, agent, seed)
        if not needs_run(rd, tid, spec.max_retries):
            continue  # finished, or a harness error that has used up its retries
        clear(rd, tid)
        pending.append((suite.task(task_id), agent, seed))
    total = len(spec.trial_keys())
    progress.planned(total, total - len(pending))
    # longest budget first: the order that keeps a pool of workers busy to the end
    pending.sort(key=lambda key: -time_limit(key[0].spec.budget, spec.budget_scale))
    executor = executor or spec.executor
    if executor == "local" and (swept := limits.sweep()):
        progress.note(f"removed {len(swept)} cgroup(s) left by reclaim processes that are gone: "
                      + "; ".join(swept[:4]) + (" ..." if len(swept) > 4 else ""))
    if swept_dirs := sweep_tempdirs():
        more = " ..." if len(swept_dirs) > 4 else ""
        progress.note(f"removed {len(swept_dirs)} temporary folder(s) left by reclaim processes that are gone "
                      "(sockets, keys, scratch): " + "; ".join(swept_dirs[:4]) + more)
    failpoint("plan")
    if executor == "slurm":
        from reclaim.runner.slurm import SlurmExecutor

        SlurmExecutor(SlurmOptions.model_validate(spec.slurm)).run(rd, pending, progress)
    elif executor == "local":
        from reclaim.runner.local import run_local

        run_local(rd, spec, suite, pending, progress)
    else:
        raise RunError(f"unknown executor '{executor}'; choose local or slurm")
    return rd.records()


