"""Evaluate the released ridge calibration on a CSV of spectra with reference values.

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
    if header[:-1] != [str(s) for s in model["bands"]]:
        raise SystemExit("the CSV columns do not match the bands the model was fitted on")
    table = np.loadtxt(args.data, delimiter=",", skiprows=1)
    X, y = table[:, :-1], table[:, -1]

    pred = (X - model["mean"]) / model["scale"] @ model["coef"] + model["intercept"]
    err = pred - y
    metrics = {"rmse": float(np.sqrt(np.mean(err**2))), "n_test": int(len(y))}
    print(f"test RMSE: {metrics['rmse']:.4f} on {metrics['n_test']} samples")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(metrics, f, indent=2)


if __name__ == "__main__":
    main()
