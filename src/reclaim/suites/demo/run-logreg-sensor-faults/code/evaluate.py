"""Evaluate the released fault detector on a labelled CSV file.

    python3 code/evaluate.py --weights weights/model.npz --data data/test.csv [--out metrics.json]
"""

import argparse
import json

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--weights", default="weights/model.npz")
    ap.add_argument("--data", default="data/test.csv")
    ap.add_argument("--out", default=None, help="also write the metrics to this JSON file")
    args = ap.parse_args()

    model = np.load(args.weights)
    with open(args.data) as f:
        header = f.readline().strip().split(",")
    if header[:-1] != [str(s) for s in model["features"]]:
        raise SystemExit(f"column mismatch: {header[:-1]} vs {list(model['features'])}")
    table = np.loadtxt(args.data, delimiter=",", skiprows=1)
    X, y = table[:, :-1], table[:, -1].astype(int)

    z = (X - model["mean"]) / model["scale"]
    pred = (z @ model["w"] + model["b"] > 0).astype(int)
    metrics = {"accuracy": float(np.mean(pred == y)), "n_test": int(len(y))}
    print(f"test accuracy: {metrics['accuracy']:.4f} on {metrics['n_test']} rows")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(metrics, f, indent=2)


if __name__ == "__main__":
    main()
