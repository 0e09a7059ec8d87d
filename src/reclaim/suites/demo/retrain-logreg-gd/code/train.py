"""Train logistic regression by full-batch gradient descent.

    python3 code/train.py --data data/train.csv --out model.npz [--iters 400] [--lr 0.5]

Features are standardised with the training mean and (population) standard
deviation. Weights and bias start at zero; each iteration takes one step of
size lr along the gradient of the mean log-loss over the whole training set.
There is no regularisation and no early stopping.
"""

import argparse

import numpy as np


def load(path):
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    return table[:, :-1], table[:, -1]


def sigmoid(t):
    return 1.0 / (1.0 + np.exp(-t))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="data/train.csv")
    ap.add_argument("--out", default="model.npz")
    ap.add_argument("--iters", type=int, default=400)
    ap.add_argument("--lr", type=float, default=0.5)
    ap.add_argument("--log-every", type=int, default=100)
    args = ap.parse_args()

    X, y = load(args.data)
    mean, scale = X.mean(axis=0), X.std(axis=0)
    Z = (X - mean) / scale
    n, d = Z.shape
    w, b = np.zeros(d), 0.0
    for it in range(1, args.iters + 1):
        p = sigmoid(Z @ w + b)
        w -= args.lr * (Z.T @ (p - y) / n)
        b -= args.lr * float(np.mean(p - y))
        if args.log_every and it % args.log_every == 0:
            p = np.clip(sigmoid(Z @ w + b), 1e-12, 1 - 1e-12)
            loss = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
            print(f"iter {it:5d}  train log-loss {loss:.5f}")
    np.savez(args.out, w=w, b=np.array(b), mean=mean, scale=scale)
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
