"""Weakened experiment: one Lloyd run from uniformly sampled initial centres.

Instead of k-means++ seeding with the best of 10 restarts, draws k = 6 distinct
points uniformly at random (numpy.random.default_rng(0)) as the initial centres
and runs Lloyd's algorithm once, until the assignments stop changing. Writes the
final inertia (sum of squared distances to the nearest centre) to results.json.
"""

import json

import numpy as np

K = 6
SEED = 0


def sq_dists(X, C):
    return ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)


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
    _, inertia = lloyd(X, X[rng.choice(len(X), K, replace=False)])
    with open("results.json", "w") as f:
        json.dump({"inertia": inertia}, f)
    print(f"one uniformly initialised run: inertia = {inertia!r}")


if __name__ == "__main__":
    main()
