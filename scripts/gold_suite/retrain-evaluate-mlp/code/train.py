"""Train a 2-64-1 tanh network by full-batch gradient descent on the log-loss.

    python3 code/train.py [--data data/train.csv] [--epochs 4000] [--lr 0.5] [--out model.npz]
"""

import argparse

import numpy as np


def forward(W1, b1, W2, b2, X):
    H = np.tanh(X @ W1 + b1)
    return H, 1.0 / (1.0 + np.exp(-(H @ W2 + b2)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="data/train.csv")
    ap.add_argument("--epochs", type=int, default=4000)
    ap.add_argument("--lr", type=float, default=0.5)
    ap.add_argument("--out", default="model.npz")
    args = ap.parse_args()
    tr = np.loadtxt(args.data, delimiter=",", skiprows=1)
    X, y = tr[:, :2], tr[:, 2:3]
    rng = np.random.default_rng(0)
    W1, b1 = rng.normal(scale=1.0, size=(2, 64)), np.zeros(64)
    W2, b2 = rng.normal(scale=0.3, size=(64, 1)), np.zeros(1)
    for epoch in range(1, args.epochs + 1):
        H, p = forward(W1, b1, W2, b2, X)
        g = (p - y) / len(X)
        gH = (g @ W2.T) * (1 - H ** 2)
        W2 -= args.lr * H.T @ g
        b2 -= args.lr * g.sum(axis=0)
        W1 -= args.lr * X.T @ gH
        b1 -= args.lr * gH.sum(axis=0)
        if epoch % 1000 == 0:
            loss = -np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))
            print(f"epoch {epoch:5d}  train log-loss {loss:.4f}")
    np.savez(args.out, W1=W1, b1=b1, W2=W2, b2=b2)
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
