"""Scale on paper: a full evaluation scheduled by the local policy on 8, 64 and 512 GPUs.

1,200 trials (100 papers x 4 agents x 3 seeds). Budgets are heavy-tailed, as the reference
suite's are: GPU-hours per trial ~ lognormal (median 2, sigma 1.2) capped at 200; GPUs per
trial 1 (60 %), 2 (20 %), 4 (15 %) or 8 (5 %); a trial runs its full budget (the worst case).
The policy is the local executor's: longest budget first, and whenever GPUs free up, start
every waiting trial that fits, in that order (greedy backfilling). Makespan is compared with
the lower bound max(total GPU-hours / GPUs, longest trial).

    .venv/bin/python benchmarks/schedule.py [--seed 0]
"""

from __future__ import annotations

import argparse
import heapq
import math
import random


def trials(n: int, rng: random.Random) -> list[tuple[float, int]]:
    """(hours, gpus) per trial."""
    out = []
    for _ in range(n):
        gpu_hours = min(200.0, math.exp(rng.gauss(math.log(2.0), 1.2)))
        gpus = rng.choices([1, 2, 4, 8], weights=[60, 20, 15, 5])[0]
        out.append((gpu_hours / gpus, gpus))
    return out


def schedule(jobs: list[tuple[float, int]], total: int) -> float:
    """Makespan of longest-first with greedy backfilling on ``total`` GPUs."""
    waiting = sorted((j for j in jobs), key=lambda j: -j[0])
    free, now, running = total, 0.0, []  # running: heap of (end time, gpus)
    while waiting or running:
        started = []
        for i, (hours, gpus) in enumerate(waiting):
            g = min(gpus, total)
            if g <= free:
                free -= g
                heapq.heappush(running, (now + hours, g))
                started.append(i)
        for i in reversed(started):
            waiting.pop(i)
        end, g = heapq.heappop(running)
        now, free = end, free + g
        while running and running[0][0] <= now:  # everything ending at the same moment
            free += heapq.heappop(running)[1]
    return now


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--trials", type=int, default=1200)
    ap.add_argument("--draws", type=int, default=20, help="suites drawn, for the spread over draws")
    args = ap.parse_args()
    jobs = trials(args.trials, random.Random(args.seed))
    gpu_hours = sum(h * g for h, g in jobs)
    print(f"{len(jobs)} trials, {gpu_hours:,.0f} GPU-hours in all, longest trial {max(h for h, _ in jobs):.1f} h")
    for total in (8, 64, 512):
        bound = max(sum(h * min(g, total) for h, g in jobs) / total, max(h for h, _ in jobs))
        span = schedule(jobs, total)
        gaps = []
        for d in range(args.draws):
            other = trials(args.trials, random.Random(1000 + d))
            b = max(sum(h * min(g, total) for h, g in other) / total, max(h for h, _ in other))
            gaps.append(100 * (schedule(other, total) / b - 1))
        print(f"{total:>4} GPUs: makespan {span:8.1f} h, lower bound {bound:8.1f} h, "
              f"{100 * (span / bound - 1):5.2f} % above the bound "
              f"(over {args.draws} more draws: mean {sum(gaps) / len(gaps):.2f} %, worst {max(gaps):.2f} %)")


if __name__ == "__main__":
    main()
