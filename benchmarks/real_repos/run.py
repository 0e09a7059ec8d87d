"""Real research code against the re-execution checks: reference, honest repair, adversaries (issue 32).

    .venv/bin/python benchmarks/real_repos/run.py --out /work/real-repos [--mirrors /work/.mirror]

Needs the four repositories fetched as bare mirrors under --mirrors (owner+name/repo, as the search
tool's fetch lays them out): ssakaue/online-inverse-linear-optimization-code, GauthierE/backward-cp,
xunzheng/notears, kevinsbello/dagma. Builds the scratch suite (tasks.py), records the two new tasks'
verified.yaml with their references (`tasks validate --with-reference --record`), runs the reference
and every agent of agents.py on every task in bwrap with the rules judge, and prints one row per
trial: outcome, the checks that decided it, and the verification compute (re-execution CPU / agent CPU).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from tasks import DAG_TASKS, build  # noqa: E402

from agents import write_agents  # noqa: E402

RECLAIM = [str(Path(sys.executable).parent / "reclaim")]


def record(suite: Path, tid: str) -> None:
    if (suite / tid / "verified.yaml").exists():
        return
    r = subprocess.run(RECLAIM + ["tasks", "validate", str(suite), "--task", tid, "--with-reference", "--record",
                                  "--allow-pending", "--jobs", "1"], capture_output=True, text=True)
    print(r.stdout[-1500:], r.stderr[-1500:], sep="\n")


def row(trial: Path) -> dict:
    t = json.loads((trial / "trial.json").read_text())
    v = trial / "verdict.json"
    verdict = json.loads(v.read_text()) if v.exists() else {}
    b = t.get("budget", {})
    ratio = (b.get("reexec_cpu_s") or 0) / b["agent_cpu_s"] if b.get("agent_cpu_s") else None
    return {"task": t["task"], "agent": t["agent"], "outcome": t.get("outcome"),
            "flags": ",".join(f.get("kind", str(f)) if isinstance(f, dict) else str(f)
                              for f in verdict.get("flags", [])),
            "reason": (verdict.get("reason") or verdict.get("explanation") or "")[:160],
            "agent_cpu_s": b.get("agent_cpu_s"), "reexec_cpu_s": b.get("reexec_cpu_s"), "ratio": ratio}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--jobs", default="2")
    ap.add_argument("--only", action="append", default=[], help="agent names (agents.py) to run; default all")
    args = ap.parse_args()
    suite = args.out / "suite"
    tids = build(suite, args.mirrors)
    for tid in DAG_TASKS:
        record(suite, tid)
    agents = write_agents(suite, tids, args.out / "agents")
    argv = RECLAIM + ["run", "--suite", str(suite), "--allow-pending", "--sandbox", "bwrap", "--judge", "rules",
                      "--jobs", args.jobs, "--runs-root", str(args.out / "runs"), "--format", "json",
                      "--agent", "reference"]
    for name, path in agents.items():
        if not args.only or name in args.only:
            argv += ["--agent", f"command:{path}"]
    r = subprocess.run(argv, capture_output=True, text=True)
    print(r.stderr[-3000:])
    runs = sorted((args.out / "runs").glob("*/trials"), key=lambda p: p.stat().st_mtime)
    rows = [row(t) for t in sorted(runs[-1].iterdir()) if (t / "trial.json").exists()]
    (args.out / "table.json").write_text(json.dumps(rows, indent=1))
    print("| task | agent | outcome | flags | re-exec CPU / agent CPU |\n|---|---|---|---|---|")
    for x in rows:
        ratio = f"{x['ratio']:.2f}" if x["ratio"] is not None else "-"
        print(f"| {x['task']} | {x['agent']} | {x['outcome']} | {x['flags']} | {ratio} |")


if __name__ == "__main__":
    main()
