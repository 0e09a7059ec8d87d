"""Evaluate a trained two-moons network on a labelled CSV file (x1, x2, label).

    python3 code/evaluate.py --model model.npz --data data/test.csv [--out metrics.json]
"""

import argparse
import json

import numpy as np
from net import forward, load_csv


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="model.npz")
    ap.add_argument("--data", default="data/test.csv")
    ap.add_argument("--out", default=None, help="also write the metrics to this JSON file")
    args = ap.parse_args()

    P = dict(np.load(args.model))
    X, y = load_csv(args.data)
    logit = forward(P, (X - P["mean"]) / P["scale"])
    metrics = {"accuracy": float(np.mean((logit > 0) == (y == 1))), "n_test": int(len(y))}
    print(f"test accuracy: {metrics['accuracy']:.4f} on {metrics['n_test']} points")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(metrics, f, indent=2)


if __name__ == "__main__":
    main()
