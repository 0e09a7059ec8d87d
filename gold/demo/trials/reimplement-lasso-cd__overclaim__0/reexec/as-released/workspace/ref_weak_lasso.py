"""Weakened experiment: the Lasso by cyclic coordinate descent, stopped after 3 sweeps.

Same problem as the paper (features standardised with the training mean and
population standard deviation, y centred,
    (1 / (2n)) * ||y_c - Z b||^2 + lam * ||b||_1,   lam = 0.3),
but coordinate descent from b = 0 is cut off after 3 sweeps over the coefficients
instead of being run to convergence. Writes the test mean squared error to results.json.
"""

import json

import numpy as np

LAM = 0.3
SWEEPS = 3


def soft(z, t):
    return np.sign(z) * max(abs(z) - t, 0.0)


def lasso_cd_truncated(Z, yc):
    n, p = Z.shape
    b = np.zeros(p)
    r = yc.copy()
    col_sq = (Z**2).sum(axis=0) / n
    for _ in range(SWEEPS):
        for j in range(p):
            old = b[j]
            rho = Z[:, j] @ r / n + col_sq[j] * old
            b[j] = soft(rho, LAM) / col_sq[j]
            if b[j] != old:
                r -= Z[:, j] * (b[j] - old)
    return b


def main():
    tr = np.loadtxt("data/train.csv", delimiter=",", skiprows=1)
    te = np.loadtxt("data/test.csv", delimiter=",", skiprows=1)
    mean, std = tr[:, :-1].mean(axis=0), tr[:, :-1].std(axis=0)
    y_mean = tr[:, -1].mean()
    b = lasso_cd_truncated((tr[:, :-1] - mean) / std, tr[:, -1] - y_mean)
    pred = (te[:, :-1] - mean) / std @ b + y_mean
    mse = float(np.mean((te[:, -1] - pred) ** 2))
    print(f"stopped after {SWEEPS} sweeps; {np.count_nonzero(b)} non-zero coefficients")
    with open("results.json", "w") as f:
        json.dump({"test_mse": mse}, f)
    print(f"test_mse = {mse!r}")


if __name__ == "__main__":
    main()
