"""One trial's lifecycle: workspace, sandbox, agent, re-execution, judge, store."""

from __future__ import annotations

import json
import os
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from reclaim.agents import AgentContext, make_agent
from reclaim.agents.base import ModelAccess, Skipped
from reclaim.budget import BudgetExhausted, Deadline
from reclaim.budget.disk import DiskGuard
from reclaim.budget.gpus import Allocator, GpuBackend
from reclaim.gateway import Gateway
from reclaim.gateway.egress import EgressProxy
from reclaim.gateway.tls import client_env
from reclaim.judge import Judge
from reclaim.materials import MaterialCache, build_workspace
from reclaim.runner import audit
from reclaim.runner.environment import TrialEnv, environment_note
from reclaim.runner.network import TrialNetwork, phase_netns, trial_policy, withheld_found
from reclaim.runner.recorder import Cancellation, Cancelled, Recorder
from reclaim.runner.reexec import Reexec, reexecute
from reclaim.runner.resources import Resources, time_limit
from reclaim.sandbox import (
    PROCESS_WARNING,
    Bind,
    SandboxConfig,
    execlog,
    identity,
    kill_strays,
    make_sandbox,
    untrusted,
)
from reclaim.sandbox.base import EGRESS_PORT, GATEWAY_PORT, egress_inside
from reclaim.sandbox.netns import Netns
from reclaim.spec import Task
from reclaim.store import (
    PROVIDED,
    SPEC_JSON,
    TRACE,
    TRIAL_JSON,
    VERDICT_JSON,
    VERDICTS,
    BudgetUse,
    Outcome,
    RunDir,
    Status,
    TrialRecord,
    agent_label,
    seal,
    trial_id,
    write_model,
)
from reclaim.trace import BudgetEvent, Note, TraceWriter, TrialFinished, TrialStarted

AGENT_LOGS_INSIDE = "/agent-logs"
RECORDS = "records"  # harness-only records (gateway calls); never bound into a sandbox


@dataclass
class TrialSettings:
    """What every trial of a run shares."""

    run_id: str
    run_dir: RunDir
    sandbox: str
    judge: Judge
    hidden: list[Path] = field(default_factory=list)
    budget_scale: float = 1.0
    cancellation: Cancellation = field(default_factory=Cancellation)
    gateway: Gateway | None = None
    model: str | None = None
    allocator: Allocator | None = None
    gpu_backend: GpuBackend | None = None
    cache: MaterialCache | None = None
    """Where materials are fetched to and bound from; default ~/.cache/reclaim/materials."""
    image: str | None = None
    """The container image for tasks that name none (--image)."""
    egress: EgressProxy | None = None
    """The run's egress proxy: the only way from a sandbox to other hosts."""
    package_hosts: list[str] = field(default_factory=list)
    """The package indexes this machine's pip, uv, conda and npm use (the 'packages' policy)."""
    index_env: dict[str, str] = field(default_factory=dict)
    """The same indexes, as the variables that point a sandbox's pip, uv and npm at them."""


class _Timer:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def __call__(self, name: str):
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - t0


def limits_for(sandbox: str) -> list[str]:
    base = ["wall_clock", "disk (workspace)"]
    if sandbox == "bwrap":
        base += ["read_only_host", "no_network", "pid_namespace", "process_tree_kill",
                 f"unprivileged uid {identity.current().uid}, no capabilities"]
        if execlog.strace():
            base.append("exec_record (strace, out of the agent's reach)")
    return base


def run_trial(s: TrialSettings, task: Task, agent_spec: str, seed: int) -> TrialRecord:
    """Run one trial to its end. Harness failures end as ``error``, never as the agent's failure."""
    spec = task.spec
    tid = trial_id(task.id, agent_spec, seed)
    tdir = s.run_dir.trial_dir(tid)
    tdir.mkdir(parents=True)
    wall = time_limit(spec.budget, s.budget_scale)
    rec = TrialRecord(
        trial_id=tid, run_id=s.run_id, task=task.id, level=spec.level.value,
        agent=agent_label(agent_spec), seed=seed, spec_hash=task.hash, status=Status.running,
        started=time.time(), sandbox=s.sandbox, isolated=s.sandbox != "process",
        withheld=spec.withheld(), limits_enforced=limits_for(s.sandbox),
        budget=BudgetUse(wall_limit_s=wall, gpus=spec.budget.gpus, gpu_hours_limit=spec.budget.gpu_hours),
        warnings=[PROCESS_WARNING] if s.sandbox == "process" else [])
    timer = _Timer()
    with timer("store_s"):
        write_model(tdir / TRIAL_JSON, rec)
        write_model(tdir / SPEC_JSON, spec)  # the trial can be judged again without its suite
    trace = TraceWriter(tdir / TRACE)
    try:
        with timer("total_s"):
            _lifecycle(s, task, agent_spec, seed, tdir, rec, trace, timer, wall)
    except Cancelled as e:  # left running: --resume sets it aside and runs it again
        trace.emit(Note, phase="setup", level="warning", message=str(e))
    except Skipped as e:  # the agent does not apply to the task: neither its failure nor the harness's
        rec.status, rec.outcome, rec.note = Status.skipped, Outcome.skipped, str(e)
        trace.emit(Note, phase="agent", level="warning", message=f"skipped: {e}")
    except Exception as e:
        if s.cancellation.event.is_set():  # torn down by the interruption (its servers stopped): left to resume
            trace.emit(Note, phase="setup", level="warning", message=f"the run was interrupted: {failure_reason(e)}")
        else:  # a harness failure: keep the record, blame no one
            rec.status, rec.outcome = Status.error, Outcome.error
            rec.error = failure_reason(e)
            trace.emit(Note, phase="setup", level="error", message=traceback.format_exc()[-4000:])
    finally:
        rec.timings = {k: round(v, 4) for k, v in timer.seconds.items()}
        rec.finished = time.time()
        trace.emit(TrialFinished, phase="judge", status=rec.status.value,
                   outcome=rec.outcome.value if rec.outcome else None)
        trace.close()
        if rec.done:
            rec.records = seal(tdir)
        write_model(tdir / TRIAL_JSON, rec)
    return rec


def _lifecycle(s: TrialSettings, task: Task, agent_spec: str, seed: int, tdir: Path,
               rec: TrialRecord, trace: TraceWriter, timer: _Timer, wall: float) -> None:
    spec = task.spec
    trace.emit(TrialStarted, phase="setup", task=task.id, agent=rec.agent, seed=seed,
               level=spec.level.value, sandbox=s.sandbox)
    if s.sandbox == "process":
        trace.emit(Note, phase="setup", level="warning", message=PROCESS_WARNING)
    agent = make_agent(agent_spec)
    resources = Resources.acquire(spec.budget, tdir, s.allocator, s.gpu_backend, f"task {task.id}",
                                  sandbox=s.sandbox)
    try:
        _work(s, task, agent, seed, tdir, rec, trace, timer, wall, resources)
    finally:
        resources.release()
    with timer("judge_s"):
        verdict = s.judge.judge(spec, tdir, rec.status)
        write_model(tdir / VERDICT_JSON, verdict)
        write_model(tdir / VERDICTS / f"{s.judge.label}.json", verdict)
    rec.judge, rec.outcome = s.judge.label, verdict.outcome
    if verdict.outcome == Outcome.error:  # the judge's own failure: say why where retries show it
        rec.error = f"judge {s.judge.label}: {verdict.rationale[:500]}"
    rec.measured, rec.target = verdict.measured, verdict.target
    if rec.status == Status.running:
        rec.status = Status.completed


def task_image(s: TrialSettings, task: Task) -> str | None:
    """The image a container trial runs in: the task's own (its Dockerfile built offline, once), or --image."""
    env = task.spec.environment
    if s.sandbox != "container" or env is None or not (env.image or env.dockerfile):
        return s.image
    if env.image:
        return env.image
    from reclaim.sandbox.images import ensure_image

    return ensure_image(task.dir / env.dockerfile, task.dir)


def _note_links(ws: Path, inside: str, trace: TraceWriter, limit: int = 50) -> None:
    """Put the agent's symlinks that point out of its workspace on the record; none is followed."""
    out = []
    for e in untrusted.walk(ws):
        if e.kind == "symlink" and e.target is not None:
            where = Path(inside, e.rel).parent / e.target
            if not os.path.normpath(where).startswith(inside + "/"):
                out.append(f"{e.rel} -> {e.target}")
    if out:
        trace.emit(Note, phase="agent", level="warning",
                   message=f"{len(out)} symlink(s) in the workspace point outside it (recorded, never followed): "
                           + "; ".join(out[:limit]))


def _disk_full(guard: DiskGuard, trace: TraceWriter, phase: str) -> bool:
    """On the record when the disk ran low; an error (not the agent's) when another trial filled it."""
    if not guard.full:
        return False
    trace.emit(BudgetEvent, phase=phase, what="disk_exhausted", detail=guard.detail + "; process tree stopped")
    if not guard.caused_by_trial:
        raise DiskFull(f"the disk filled up under this trial, not by its own files: {guard.detail}")
    return True


class ModelUnreachable(Exception):
    """Every model call of the agent's failed upstream (unreachable, or the key refused): the set-up's fault."""


def failure_reason(e: BaseException) -> str:
    """A harness failure in words for trial.json: the message of our own errors and the system's,
    and for anything unexpected, a line that says where the traceback is (never a class name alone)."""
    text = str(e).strip()
    if text and (type(e).__module__.startswith("reclaim") or isinstance(e, (OSError, ValueError, RuntimeError))):
        return text
    return f"unexpected failure in the harness ({text or 'no message'}); the traceback is in trace.jsonl"


class DiskFull(Exception):
    """Something other than this trial filled the disk: a fault of the machine, not of the agent."""


def _strip_setid(roots: list[Path], trace: TraceWriter) -> None:
    stripped = [f"{r.name}/{rel}" for r in roots for rel in untrusted.strip_setid(r)]
    if stripped:
        trace.emit(Note, phase="agent", level="warning",
                   message=f"set-uid/set-gid bits cleared on {len(stripped)} file(s) the agent left: "
                           + "; ".join(stripped[:20]))


def _work(s: TrialSettings, task: Task, agent, seed: int, tdir: Path, rec: TrialRecord, trace: TraceWriter,
          timer: _Timer, wall: float, resources: Resources) -> None:
    """The agent, then the re-execution, each in its sandbox, within the trial's resources."""
    spec = task.spec
    ws, logs = tdir / "workspace", tdir / "agent"
    logs.mkdir()
    with timer("environment_s"):
        tenv = TrialEnv.create(task, tdir, isolated=s.sandbox != "process", backend=s.sandbox, image=task_image(s, task))
    rec.environment = tenv.prepared.key
    trace.emit(Note, phase="setup", level="info", message=environment_note(tenv.prepared))
    wants_model = s.gateway is not None and agent.needs_model
    net = TrialNetwork(s.egress, rec.trial_id, tdir, trace) if s.egress is not None and s.sandbox != "process" else None
    ns = phase_netns(s.sandbox, wants_model, net is not None)
    account = None
    if wants_model:
        # the gateway's records go where no sandbox is bound: the agent cannot plant links there
        account = s.gateway.open_account(rec.trial_id, trace, tdir / RECORDS / "llm-calls",
                                         max_tokens=spec.budget.model_tokens, max_usd=spec.budget.money_usd,
                                         listener=ns and ns.take(GATEWAY_PORT))
    resources.phase_limits()
    config = SandboxConfig(ws, binds=[Bind(logs, AGENT_LOGS_INSIDE, writable=True), *agent.binds(s.hidden),
                                      *resources.binds(), *tenv.agent_binds()],
                           hidden=s.hidden, gateway=s.gateway.socket_dir if account else None,
                           env=resources.path_env(resources.env() | tenv.env()), tmp=tenv.tmp(),
                           image=task_image(s, task), netns=ns,
                           **resources.sandbox_extras())
    if net is not None:
        config.egress = net.open("agent", trial_policy(spec, s.package_hosts, account is not None), "agent",
                                 listener=ns and ns.take(EGRESS_PORT))
        proxy_url, bundle = egress_inside()
        config.env.update(client_env(bundle, proxy_url) | s.index_env)
    audit_dir = tdir / "audit"
    if getattr(agent, "audited", False):  # black boxes: record every shell command they run
        audit_dir.mkdir()
        config.binds += audit.binds(audit_dir, s.sandbox)
    box = make_sandbox(s.sandbox, config)
    if audit_dir.is_dir():
        config.env.update({"BASH_ENV": box.inside(audit.HOOK),
                           "RECLAIM_AUDIT_LOG": f"{box.inside(audit_dir)}/{audit.LOG}"})
    with timer("workspace_s"):
        placed = build_workspace(task, ws, box.workspace_inside, s.cache, bind=box.isolated)
        rec.materials = placed.names
        mounts = [Bind(m.host, f"{box.workspace_inside}/{m.name}") for m in placed.mounts] if box.isolated else []
        config.binds += mounts  # read-only, straight from the cache: no copy, no byte per trial
        provided = placed.provided() | {e.rel: untrusted.sha256(ws, e.raw) for e in untrusted.files(ws)}
        (tdir / PROVIDED).write_text(json.dumps(provided, indent=1, sort_keys=True))
        if placed.mounts:
            trace.emit(Note, phase="setup", level="info", message="materials (read-only, from the cache): " + "; ".join(
                f"{m.name}/ = {m.source} [{m.digest[:12]}, {m.bytes} bytes]" for m in placed.mounts))
    deadline = Deadline(wall)
    monitor = resources.watch(deadline, trace)

    def out_of_disk() -> None:  # no further command starts, and the running one is stopped
        deadline.end()
        box.stop()

    monitor.watch_disk([ws, *tenv.disk_roots()], int(spec.budget.disk_gb * 2**30), out_of_disk)
    config.env["RECLAIM_DEADLINE"] = f"{monitor.deadline_unix:.0f}"
    recorder = Recorder(box, trace, ws, tdir / "logs", "agent", deadline, s.cancellation, meter=resources.meter)
    with timer("agent_s"):
        box.start()
        access = ModelAccess(s.gateway.url, account.token, s.model) if account else None
        guard = DiskGuard(tdir, [ws, logs, tdir / "logs", audit_dir, *tenv.disk_roots()], out_of_disk).start()
        try:
            agent.run(AgentContext(task, seed, recorder, trace, ws, logs, access))
        except BudgetExhausted as e:
            rec.status = Status.budget_exhausted
            trace.emit(Note, phase="agent", level="warning", message=str(e))
        finally:
            box.stop()
            guard.stop()
            if net is not None:
                net.close("agent")  # every request of the agent's is on the record before we go on
            audit.import_log(audit_dir, trace)
            if account is not None:
                s.gateway.close_account(account)  # every call is on the record before we go on
                rec.budget.model_calls, rec.budget.model_tokens = account.calls, account.tokens
                rec.budget.model_usd = round(account.usd, 6)
                if account.exhausted:
                    rec.status = Status.budget_exhausted
            if ns is not None:
                ns.close()
    _disk_full(guard, trace, "agent")
    if account is not None and account.calls and account.upstream_failures == account.calls:
        raise ModelUnreachable(f"the agent could not reach its model: every one of its {account.calls} call(s) "
                               f"failed upstream ({account.upstream_reason}); check --openai-base-url or "
                               "$OPENAI_BASE_URL and $OPENAI_API_KEY (--anthropic-base-url, $ANTHROPIC_API_KEY)")
    if monitor.disk_exceeded or guard.full:
        rec.status = Status.budget_exhausted
    _note_links(ws, box.workspace_inside, trace)
    if spec.withheld() and s.cache is not None:
        withheld_found(task, s.cache, [ws, *tenv.disk_roots()], trace)
    _strip_setid([ws, logs, audit_dir, *tenv.disk_roots()], trace)
    rec.budget.agent_wall_s = round(deadline.elapsed, 3)
    rec.budget.gpu_hours_allocated = len(resources.gpus) * deadline.elapsed / 3600
    resources.record(rec, "agent")
    timer.seconds["agent_commands_s"] = recorder.command_seconds
    if rec.status != Status.budget_exhausted:
        with timer("reexec_s"):
            resources.phase_limits()
            # the same paths and variables as the agent's last command, the audit hook included:
            # a script that looks for a difference finds none to act on
            env = config.env | (recorder.last_env or {}) | resources.env()
            env = resources.path_env(env) if "LD_LIBRARY_PATH" not in env else env
            (tdir / "reexec" / "agent-logs").mkdir(parents=True)  # the same path, empty
            extras = {"env": env, "binds": [Bind(tdir / "reexec" / "agent-logs", AGENT_LOGS_INSIDE, writable=True)],
                      "image": config.image, **resources.sandbox_extras()}
            # every re-run gets the agent's environment as it left it, and a home and /tmp of its own:
            # nothing one re-run leaves there can feed the next
            rx_ns: dict[str, Netns | None] = {}  # each re-run's own network

            def own_places(base: Path) -> dict:
                own = {"binds": tenv.reexec_binds(base), "tmp": tenv.tmp(base)}
                if net is not None:  # without the data, no fetching it again either
                    policy = trial_policy(spec, s.package_hosts, False,
                                          without_materials=base.name in ("withheld", "scrambled"))
                    own["netns"] = rx_ns[base.name] = phase_netns(s.sandbox, False, True)
                    own["egress"] = net.open(base.name, policy, "reexec",
                                             listener=own["netns"] and own["netns"].take(EGRESS_PORT))
                return own

            def done(base: Path) -> None:  # the re-run's sandbox stopped: its requests are all on the record
                if net is not None:
                    net.close(base.name)
                if (own_ns := rx_ns.pop(base.name, None)) is not None:
                    own_ns.close()

            fresh = None if s.sandbox == "process" else own_places
            if audit_dir.is_dir():
                (tdir / "reexec" / "audit").mkdir()
                extras["binds"] += audit.binds(tdir / "reexec" / "audit", s.sandbox)
            guard = DiskGuard(tdir, [tdir / "reexec"], lambda: kill_strays(tdir / "reexec")).start()
            try:
                rx, rx_cmd = reexecute(Reexec(tdir, s.sandbox, wall, trace, s.hidden, provided, s.cancellation, extras,
                                              disk_bytes=int(spec.budget.disk_gb * 2**30), fresh=fresh,
                                              mounts=mounts, done=done), spec)
            finally:
                guard.stop()
                if net is not None:
                    net.close_all()
                for left in rx_ns.values():
                    if left is not None:
                        left.close()
            if _disk_full(guard, trace, "reexec"):
                rx.reason = f"stopped: its reproduce.sh filled the disk ({rx.reason})"
            write_model(tdir / "reexec" / "reexec.json", rx)
            audit.import_log(tdir / "reexec" / "audit", trace, phase="reexec")
            resources.record(rec, "reexec")
        rec.budget.reexec_wall_s = round(rx.wall_s, 3)
        timer.seconds["reexec_commands_s"] = rx_cmd
