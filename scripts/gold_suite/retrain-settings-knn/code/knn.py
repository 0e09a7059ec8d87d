"""k-nearest-neighbour classification (Euclidean, majority vote, ties to the lower label).

    python3 code/knn.py --train data/train.csv --test data/test.csv [--k 15] [--out metrics.json]
"""

import argparse
import json

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", default="data/train.csv")
    ap.add_argument("--test", default="data/test.csv")
    ap.add_argument("--k", type=int, default=15)
    ap.add_argument("--out", default="metrics.json")
    args = ap.parse_args()
    tr = np.loadtxt(args.train, delimiter=",", skiprows=1)
    te = np.loadtxt(args.test, delimiter=",", skiprows=1)
    d = np.sum((te[:, None, :2] - tr[None, :, :2]) ** 2, axis=2)
    nearest = np.argsort(d, axis=1, kind="stable")[:, :args.k]
    votes = tr[nearest, 2].mean(axis=1)
    pred = (votes > 0.5).astype(float)
    metrics = {"accuracy": float(np.mean(pred == te[:, 2])), "k": args.k, "n_test": int(len(te))}
    with open(args.out, "w") as f:
        json.dump(metrics, f)
    print(json.dumps(metrics))


if __name__ == "__main__":
    main()
