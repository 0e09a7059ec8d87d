"""The agent phase: the agent at work in its sandbox, on the record, within its budget.

Everything the phase opens (the phase's network namespace, the model account, the egress
socket, the disk guard, the sandbox) is closed by the phase's exit stack, in the reverse order,
however the agent ends. Then the harness looks at what it left (links out of the workspace,
withheld material, set-id bits) and puts what it used into trial.json. A budget that ran out
ends the phase with ``BudgetExhausted`` naming the limit; a disk filled by someone else, or a
model no call could reach, is the harness's or the set-up's error, never the agent's.
"""

from __future__ import annotations

import json
import os
from contextlib import ExitStack
from pathlib import Path

from reclaim.agents import AgentContext, ModelAccess
from reclaim.budget import BudgetExhausted, BudgetMonitor, Deadline, DiskGuard, Limit, LimitKind
from reclaim.errors import TrialError
from reclaim.gateway import Account, client_env
from reclaim.runner import audit
from reclaim.runner.lifecycle import OutOfRoom, TrialContext
from reclaim.runner.network import phase_netns, trial_policy, withheld_found
from reclaim.runner.recorder import Recorder
from reclaim.runner.views import OVERLAYS, changes, present
from reclaim.sandbox import EGRESS_PORT, GATEWAY_PORT, Bind, SandboxConfig, egress_inside, make_sandbox, untrusted
from reclaim.store import CHANGED
from reclaim.trace import BudgetEvent, Note, TraceWriter

AGENT_LOGS_INSIDE = "/agent-logs"
RECORDS = "records"  # harness-only records (gateway calls); never bound into a sandbox


class ModelUnreachable(TrialError):
    """Every model call of the agent's failed upstream (unreachable, or the key refused): the set-up's fault."""


class DiskFull(OutOfRoom):
    """Something other than this trial filled the disk: a fault of the machine, not of the agent."""


def run_agent(ctx: TrialContext, stack: ExitStack) -> None:
    """Run the agent to its end; raise BudgetExhausted (after the record is complete) if a limit
    stopped it. What it opens goes on the phase's ``stack``, closed before the harness looks at
    what the agent left: every model call and request is on the record by then."""
    s, spec, tdir, ws = ctx.settings, ctx.spec, ctx.tdir, ctx.workspace
    agent, r, tenv = ctx.agent, ctx.resources, ctx.tenv
    assert agent is not None and r is not None and tenv is not None  # made by the prepare phase
    logs = tdir / "agent"
    wants_model = s.gateway is not None and agent.needs_model
    ns = phase_netns(ctx.kind, wants_model, ctx.net is not None)
    if ns is not None:
        stack.callback(ns.close)
    account = _open_account(ctx, stack, ns) if wants_model else None
    if ctx.audit_dir is not None:
        stack.callback(audit.import_log, ctx.audit_dir, ctx.trace)
    r.phase_limits()
    materials, overlays = present(ctx.views, ws, tdir / OVERLAYS / "agent")
    config = SandboxConfig(ws, binds=[Bind(logs, AGENT_LOGS_INSIDE, writable=True), *agent.binds(s.hidden),
                                      *r.binds(), *tenv.agent_binds(), *materials],
                           hidden=s.hidden, gateway=s.gateway.socket_dir if account and s.gateway else None,
                           env=r.path_env(r.env() | tenv.env()) | dict(spec.verify.inputs), tmp=tenv.tmp(),
                           image=ctx.image, netns=ns, overlays=overlays, **r.sandbox_extras())
    if ctx.net is not None:
        config.egress = ctx.net.open("agent", trial_policy(spec, s.package_hosts, account is not None), "agent",
                                     listener=ns.take(EGRESS_PORT) if ns is not None else None)
        stack.callback(ctx.net.close, "agent")
        proxy_url, bundle = egress_inside()
        config.env.update(client_env(bundle, proxy_url) | s.index_env)
    if ctx.audit_dir is not None:  # black boxes: record every shell command they run
        config.binds += audit.binds(ctx.audit_dir, ctx.kind.shell_hook)
    box = make_sandbox(s.sandbox, config)
    if ctx.audit_dir is not None:
        config.env.update({"BASH_ENV": box.inside(audit.HOOK),
                           "RECLAIM_AUDIT_LOG": f"{box.inside(ctx.audit_dir)}/{audit.LOG}"})
    deadline = Deadline(ctx.wall)
    monitor = r.watch(deadline, ctx.trace)

    def out_of_disk() -> None:  # no further command starts, and the running one is stopped
        deadline.end()
        box.stop()

    monitor.watch_disk([ws, *tenv.disk_roots()], int(spec.budget.disk_gb * 2**30), out_of_disk)
    config.env["RECLAIM_DEADLINE"] = f"{monitor.deadline_unix:.0f}"
    released = frozenset(p for p in ctx.provided if ctx.writable and "/" in p)
    recorder = Recorder(box, ctx.trace, ws, tdir / "logs", "agent", deadline, s.cancellation, meter=r.meter,
                        released=released)
    stop, guard = _work(ctx, box, recorder, account, logs, out_of_disk)
    stack.close()
    stop = _after(ctx, stop, guard, deadline, monitor, account)
    ctx.agent_env = config.env | (recorder.last_env or {})
    ctx.timer.add("agent_commands_s", recorder.command_seconds)
    if stop is not None:
        raise BudgetExhausted(stop.words(), stop)


def trial_model(ctx: TrialContext) -> str | None:
    """The model this trial's agent calls: its own ('codex:model=M'), else the run's --model."""
    return getattr(ctx.agent, "model", None) or ctx.settings.model


def _open_account(ctx: TrialContext, stack: ExitStack, ns) -> Account:
    """The trial's account at the gateway; its records go where no sandbox is bound (the agent
    cannot plant links there), and every call is on the record before the phase ends."""
    s, spec, rec = ctx.settings, ctx.spec, ctx.rec
    model = trial_model(ctx)
    gateway = s.gateway
    assert gateway is not None  # an account is opened only where there is a gateway
    account = gateway.open_account(rec.trial_id, ctx.trace, ctx.tdir / RECORDS / "llm-calls",
                                     max_tokens=spec.budget.model_tokens, max_usd=spec.budget.money_usd,
                                     models=frozenset({model}) if model else None,
                                     listener=ns and ns.take(GATEWAY_PORT))

    def close() -> None:
        gateway.close_account(account)
        rec.budget.model_calls, rec.budget.model_tokens = account.calls, account.tokens
        rec.budget.model_usd = round(account.usd, 6)
        for asked, n in sorted(account.refused_models.items()):
            ctx.trace.emit(Note, phase="agent", level="warning",
                           message=f"the agent asked for model {asked or '(none)'} {n} time(s): refused, the trial's "
                                   f"model is {model} (see `reclaim agents` for how each agent is configured)")

    stack.callback(close)
    return account


def _work(ctx: TrialContext, box, recorder: Recorder, account: Account | None, logs: Path,
          out_of_disk) -> tuple[Limit | None, DiskGuard]:
    """The agent's own work, until it returns or a limit stops it; the sandbox and the disk guard
    are stopped whatever happens."""
    s, tdir, ws = ctx.settings, ctx.tdir, ctx.workspace
    agent, tenv = ctx.agent, ctx.tenv
    assert agent is not None and tenv is not None  # made by the prepare phase
    guard_roots = [ws, logs, tdir / "logs", *([ctx.audit_dir] if ctx.audit_dir else []), *tenv.disk_roots()]
    with ExitStack() as running:
        box.start()
        guard = DiskGuard(tdir, guard_roots, out_of_disk).start()
        running.callback(guard.stop)
        running.callback(box.stop)  # first: the sandbox, then the guard that watched it
        access = ModelAccess(s.gateway.url, account.token, trial_model(ctx)) if account and s.gateway else None
        try:
            agent.run(AgentContext(ctx.task, ctx.seed, recorder, ctx.trace, ws, logs, access))
        except BudgetExhausted as e:
            ctx.trace.emit(Note, phase="agent", level="warning", message=str(e))
            return e.limit or _clock_limit(ctx, recorder.deadline), guard
    return None, guard


def _after(ctx: TrialContext, stop: Limit | None, guard: DiskGuard, deadline: Deadline, monitor: BudgetMonitor,
           account: Account | None) -> Limit | None:
    """What the agent left, on the record; which limit stopped it, if one did."""
    spec, rec, tdir, ws = ctx.spec, ctx.rec, ctx.tdir, ctx.workspace
    r, tenv = ctx.resources, ctx.tenv
    assert r is not None and tenv is not None  # made by the prepare phase
    filled = disk_full(guard, ctx.trace, "agent")
    if account is not None and account.calls and account.upstream_failures == account.calls:
        raise ModelUnreachable(f"the agent could not reach its model: every one of its {account.calls} call(s) "
                               f"failed upstream ({account.upstream_reason}); check --openai-base-url or "
                               "$OPENAI_BASE_URL and $OPENAI_API_KEY (--anthropic-base-url, $ANTHROPIC_API_KEY)")
    if account is not None and account.exhausted:
        stop = stop or _model_limit(account)
    if monitor.disk_exceeded or filled:
        stop = Limit(kind=LimitKind.disk, value=spec.budget.disk_gb,
                     used=monitor.disk_used_gb if monitor.disk_exceeded else None)
    if ctx.writable:
        _note_changes(ctx)
    _note_links(ws, ctx.kind.workspace_for(ws), ctx.trace)
    if spec.withheld() and ctx.settings.cache is not None:
        withheld_found(ctx.task, ctx.settings.cache, [ws, *tenv.disk_roots()], ctx.trace)
    _strip_setid([ws, tdir / "agent", *([ctx.audit_dir] if ctx.audit_dir else []), *tenv.disk_roots()],
                 ctx.trace)
    rec.budget.agent_wall_s = round(deadline.elapsed, 3)
    rec.budget.gpu_hours_allocated = len(r.gpus) * deadline.elapsed / 3600
    r.record(rec, "agent")
    return stop


def _note_changes(ctx: TrialContext) -> None:
    """What the agent did to the release in place, on the record (materials-changed.json, sealed)
    and in the trace: its changed and added files are its own programs from now on."""
    assert ctx.placed is not None  # made by the prepare phase
    found = changes(ctx.workspace, ctx.placed.names, ctx.provided)
    ctx.changed = [f"{c.change} {c.path}" for c in found]
    if found:
        (ctx.tdir / CHANGED).write_text(json.dumps([c.__dict__ for c in found], indent=1))
        ctx.rec.materials_changed = len(found)
        ctx.trace.emit(Note, phase="agent", level="info",
                       message=f"the agent changed {len(found)} released file(s) in place: "
                               + "; ".join(ctx.changed[:20]) + (" ..." if len(found) > 20 else ""))


def _clock_limit(ctx: TrialContext, deadline: Deadline) -> Limit:
    """The wall-clock limit, or the GPU-hours where those set it (spread over the trial's GPUs)."""
    b, scale = ctx.spec.budget, ctx.settings.budget_scale
    if b.gpus and b.gpu_hours and b.gpu_hours / b.gpus * 3600 < b.wall_seconds:
        assert ctx.resources is not None  # made by the prepare phase
        return Limit(kind=LimitKind.gpu_hours, value=round(b.gpu_hours * scale, 6),
                     used=round(len(ctx.resources.gpus) * deadline.elapsed / 3600, 6))
    return Limit(kind=LimitKind.wall, value=round(ctx.wall, 3), used=round(deadline.elapsed, 3))


def _model_limit(account: Account) -> Limit:
    if account.max_tokens is not None and account.tokens >= account.max_tokens:
        return Limit(kind=LimitKind.model_tokens, value=account.max_tokens, used=account.tokens)
    return Limit(kind=LimitKind.money_usd, value=account.max_usd, used=round(account.usd, 6))


def disk_full(guard: DiskGuard, trace: TraceWriter, phase: str) -> bool:
    """On the record when the disk ran low; an error (not the agent's) when another trial filled it."""
    if not guard.full:
        return False
    trace.emit(BudgetEvent, phase=phase, what="disk_exhausted", detail=guard.detail + "; process tree stopped")
    if not guard.caused_by_trial:
        raise DiskFull(f"the disk filled up under this trial, not by its own files: {guard.detail}")
    return True


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


def _strip_setid(roots: list[Path], trace: TraceWriter) -> None:
    stripped = [f"{r.name}/{rel}" for r in roots for rel in untrusted.strip_setid(r)]
    if stripped:
        trace.emit(Note, phase="agent", level="warning",
                   message=f"set-uid/set-gid bits cleared on {len(stripped)} file(s) the agent left: "
                           + "; ".join(stripped[:20]))


__all__ = ["AGENT_LOGS_INSIDE", "RECORDS", "DiskFull", "ModelUnreachable", "disk_full", "run_agent"]
