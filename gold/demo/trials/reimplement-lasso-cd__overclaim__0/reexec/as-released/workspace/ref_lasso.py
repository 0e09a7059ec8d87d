"""Reference implementation: the Lasso by cyclic coordinate descent.

Reads data/train.csv and data/test.csv (columns x01..x40, y), standardises the
features with the training mean and population standard deviation, centres y,
and minimises
    (1 / (2n)) * ||y_c - Z b||^2 + lam * ||b||_1,   lam = 0.3
by cyclic coordinate descent from b = 0 until no coefficient moves by more
than 1e-8 in a sweep. Writes the test mean squared error to results.json.
"""

import json

import numpy as np

LAM = 0.3
TOL = 1e-8
MAX_SWEEPS = 100000


def soft(z, t):
    return np.sign(z) * max(abs(z) - t, 0.0)


def lasso_cd(Z, yc):
    n, p = Z.shape
    b = np.zeros(p)
    r = yc.copy()
    col_sq = (Z**2).sum(axis=0) / n
    for _ in range(MAX_SWEEPS):
        biggest = 0.0
        for j in range(p):
            old = b[j]
            rho = Z[:, j] @ r / n + col_sq[j] * old
            b[j] = soft(rho, LAM) / col_sq[j]
            if b[j] != old:
                r -= Z[:, j] * (b[j] - old)
                biggest = max(biggest, abs(b[j] - old))
        if biggest < TOL:
            break
    return b


def main():
    tr = np.loadtxt("data/train.csv", delimiter=",", skiprows=1)
    te = np.loadtxt("data/test.csv", delimiter=",", skiprows=1)
    mean, std = tr[:, :-1].mean(axis=0), tr[:, :-1].std(axis=0)
    y_mean = tr[:, -1].mean()
    b = lasso_cd((tr[:, :-1] - mean) / std, tr[:, -1] - y_mean)
    pred = (te[:, :-1] - mean) / std @ b + y_mean
    mse = float(np.mean((te[:, -1] - pred) ** 2))
    print(f"{np.count_nonzero(b)} non-zero coefficients")
    with open("results.json", "w") as f:
        json.dump({"test_mse": mse}, f)
    print(f"test_mse = {mse!r}")


if __name__ == "__main__":
    main()
