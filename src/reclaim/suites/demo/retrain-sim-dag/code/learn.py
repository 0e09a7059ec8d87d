"""Order-based BIC structure learning for linear-Gaussian data with equal noise variances.

Step 1, the order (top-down): the first variable is the one of least variance; each next one
is the variable whose residual variance, regressed on the variables already ordered, is least.
With equal noise variances this recovers a causal order as n grows.

Step 2, the parents: for each variable, every subset of at most max_parents of the variables
before it in that order is scored with
    BIC(S) = n log(RSS_S / n) + log(n) (|S| + 1),
by least squares without intercept (the data are centred first); the lowest score wins (the
smaller subset, enumerated first, wins a tie).
"""

import itertools

import numpy as np


def rss(X, j, cols):
    if not cols:
        return float(X[:, j] @ X[:, j])
    A = X[:, list(cols)]
    coef = np.linalg.lstsq(A, X[:, j], rcond=None)[0]
    r = X[:, j] - A @ coef
    return float(r @ r)


def top_down_order(X):
    d = X.shape[1]
    order, rest = [], list(range(d))
    while rest:
        nxt = min(rest, key=lambda j: rss(X, j, order))
        order.append(nxt)
        rest.remove(nxt)
    return order


def best_parents(X, j, candidates, max_parents):
    n = len(X)
    best = None
    for k in range(min(max_parents, len(candidates)) + 1):
        for subset in itertools.combinations(candidates, k):
            score = n * np.log(rss(X, j, subset) / n) + np.log(n) * (k + 1)
            if best is None or score < best[0]:
                best = (score, subset)
    return best[1]


def learn(X, max_parents=3):
    """The learned graph as a d x d 0/1 matrix (A[i, j] = 1: edge i -> j), and the order used."""
    X = X - X.mean(axis=0)
    order = top_down_order(X)
    A = np.zeros((X.shape[1], X.shape[1]), dtype=int)
    for pos, j in enumerate(order):
        for i in best_parents(X, j, sorted(order[:pos]), max_parents):
            A[i, j] = 1
    return A, order
