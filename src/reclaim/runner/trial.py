"""One trial's life: prepare, agent, reexecute, judge, seal (the phases of lifecycle.py).

``run_trial`` runs the phases in order over one ``TrialContext``. How the trial ends follows from
named exceptions: ``BudgetExhausted`` (the agent was stopped; its work is judged as such, without
re-execution), ``Skipped`` (the agent does not apply), ``Cancelled`` (the run was interrupted:
left unfinished, for --resume), and anything else is the harness's failure, recorded with the
phase it happened in and never counted against the agent.
"""

from __future__ import annotations

import errno
import json
import shutil
import time
import traceback
from pathlib import Path

from reclaim.agents import Skipped, make_agent
from reclaim.budget import BudgetExhausted
from reclaim.errors import ReclaimError
from reclaim.failpoints import failpoint
from reclaim.materials import MATERIALS_COW, MATERIALS_READ_ONLY, PAPER_MD, TASK_MD, MaterialCache, build_workspace
from reclaim.runner.agent_phase import run_agent
from reclaim.runner.environment import TrialEnv, environment_note
from reclaim.runner.lifecycle import OutOfRoom, TrialContext
from reclaim.runner.network import TrialNetwork
from reclaim.runner.recorder import Cancelled
from reclaim.runner.reexec_phase import run_reexecution
from reclaim.runner.resources import Resources, time_limit
from reclaim.runner.settings import TrialSettings
from reclaim.runner.views import agent_views
from reclaim.sandbox import Backend, identity, untrusted, untrusted_copy
from reclaim.spec import Task
from reclaim.store import (
    PROVIDED,
    SPEC_JSON,
    TEXTS,
    TRACE,
    TRIAL_JSON,
    VERDICT_JSON,
    VERDICTS,
    BudgetUse,
    Outcome,
    Status,
    TrialRecord,
    agent_label,
    seal,
    trial_id,
    write_model,
)
from reclaim.trace import BudgetEvent, Note, TraceWriter, TrialFinished, TrialStarted


def limits_for(kind: type[Backend]) -> list[str]:
    """What a trial's limits are enforced by: the runner's own, and the sandbox's."""
    return ["wall_clock", "disk (workspace)", *kind.limits()]


def run_trial(s: TrialSettings, task: Task, agent_spec: str, seed: int) -> TrialRecord:
    """Run one trial to its end. Harness failures end as ``error``, never as the agent's failure."""
    ctx = _begin(s, task, agent_spec, seed)
    left: RecordUnwritable | None = None
    try:
        with ctx.timer("total_s"):
            _phases(ctx)
    except Cancelled as e:  # left running: --resume sets it aside and runs it again
        ctx.trace.emit(Note, phase=ctx.trace_phase, level="warning", message=str(e))
    except Skipped as e:  # the agent does not apply to the task: neither its failure nor the harness's
        ctx.rec.status, ctx.rec.outcome, ctx.rec.note = Status.skipped, Outcome.skipped, str(e)
        ctx.trace.emit(Note, phase="agent", level="warning", message=f"skipped: {e}")
    except Exception as e:
        if _out_of_room(e):
            left = _left_for_room(ctx, e)
        else:
            _failed(ctx, e)
    finally:
        _finish(ctx)
    if left is not None:
        raise left
    return ctx.rec


def _out_of_room(e: BaseException) -> bool:
    return isinstance(e, OutOfRoom) or (isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT))


def _left_for_room(ctx: TrialContext, e: BaseException) -> RecordUnwritable:
    """A disk out of room under the run folder is nobody's outcome and no attempt: the trial is left
    unfinished (retrying now, on the same full disk, would only spend its retries), and --resume runs
    it again once there is room. An agent cannot buy extra attempts this way: its own writes are held
    to its disk budget, and a resume is the operator's."""
    ctx.rec.status, ctx.rec.outcome = Status.running, None
    left = RecordUnwritable.at(ctx.tdir, failure_reason(e))
    try:
        ctx.trace.emit(Note, phase=ctx.trace_phase, level="warning", message=str(left))
    except OSError:
        pass  # the note is lost with the room; the message still reaches the terminal
    return left


def _begin(s: TrialSettings, task: Task, agent_spec: str, seed: int) -> TrialContext:
    """The trial's folder, its first trial.json and spec.json, and its trace."""
    spec, kind = task.spec, s.kind
    tid = trial_id(task.id, agent_spec, seed)
    tdir = s.run_dir.trial_dir(tid)
    tdir.mkdir(parents=True)
    wall = time_limit(spec.budget, s.budget_scale)
    rec = TrialRecord(
        trial_id=tid, run_id=s.run_id, task=task.id, level=spec.level.value,
        released_level=spec.released_level().value if spec.posed_harder() else None,
        agent=agent_label(agent_spec), seed=seed, spec_hash=task.hash, status=Status.running,
        started=time.time(), sandbox=s.sandbox, isolated=kind.isolated,
        withheld=spec.withheld(), limits_enforced=limits_for(kind),
        budget=BudgetUse(wall_limit_s=wall, gpus=spec.budget.gpus, gpu_hours_limit=spec.budget.gpu_hours),
        warnings=[kind.warning] if kind.warning else [])
    try:
        write_model(tdir / TRIAL_JSON, rec)
        write_model(tdir / SPEC_JSON, spec)  # the trial can be judged again without its suite
        trace = TraceWriter(tdir / TRACE)
    except OSError as e:  # a full or failing disk before anything ran: nothing to blame, nothing to judge
        raise RecordUnwritable.at(tdir, f"the trial's first records could not be written ({e.strerror or e})") from None
    return TrialContext(s, task, agent_spec, seed, tdir, rec, trace, wall, kind)


def _phases(ctx: TrialContext) -> None:
    with ctx.held:  # the trial's GPUs and limits: let go before judging
        with ctx.phase("prepare"):
            prepare(ctx)
        try:
            with ctx.phase("agent") as stack:
                run_agent(ctx, stack)
            with ctx.phase("reexecute"):
                run_reexecution(ctx)
        except BudgetExhausted as e:
            _stopped(ctx, e)
    with ctx.phase("judge"):
        judge(ctx)


def prepare(ctx: TrialContext) -> None:
    """Everything the agent's sandbox stands on: its agent, GPUs and limits, environment, network
    and workspace (the materials bound read-only from the cache, or copied where a backend cannot bind)."""
    s, task, spec, kind = ctx.settings, ctx.task, ctx.spec, ctx.kind
    ctx.trace.emit(TrialStarted, phase="setup", task=task.id, agent=ctx.rec.agent, seed=ctx.seed,
                   level=spec.level.value, sandbox=s.sandbox)
    if kind.warning:
        ctx.trace.emit(Note, phase="setup", level="warning", message=kind.warning)
    ctx.agent = make_agent(ctx.agent_spec)
    ctx.resources = Resources.acquire(spec.budget, ctx.tdir, s.allocator, s.gpu_backend, f"task {task.id}",
                                      shows_host_usr=kind.shows_host_usr)
    ctx.held.callback(_release, ctx)
    (ctx.tdir / "agent").mkdir()
    ctx.image = task_image(s, task)
    with ctx.timer("environment_s"):
        ctx.tenv = TrialEnv.create(task, ctx.tdir, kind, image=ctx.image,
                                   wheels=s.cache.wheels if s.cache else None,
                                   offline=bool(s.cache and s.cache.offline))
    ctx.rec.environment = ctx.tenv.prepared.key
    ctx.trace.emit(Note, phase="setup", level="info", message=environment_note(ctx.tenv.prepared))
    if s.egress is not None and kind.network != "host":
        ctx.net = TrialNetwork(s.egress, ctx.rec.trial_id, ctx.tdir, ctx.trace)
    if ctx.agent.audited:
        ctx.audit_dir = ctx.tdir / "audit"
        ctx.audit_dir.mkdir()
    with ctx.timer("workspace_s"):
        _workspace(ctx)


def _release(ctx: TrialContext) -> None:
    """Give back the trial's GPUs and cgroups; a cgroup that would not go is on the record."""
    r = ctx.resources
    assert r is not None  # made by the prepare phase
    r.release()
    if r.leftovers:
        ctx.rec.warnings.append(f"{len(r.leftovers)} cgroup(s) of this trial could not be removed "
                                f"({'; '.join(r.leftovers[:4])}): the next reclaim run removes them")


def _workspace(ctx: TrialContext) -> None:
    ws, kind = ctx.workspace, ctx.kind
    inside = kind.workspace_for(ws)
    ctx.writable = kind.binds and kind.overlays() is None
    placed = build_workspace(ctx.task, ws, inside, ctx.settings.cache, bind=kind.binds, writable=ctx.writable)
    ctx.placed, ctx.rec.materials = placed, placed.names
    if ctx.writable:  # the sandbox user owns the release's files in the overlay's view (never the cache's bytes)
        ident = identity.current()
        for m in placed.mounts:
            (ctx.settings.cache or MaterialCache()).hand_over(m.digest, ident.uid, ident.gid)
    # straight from the cache: no copy, no byte per trial
    ctx.views = agent_views(placed.mounts, inside, ctx.writable) if kind.binds else []
    ctx.provided = placed.provided() | {e.rel: untrusted.sha256(ws, e.raw) for e in untrusted.files(ws)}
    (ctx.tdir / PROVIDED).write_text(json.dumps(ctx.provided, indent=1, sort_keys=True))
    (ctx.tdir / TEXTS).mkdir(exist_ok=True)
    for name in (PAPER_MD, TASK_MD):  # the harness's own copies, before the agent runs: what re-runs show
        shutil.copyfile(ws / name, ctx.tdir / TEXTS / name)
    if placed.mounts:
        how = MATERIALS_COW if ctx.writable else MATERIALS_READ_ONLY
        ctx.trace.emit(Note, phase="setup", level="info", message=how + "; ".join(
            f"{m.name}/ = {m.source} [{m.digest[:12]}, {m.bytes} bytes]" for m in placed.mounts))


def task_image(s: TrialSettings, task: Task) -> str | None:
    """The image a container trial runs in: the task's own (its Dockerfile built offline, once), or --image."""
    env = task.spec.environment
    if not s.kind.images or env is None or not (env.image or env.dockerfile):
        return s.image
    if env.image:
        return env.image
    assert env.dockerfile is not None  # one of the two, by the test above
    from reclaim.sandbox.images import ensure_image

    return ensure_image(task.dir / env.dockerfile, task.dir)


def _stopped(ctx: TrialContext, e: BudgetExhausted) -> None:
    """The agent was stopped by a limit: on the record, with which one; nothing is re-executed."""
    ctx.rec.status = Status.budget_exhausted
    ctx.rec.limit = e.limit
    if e.limit is not None:
        ctx.trace.emit(BudgetEvent, phase="agent", what="stopped", detail=f"the agent was stopped: {e.limit.words()}",
                       limit=e.limit.kind.value, value=e.limit.value, used=e.limit.used)


def judge(ctx: TrialContext) -> None:
    """The run's judge decides from the trial's records; its verdict is filed under its label too."""
    s, rec = ctx.settings, ctx.rec
    verdict = s.judge.judge(ctx.spec, ctx.tdir, rec.status)
    write_model(ctx.tdir / VERDICT_JSON, verdict)
    write_model(ctx.tdir / VERDICTS / f"{s.judge.label}.json", verdict)
    rec.judge, rec.outcome = s.judge.label, verdict.outcome
    if verdict.outcome == Outcome.error:  # the judge's own failure: say why where retries show it
        rec.error = f"judge {s.judge.label}: {verdict.rationale[:500]}"
    rec.measured, rec.target = verdict.measured, verdict.target
    if rec.status == Status.running:
        rec.status = Status.completed


def _failed(ctx: TrialContext, e: Exception) -> None:
    rec, trace = ctx.rec, ctx.trace
    if ctx.settings.cancellation.event.is_set():  # torn down by the interruption (its servers stopped): left to resume
        trace.emit(Note, phase=ctx.trace_phase, level="warning",
                   message=f"the run was interrupted: {failure_reason(e)}")
        return
    rec.status, rec.outcome = Status.error, Outcome.error  # a harness failure: keep the record, blame no one
    rec.error, rec.failed_phase = failure_reason(e), ctx.current
    if trace.closed:  # the failure came while sealing: trial.json says it
        return
    try:
        trace.emit(Note, phase=ctx.trace_phase, level="error",
                   message=f"the harness failed in phase {ctx.current}: " + traceback.format_exc()[-4000:])
    except OSError:  # the disk under the records is full or failing: trial.json says it, if it can be written
        pass


def _finish(ctx: TrialContext) -> None:
    try:
        with ctx.phase("seal"):
            _seal(ctx)
    except Exception as e:  # the seal itself failed: the record says so, and is written once more
        _failed(ctx, e)
        try:
            _seal(ctx)
        except OSError as again:  # a full or failing disk: nothing can be recorded; the trial stays unfinished
            raise RecordUnwritable.at(ctx.tdir, f"the trial's record could not be written ({again})") from None


def _seal(ctx: TrialContext) -> None:
    """The last word: timings, the end on the record, the seal over the records, trial.json."""
    rec = ctx.rec
    rec.timings = {k: round(v, 4) for k, v in ctx.timer.seconds.items()}
    rec.finished = time.time()
    if not ctx.trace.closed:
        ctx.trace.emit(TrialFinished, phase="judge", status=rec.status.value,
                       outcome=rec.outcome.value if rec.outcome else None)
        ctx.trace.close()
    failpoint("sealing")
    if rec.done:
        rec.records = seal(ctx.tdir)
    write_model(ctx.tdir / TRIAL_JSON, rec)


class RecordUnwritable(ReclaimError):
    """A trial's record could not be written at all (the disk under the run folder is full or failing):
    the trial is left unfinished for --resume; the run goes on with the others."""

    @classmethod
    def at(cls, tdir: Path, why: str) -> RecordUnwritable:
        return cls(f"{tdir}: {why}; the trial is left unfinished, and reclaim run --resume runs it again once the "
                   "disk under the run folder has room and is sound")


def failure_reason(e: BaseException) -> str:
    """A harness failure in words for trial.json: the message of our own errors and the system's,
    and for anything unexpected, a line that says where the traceback is (never a class name alone)."""
    text = str(e).strip()
    if isinstance(e, OSError) and e.errno in untrusted_copy.DISK_ERRNOS and not e.filename:  # os.write names no file
        return f"{text}: a write of the harness's own failed (the disk under the run folder or a cache)"
    if text and isinstance(e, (ReclaimError, OSError, ValueError, RuntimeError)):
        return text
    return f"unexpected failure in the harness ({text or 'no message'}); the traceback is in trace.jsonl"
