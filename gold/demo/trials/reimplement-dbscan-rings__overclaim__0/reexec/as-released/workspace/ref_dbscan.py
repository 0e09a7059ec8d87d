"""Reference implementation: DBSCAN (eps = 1.0, min_pts = 5) on data/points.csv, scored
by the adjusted Rand index against the column `label`.

    python3 ref_dbscan.py [EPS]

A point is a core point when at least MIN_PTS points (itself included) lie within
Euclidean distance EPS of it; clusters grow from core points in file order; points
reached by no core point are noise (label -1, one group of their own for the ARI).
"""

import json
import sys

import numpy as np

EPS = 1.0
MIN_PTS = 5


def dbscan(X, eps, min_pts):
    near = ((X[:, None, :] - X[None]) ** 2).sum(axis=2) <= eps ** 2
    core = near.sum(axis=1) >= min_pts
    labels, cluster = np.full(len(X), -1), 0
    for i in range(len(X)):
        if labels[i] != -1 or not core[i]:
            continue
        labels[i], frontier = cluster, [i]
        while frontier:
            q = frontier.pop()
            if core[q]:
                for j in np.flatnonzero(near[q] & (labels == -1)):
                    labels[j] = cluster
                    frontier.append(j)
        cluster += 1
    return labels


def adjusted_rand_index(a, b):
    _, ai = np.unique(a, return_inverse=True)
    _, bi = np.unique(b, return_inverse=True)
    table = np.zeros((ai.max() + 1, bi.max() + 1))
    np.add.at(table, (ai, bi), 1)
    pairs = lambda counts: float((counts * (counts - 1) / 2).sum())
    index, rows, cols = pairs(table), pairs(table.sum(axis=1)), pairs(table.sum(axis=0))
    expected = rows * cols / (len(a) * (len(a) - 1) / 2)
    return (index - expected) / ((rows + cols) / 2 - expected)


def main():
    eps = float(sys.argv[1]) if len(sys.argv) > 1 else EPS
    table = np.loadtxt("data/points.csv", delimiter=",", skiprows=1)
    X, truth = table[:, :2], table[:, 2].astype(int)
    labels = dbscan(X, eps, MIN_PTS)
    ari = adjusted_rand_index(labels, truth)
    print(f"DBSCAN eps={eps} min_pts={MIN_PTS}: {labels.max() + 1} clusters, "
          f"{int(np.sum(labels == -1))} noise points")
    with open("results.json", "w") as f:
        json.dump({"ari": ari}, f)
    print(f"ari = {ari!r}")


if __name__ == "__main__":
    main()
