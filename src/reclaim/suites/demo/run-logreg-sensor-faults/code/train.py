"""Train the L2-regularised logistic-regression fault detector (Newton's method).

    python3 code/train.py --data data/train.csv --out weights/model.npz

Features are standardised with the training mean and standard deviation; the
objective is the mean log-loss plus (lam / 2) * ||w||^2 (the bias is not
penalised). Newton's method runs until the step is below 1e-10.
"""

import argparse

import numpy as np


def load(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    return header[:-1], table[:, :-1], table[:, -1].astype(int)


def fit(X, y, lam, max_iter=50, tol=1e-10):
    n, d = X.shape
    A = np.hstack([X, np.ones((n, 1))])
    theta = np.zeros(d + 1)
    reg = np.full(d + 1, lam)
    reg[-1] = 0.0
    for _ in range(max_iter):
        p = 1.0 / (1.0 + np.exp(-(A @ theta)))
        grad = A.T @ (p - y) / n + reg * theta
        hess = (A * (p * (1 - p))[:, None]).T @ A / n + np.diag(reg)
        step = np.linalg.solve(hess, grad)
        theta -= step
        if np.max(np.abs(step)) < tol:
            break
    return theta[:-1], theta[-1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="data/train.csv")
    ap.add_argument("--out", default="weights/model.npz")
    ap.add_argument("--lam", type=float, default=1e-2)
    args = ap.parse_args()

    names, X, y = load(args.data)
    mean, scale = X.mean(axis=0), X.std(axis=0)
    w, b = fit((X - mean) / scale, y, args.lam)
    np.savez(args.out, w=w, b=np.array(b), mean=mean, scale=scale, features=np.array(names))
    print(f"trained on {len(y)} rows, {len(names)} features; saved {args.out}")


if __name__ == "__main__":
    main()
