"""Reference implementation: k-means (Lloyd) with k-means++ seeding, best of 10 restarts.

Reads data/points.csv (columns x1, x2) and writes the lowest final inertia
(sum of squared distances of the points to their nearest centre) over the
restarts to results.json.
"""

import json

import numpy as np

K = 6
RESTARTS = 10
SEED = 0


def sq_dists(X, C):
    return ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)


def kmeanspp(X, rng):
    centres = [X[rng.integers(len(X))]]
    for _ in range(K - 1):
        d2 = sq_dists(X, np.array(centres)).min(axis=1)
        centres.append(X[rng.choice(len(X), p=d2 / d2.sum())])
    return np.array(centres)


def lloyd(X, C):
    assign = None
    while True:
        D = sq_dists(X, C)
        new = D.argmin(axis=1)
        if assign is not None and np.array_equal(new, assign):
            return C, float(D[np.arange(len(X)), new].sum())
        assign = new
        C = np.array([X[assign == j].mean(axis=0) if np.any(assign == j) else C[j] for j in range(K)])


def main():
    X = np.loadtxt("data/points.csv", delimiter=",", skiprows=1)
    rng = np.random.default_rng(SEED)
    runs = [lloyd(X, kmeanspp(X, rng)) for _ in range(RESTARTS)]
    for i, (_, inertia) in enumerate(runs):
        print(f"restart {i}: inertia {inertia:.4f}")
    best = min(inertia for _, inertia in runs)
    with open("results.json", "w") as f:
        json.dump({"inertia": best}, f)
    print(f"inertia = {best!r}")


if __name__ == "__main__":
    main()
