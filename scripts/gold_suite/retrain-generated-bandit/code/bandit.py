"""UCB1 on simulated Bernoulli bandits; the data is generated here, from the seed.

    python3 code/bandit.py [--policy ucb1|eps|uniform] [--horizon 2000] [--runs 20] [--seed 0] [--out metrics.json]

Each run draws 10 arm means from Beta(2, 2) and plays --horizon rounds. The metric is the
mean (over runs) pseudo-regret at the horizon: sum over rounds of best mean - mean played.
"""

import argparse
import json

import numpy as np


def play(rng, means, horizon, policy, eps=0.1):
    k = len(means)
    pulls, wins, regret = np.zeros(k), np.zeros(k), 0.0
    for t in range(horizon):
        if t < k:
            a = t
        elif policy == "uniform":
            a = t % k
        elif policy == "eps":
            a = int(rng.integers(k)) if rng.random() < eps else int(np.argmax(wins / pulls))
        else:
            a = int(np.argmax(wins / pulls + np.sqrt(2.0 * np.log(t) / pulls)))
        pulls[a] += 1
        wins[a] += rng.random() < means[a]
        regret += means.max() - means[a]
    return regret


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policy", default="ucb1", choices=["ucb1", "eps", "uniform"])
    ap.add_argument("--horizon", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="metrics.json")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    regrets = [play(rng, rng.beta(2, 2, size=10), args.horizon, args.policy) for _ in range(args.runs)]
    metrics = {"mean_regret": float(np.mean(regrets)), "runs": args.runs, "horizon": args.horizon}
    with open(args.out, "w") as f:
        json.dump(metrics, f)
    print(json.dumps(metrics))


if __name__ == "__main__":
    main()
