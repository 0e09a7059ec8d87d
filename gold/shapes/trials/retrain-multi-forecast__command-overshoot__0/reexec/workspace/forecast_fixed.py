"""Fit an AR(p) model by least squares on the first 400 points of a series and forecast the
rest one step ahead, with a 90% prediction interval.

    python3 code/forecast.py [--data data/series.csv] [--order 3] [--out metrics.json]
"""
# df315824a6f26df3

import argparse
import json

import numpy as np

TRAIN = 400
Z90 = 1.6449


def lags(y, p):
    """Rows [1, y[t-1], ..., y[t-p]] and targets y[t], for t = p .. len(y)-1."""
    X = np.column_stack([np.ones(len(y) - p)] + [y[p - k:len(y) - k] for k in range(0, p)])
    return X, y[p:]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="data/series.csv")
    ap.add_argument("--order", type=int, default=3)
    ap.add_argument("--out", default="metrics.json")
    args = ap.parse_args()
    y = np.loadtxt(args.data, skiprows=1)
    p = args.order
    X, t = lags(y, p)
    n_fit = TRAIN - p
    coef, *_ = np.linalg.lstsq(X[:n_fit], t[:n_fit], rcond=None)
    resid_sd = float(np.std(t[:n_fit] - X[:n_fit] @ coef, ddof=p + 1))
    err = t[n_fit:] - X[n_fit:] @ coef
    metrics = {"rmse": float(np.sqrt(np.mean(err ** 2))), "mae": float(np.mean(np.abs(err))),
               "coverage_90": float(np.mean(np.abs(err) <= Z90 * resid_sd)), "n_test": int(len(err))}
    with open(args.out, "w") as f:
        json.dump(metrics, f)
    print(json.dumps(metrics))


if __name__ == "__main__":
    main()
