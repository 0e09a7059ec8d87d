"""Real coding agents through the harness: what it adds to their model calls and commands, and
whether the gateway metered exactly what the model served.

Each installed agent runs ``--runs`` trials of ``reclaim agents try`` (a demo task, the scripted
model playing its solution through the agent's shell tool, bwrap, the gateway). Per agent it prints:
trials reproduced; model calls per trial; the gateway's added milliseconds per call (median of the
gateway's own latency for the call minus the scripted model's time to make the answer: forwarding,
metering and recording, the localhost hops included); the agent phase's wall time, the part of it
spent waiting on the model, and the rest per audited shell command (the agent program's own work,
its sandbox and the exec record together: an upper bound on what the harness adds per command);
and tokens metered against served (they must agree exactly).

    .venv/bin/python benchmarks/agents.py [--agents claude-code codex gemini-cli mini-swe-agent] [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from reclaim.agents import TOOLS, availability
from reclaim.runner.tryout import try_agent
from reclaim.trace import CommandFinished, read_trace


def one(name: str, runs: int, root: Path) -> dict:
    added, calls, walls, model_s, per_cmd, ok, metered, served = [], [], [], [], [], 0, [0, 0], [0, 0]
    for i in range(runs):
        tried = try_agent(name, runs_root=root / f"{name}-{i}")
        ok += tried.record.outcome is not None and tried.record.outcome.value == "reproduced"
        good = [c for c in tried.calls if c.status == 200]
        for c, s in zip(good, tried.served, strict=False):
            added.append((c.latency_s - s.seconds) * 1000)
        calls.append(len(good))
        events = read_trace(tried.trial_dir / "trace.jsonl")
        agent = [e for e in events if isinstance(e, CommandFinished) and e.phase == "agent"]
        wall = sum(e.end - e.start for e in agent)
        waiting = sum(c.latency_s for c in good)
        walls.append(wall)
        model_s.append(waiting)
        per_cmd.append((wall - waiting) / max(1, len(tried.commands)) * 1000)
        for k in (0, 1):
            metered[k] += tried.metered[k]
            served[k] += tried.served_tokens[k]
    return {"agent": name, "version": TOOLS[name].version if name in TOOLS else "", "reproduced": f"{ok}/{runs}",
            "calls": statistics.median(calls), "added_ms": statistics.median(added) if added else float("nan"),
            "wall_s": statistics.median(walls), "model_s": statistics.median(model_s),
            "per_cmd_ms": statistics.median(per_cmd), "metered": tuple(metered), "served": tuple(served)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--agents", nargs="+", default=["claude-code", "codex", "gemini-cli", "mini-swe-agent"])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="reclaim-bench-agents-") as tmp:
        for name in args.agents:
            if name in TOOLS and not availability(TOOLS[name])[0]:
                print(f"{name}: not installed (reclaim agents install {name}); skipped")
                continue
            rows.append(one(name, args.runs, Path(tmp)))
    print("| agent | version | reproduced | calls/trial | gateway added ms/call (median) | agent phase s | "
          "waiting on the model s | rest per audited command ms | tokens metered = served |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        same = "yes" if r["metered"] == r["served"] else f"NO: {r['metered']} vs {r['served']}"
        print(f"| {r['agent']} | {r['version']} | {r['reproduced']} | {r['calls']:g} | {r['added_ms']:.2f} | "
              f"{r['wall_s']:.2f} | {r['model_s']:.2f} | {r['per_cmd_ms']:.1f} | {same} ({r['metered'][0]} in, "
              f"{r['metered'][1]} out) |")


if __name__ == "__main__":
    main()
