"""Learn a linear Gaussian DAG from samples whose columns are in causal order.

    python3 code/learn.py --data data/samples.csv --out graph.csv [--max-parents 3] [--penalty bic]

For every variable, every subset of the earlier variables with at most --max-parents
members is scored by a least-squares regression with an intercept,
    score(S) = n/2 log(RSS_S / n) + penalty x (|S| + 2),
penalty = log(n)/2 (BIC) or 1 (AIC); the subset with the lowest score becomes the
variable's parents (the smaller subset wins a tie). Writes parent,child rows.
"""

import argparse
import itertools

import numpy as np


def best_parents(X, j, max_parents, penalty):
    n = len(X)
    best = None
    for k in range(min(max_parents, j) + 1):
        for subset in itertools.combinations(range(j), k):
            A = np.column_stack([np.ones(n), X[:, list(subset)]])
            coef = np.linalg.lstsq(A, X[:, j], rcond=None)[0]
            rss = float(np.sum((X[:, j] - A @ coef) ** 2))
            score = n / 2 * np.log(rss / n) + penalty * (k + 2)
            if best is None or score < best[0]:
                best = (score, subset)
    return best[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="data/samples.csv")
    ap.add_argument("--out", default="graph.csv")
    ap.add_argument("--max-parents", type=int, default=3)
    ap.add_argument("--penalty", choices=["bic", "aic"], default="bic")
    args = ap.parse_args()

    with open(args.data) as f:
        names = f.readline().strip().split(",")
    X = np.loadtxt(args.data, delimiter=",", skiprows=1)
    penalty = np.log(len(X)) / 2 if args.penalty == "bic" else 1.0
    edges = [(names[i], names[j]) for j in range(len(names))
             for i in best_parents(X, j, args.max_parents, penalty)]
    with open(args.out, "w") as f:
        f.write("parent,child\n" + "".join(f"{a},{b}\n" for a, b in edges))
    print(f"learned {len(edges)} edges over {len(names)} variables from {len(X)} samples; saved {args.out}")


if __name__ == "__main__":
    main()
