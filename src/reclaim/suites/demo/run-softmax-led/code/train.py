"""Train the LED-digit classifier: mean cross-entropy, full-batch gradient descent.

    python3 code/train.py --data data/train.csv --out weights/model.npz
"""

import argparse

import numpy as np
from led import load_csv, softmax


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="data/train.csv")
    ap.add_argument("--out", default="weights/model.npz")
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--lr", type=float, default=1.0)
    args = ap.parse_args()

    X, y = load_csv(args.data)
    Y = np.eye(10)[y]
    W, b = np.zeros((X.shape[1], 10)), np.zeros(10)
    for _ in range(args.steps):
        G = (softmax(X @ W + b) - Y) / len(y)
        W -= args.lr * X.T @ G
        b -= args.lr * G.sum(axis=0)
    np.savez(args.out, W=W, b=b)
    print(f"trained {args.steps} gradient steps on {len(y)} digits; saved {args.out}")


if __name__ == "__main__":
    main()
