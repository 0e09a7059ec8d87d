"""The harness's own time per trial, over the demo suite.

Overhead = a trial's total time minus the time its agent's and its re-execution's commands
ran. What is left is workspace building, sandbox start and stop, file snapshots, trace writing,
re-execution bookkeeping, judging and storing. Prints the median (the figure to quote) and a
breakdown by phase.

    .venv/bin/python benchmarks/overhead.py [--jobs 1] [--repeat 1]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from reclaim.budget.limits import Limits
from reclaim.runner.network import phase_netns
from reclaim.runner.run import RunOptions, execute, plan_run
from reclaim.sandbox import SandboxConfig, backend, default_backend, make_sandbox
from reclaim.suites import bundled
from reclaim.trace import CommandFinished, read_trace


def sandbox_cost(name: str, tmp: Path, n: int = 30) -> float:
    """Median seconds to run `true` in a fresh sandbox started as a trial's commands are: in the
    phase's cgroups, and (a root harness under bwrap) in the phase's network namespace with the
    egress proxy's port, under the exec record."""
    limits = Limits(memory_mb=1024, cpus=1).start()
    ns = phase_netns(backend(name), gateway=False, egress=True)
    (tmp / "bench-egress").mkdir(exist_ok=True)
    box = make_sandbox(name, SandboxConfig(tmp / "bench-ws", netns=ns, egress=tmp / "bench-egress",
                                           launcher=limits.wrap([]), launcher_env=dict(limits.env)))
    box.start()
    try:
        times = [box.exec(["true"], stdout=tmp / "o", stderr=tmp / "e").duration for _ in range(n)]
    finally:
        box.stop()
        limits.stop()
        if ns is not None:
            ns.close()
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=1, help="1 keeps the phases from sharing a core")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--agents", default="reference,nop,fabricate")
    args = ap.parse_args()
    sandbox = default_backend()
    records, commands = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeat):
            rd = plan_run(RunOptions(suite=bundled()["demo"], agents=args.agents.split(","),
                                     jobs=args.jobs, sandbox=sandbox, runs_root=Path(tmp)))
            records += execute(rd)
            commands += [sum(isinstance(e, CommandFinished)
                             for e in read_trace(rd.trial_dir(r.trial_id) / "trace.jsonl")) for r in rd.records()]
        start_stop = sandbox_cost(sandbox, Path(tmp))
    t = [r.timings for r in records]

    def med(xs):
        return statistics.median(xs) * 1000

    # a command's measured time includes its sandbox's start and exit: count those as harness time
    per_trial_commands = statistics.median(commands)
    overhead = [x["total_s"] - x.get("agent_commands_s", 0) - x.get("reexecute_commands_s", 0)
                + start_stop * per_trial_commands for x in t]
    print(f"sandbox: {sandbox}; trials: {len(records)}; jobs: {args.jobs}")
    print(f"harness overhead per trial: median {med(overhead):.1f} ms, "
          f"p90 {statistics.quantiles(overhead, n=10)[-1] * 1000:.1f} ms, max {max(overhead) * 1000:.1f} ms")
    print(f"  (commands themselves: median {med([x['total_s'] for x in t]) - med(overhead):.1f} ms of "
          f"{med([x['total_s'] for x in t]):.1f} ms per trial)")
    phases = {
        "prepare (environment, workspace)": [x.get("prepare_s", 0) for x in t],
        "agent phase minus commands (sandbox start/stop, snapshots, trace)":
            [x.get("agent_s", 0) - x.get("agent_commands_s", 0) for x in t],
        "re-execution minus commands (copy, sandbox, snapshots)":
            [x.get("reexecute_s", 0) - x.get("reexecute_commands_s", 0) for x in t],
        "judging (rules)": [x.get("judge_s", 0) for x in t],
    }
    for name, xs in phases.items():
        print(f"  {name:<70} median {med(xs):7.2f} ms")
    print(f"  {'sandbox start + exit per command (`true` in a fresh sandbox)':<70} median "
          f"{start_stop * 1000:7.2f} ms x {per_trial_commands:g} commands per trial (included above)")


if __name__ == "__main__":
    main()
