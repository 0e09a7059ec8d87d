"""Fit the ridge calibration model; the penalty is chosen by exact leave-one-out CV.

    python3 code/train.py --data data/train.csv --out weights/model.npz

Bands are standardised with the training mean and standard deviation and the
response is centred, so the intercept is the training mean and is not
penalised. For each lambda in the grid the leave-one-out residuals come in
closed form from the hat matrix: e_i / (1 - H_ii).
"""

import argparse

import numpy as np

GRID = [0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0]


def load(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    return header[:-1], table[:, :-1], table[:, -1]


def ridge(Z, yc, lam):
    return np.linalg.solve(Z.T @ Z + lam * np.eye(Z.shape[1]), Z.T @ yc)


def loo_mse(Z, yc, lam):
    H = Z @ np.linalg.solve(Z.T @ Z + lam * np.eye(Z.shape[1]), Z.T)
    # centring y costs one more degree of freedom per point: 1/n on the diagonal
    h = np.diag(H) + 1.0 / len(yc)
    resid = yc - H @ yc
    return float(np.mean((resid / (1.0 - h)) ** 2))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="data/train.csv")
    ap.add_argument("--out", default="weights/model.npz")
    args = ap.parse_args()

    names, X, y = load(args.data)
    mean, scale = X.mean(axis=0), X.std(axis=0)
    Z = (X - mean) / scale
    intercept = y.mean()
    yc = y - intercept
    scores = {lam: loo_mse(Z, yc, lam) for lam in GRID}
    for lam, s in scores.items():
        print(f"lambda={lam:<6g} LOO-RMSE={np.sqrt(s):.4f}")
    best = min(GRID, key=scores.get)
    coef = ridge(Z, yc, best)
    np.savez(args.out, coef=coef, intercept=np.array(intercept), mean=mean, scale=scale,
             lam=np.array(best), bands=np.array(names))
    print(f"chose lambda={best:g}; saved {args.out}")


if __name__ == "__main__":
    main()
