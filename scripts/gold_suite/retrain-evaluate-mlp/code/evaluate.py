"""Test accuracy of a trained network.

    python3 code/evaluate.py [--model model.npz] [--data data/test.csv] [--out metrics.json]
"""

import argparse
import json

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="model.npz")
    ap.add_argument("--data", default="data/test.csv")
    ap.add_argument("--out", default="metrics.json")
    args = ap.parse_args()
    m = np.load(args.model)
    te = np.loadtxt(args.data, delimiter=",", skiprows=1)
    H = np.tanh(te[:, :2] @ m["W1"] + m["b1"])
    score = (H @ m["W2"] + m["b2"])[:, 0]
    metrics = {"accuracy": float(np.mean((score > 0) == (te[:, 2] == 1))), "n_test": int(len(te))}
    with open(args.out, "w") as f:
        json.dump(metrics, f)
    print(json.dumps(metrics))


if __name__ == "__main__":
    main()
