"""Evaluate a trained logistic-regression model on a labelled CSV file.

    python3 code/evaluate.py --model model.npz --data data/test.csv [--out metrics.json]
"""

import argparse
import json

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="model.npz")
    ap.add_argument("--data", default="data/test.csv")
    ap.add_argument("--out", default=None, help="also write the metrics to this JSON file")
    args = ap.parse_args()

    m = np.load(args.model)
    table = np.loadtxt(args.data, delimiter=",", skiprows=1)
    X, y = table[:, :-1], table[:, -1]
    score = (X - m["mean"]) / m["scale"] @ m["w"] + m["b"]
    p = np.clip(1.0 / (1.0 + np.exp(-score)), 1e-12, 1 - 1e-12)
    metrics = {
        "accuracy": float(np.mean((score > 0) == (y == 1))),
        "log_loss": float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))),
        "n_test": int(len(y)),
    }
    print(f"test accuracy: {metrics['accuracy']:.4f}  log-loss: {metrics['log_loss']:.4f}  ({metrics['n_test']} rows)")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(metrics, f, indent=2)


if __name__ == "__main__":
    main()
