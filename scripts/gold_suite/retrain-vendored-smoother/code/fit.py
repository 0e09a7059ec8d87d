"""Kernel regression of y on (x1, x2) with the tinysmooth package; held-out R^2.

    pip install --no-index --no-deps --target .deps code/vendor/tinysmooth-0.2.0-py3-none-any.whl
    PYTHONPATH=.deps python3 code/fit.py [--data data] [--factor 1.0] [--out metrics.json]

--factor scales Silverman's bandwidth (the paper uses 1.0).
"""

import argparse
import json

import numpy as np
from tinysmooth import nw_predict, silverman


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="data")
    ap.add_argument("--factor", type=float, default=1.0)
    ap.add_argument("--out", default="metrics.json")
    args = ap.parse_args()
    tr = np.loadtxt(f"{args.data}/train.csv", delimiter=",", skiprows=1)
    te = np.loadtxt(f"{args.data}/test.csv", delimiter=",", skiprows=1)
    X, y, Xt, yt = tr[:, :2], tr[:, 2], te[:, :2], te[:, 2]
    pred = nw_predict(X, y, Xt, args.factor * silverman(X))
    r2 = 1 - np.sum((yt - pred) ** 2) / np.sum((yt - yt.mean()) ** 2)
    metrics = {"r2": round(float(r2), 4), "n_test": int(len(yt))}
    with open(args.out, "w") as f:
        json.dump(metrics, f)
    print(json.dumps(metrics))


if __name__ == "__main__":
    main()
