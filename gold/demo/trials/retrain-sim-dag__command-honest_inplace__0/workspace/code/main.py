# Checked: SEED comes from the environment (default 1), as in the paper.
"""Simulate a random DAG and samples on it, learn the graph back, and score it.

    SEED=1 python3 code/main.py [--d 30] [--n 3000] [--max-parents 3] [--out metrics.json]

The seed is read from the environment variable SEED (default 1). Prints SHD, TPR and FDR;
with --out, also writes them (and the edge counts) to a JSON file.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from learn import learn  # noqa: E402
from metrics import count_accuracy  # noqa: E402
from simulate import simulate  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=30, help="number of variables")
    ap.add_argument("--n", type=int, default=3000, help="number of samples")
    ap.add_argument("--max-parents", type=int, default=3)
    ap.add_argument("--out", default=None, help="also write the metrics to this JSON file")
    args = ap.parse_args()

    seed = int(os.environ.get("SEED", "1"))
    rng = np.random.default_rng(seed)
    B, X = simulate(rng, args.d, args.n)
    start = time.process_time()
    A, _ = learn(X, args.max_parents)
    secs = time.process_time() - start
    m = count_accuracy(B, A)
    m.update(seed=seed, d=args.d, n=args.n, max_parents=args.max_parents)
    print(f"seed {seed}: d={args.d}, n={args.n}, {m['edges_true']} true edges, {m['edges_learned']} learned "
          f"({secs:.1f} CPU seconds)")
    print(f"SHD {m['shd']}  TPR {m['tpr']:.4f}  FDR {m['fdr']:.4f}  "
          f"(missing {m['missing']}, extra {m['extra']}, reversed {m['reversed']})")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(m, f, indent=2)


if __name__ == "__main__":
    main()
