"""The re-execution phase: the agent's reproduce.sh run again, by the harness, in fresh sandboxes.

Every re-run sees the same paths and variables as the agent's last command (the audit hook
included), but for those that state the paper's numbers (agents.base.CLAIM_VARS): a script that
looks for a difference finds none to act on, and one that prints the paper's number finds none. Each gets the agent's
environment as it left it, read-only, and a home, a /tmp and a network of its own: nothing one
re-run leaves there can feed the next. Which re-runs happen, and why, is runner/reexec.py's.
"""

from __future__ import annotations

from pathlib import Path

from reclaim.agents import CLAIM_VARS
from reclaim.budget import DiskGuard
from reclaim.runner import audit
from reclaim.runner.agent_phase import AGENT_LOGS_INSIDE, disk_full
from reclaim.runner.lifecycle import TrialContext
from reclaim.runner.network import phase_netns, trial_policy
from reclaim.runner.reexec import Reexec
from reclaim.runner.reruns import DENIED, reexecute
from reclaim.runner.views import Shown
from reclaim.sandbox import EGRESS_PORT, Bind, Netns, kill_strays
from reclaim.store import write_model


def run_reexecution(ctx: TrialContext) -> None:
    """Re-run the agent's work and keep the record of it (reexec/reexec.json)."""
    s, spec, tdir, r, tenv = ctx.settings, ctx.spec, ctx.tdir, ctx.resources, ctx.tenv
    assert r is not None and tenv is not None  # made by the prepare phase
    r.phase_limits()
    env = {k: v for k, v in ctx.agent_env.items() if k not in CLAIM_VARS} | r.env()
    env = r.path_env(env) if "LD_LIBRARY_PATH" not in env else env
    (tdir / "reexec" / "agent-logs").mkdir(parents=True)  # the same path, empty
    extras = {"env": env, "binds": [Bind(tdir / "reexec" / "agent-logs", AGENT_LOGS_INSIDE, writable=True)],
              "image": ctx.image, **r.sandbox_extras()}
    if ctx.audit_dir is not None:
        (tdir / "reexec" / "audit").mkdir()
        extras["binds"] += audit.binds(tdir / "reexec" / "audit", ctx.kind.shell_hook)
    places = _Places(ctx)
    guard = DiskGuard(tdir, [tdir / "reexec"], lambda: kill_strays(tdir / "reexec")).start()
    changed = [c.split(" ", 1)[1] for c in ctx.changed if not c.startswith("deleted ")]
    try:
        rx, seconds = reexecute(Reexec(tdir, s.sandbox, ctx.wall, ctx.trace, s.hidden, ctx.provided, s.cancellation,
                                       extras, disk_bytes=int(spec.budget.disk_gb * 2**30),
                                       shown=rerun_views(ctx.views, ctx.workspace),
                                       fresh=places.own if ctx.kind.binds else None, done=places.done,
                                       meter=r.meter, changed_materials=changed),
                                spec, seed=tdir.name, env_inside=tenv.environment_inside())
    finally:
        guard.stop()
        places.close()
    if disk_full(guard, ctx.trace, "reexec"):
        rx.reason = f"stopped: its reproduce.sh filled the disk ({rx.reason})"
    write_model(tdir / "reexec" / "reexec.json", rx)
    if ctx.audit_dir is not None:
        audit.import_log(tdir / "reexec" / "audit", ctx.trace, phase="reexec")
    r.record(ctx.rec, "reexec")
    ctx.rec.budget.reexec_wall_s = round(sum(r.wall_s for r in rx.runs()), 3)
    ctx.timer.add("reexecute_commands_s", seconds)


def rerun_views(views: list[Shown], workspace: Path) -> list[Shown]:
    """The materials as the re-runs show them: where the agent could change them, its changes
    (its upper layer, workspace/<kind>) over the release; read-only ones as they were."""
    return [Shown(s.name, s.inside, (workspace / s.name, *s.layers), True) if s.writable else s for s in views]


class _Places:
    """Each re-run's own places: home and /tmp under its folder, and its own network and egress
    socket (without the data, no fetching it again either), closed once its sandbox has stopped."""

    def __init__(self, ctx: TrialContext):
        self.ctx = ctx
        self.netns: dict[str, Netns | None] = {}

    def own(self, base: Path, name: str) -> dict:
        """Made under ``base``, the place every re-run runs in; ``name``: which re-run ('' the fresh one)."""
        ctx = self.ctx
        name = name or "reexec"
        assert ctx.tenv is not None  # made by the prepare phase
        own: dict[str, object] = {"binds": ctx.tenv.reexec_binds(base), "tmp": ctx.tenv.tmp(base)}
        if ctx.net is not None:
            policy = trial_policy(ctx.spec, ctx.settings.package_hosts, False, without=DENIED.get(name, ()))
            own["netns"] = self.netns[name] = ns = phase_netns(ctx.kind, False, True)
            own["egress"] = ctx.net.open(name, policy, "reexec",
                                         listener=ns.take(EGRESS_PORT) if ns is not None else None, alike=True)
        return own

    def done(self, name: str) -> None:
        """The re-run's sandbox stopped: its requests are all on the record."""
        name = name or "reexec"
        if self.ctx.net is not None:
            self.ctx.net.close(name)
        if (ns := self.netns.pop(name, None)) is not None:
            ns.close()

    def close(self) -> None:
        if self.ctx.net is not None:
            self.ctx.net.close_all()
        for ns in self.netns.values():
            if ns is not None:
                ns.close()
        self.netns.clear()
