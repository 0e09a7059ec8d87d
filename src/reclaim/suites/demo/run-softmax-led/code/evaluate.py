"""Evaluate the released LED-digit classifier on a labelled CSV file.

    python3 code/evaluate.py --weights weights/model.npz --data data/test.csv [--out metrics.json]

The accuracy is reported in percent of the test digits.
"""

import argparse
import json

import numpy as np
from led import load_csv, predict


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--weights", default="weights/model.npz")
    ap.add_argument("--data", default="data/test.csv")
    ap.add_argument("--out", default=None, help="also write the metrics to this JSON file")
    args = ap.parse_args()

    params = dict(np.load(args.weights))
    X, y = load_csv(args.data)
    correct = int(np.sum(predict(params, X) == y))
    metrics = {"accuracy_pct": 100.0 * correct / len(y), "correct": correct, "n_test": int(len(y))}
    print(f"test accuracy: {metrics['accuracy_pct']:.1f} % ({correct} of {len(y)} digits)")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(metrics, f, indent=2)


if __name__ == "__main__":
    main()
