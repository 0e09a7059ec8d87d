"""Random DAGs and linear-Gaussian samples on them, from one seed.

    B, X = simulate(rng, d=30, n=3000)

The graph: a random order of the d variables; each variable draws at most MAX_PARENTS
parents among the variables before it (each earlier variable is a parent with probability
EDGE_PROB, the first MAX_PARENTS of those kept). Weights are uniform in +-[W_LOW, W_HIGH];
every noise term is standard normal (equal variances: the order is identifiable).
B[i, j] != 0 means the edge i -> j.
"""

import numpy as np

EDGE_PROB = 0.12
MAX_PARENTS = 3
W_LOW, W_HIGH = 0.25, 1.0


def random_dag(rng, d):
    order = rng.permutation(d)
    B = np.zeros((d, d))
    for pos in range(1, d):
        j = order[pos]
        earlier = order[:pos]
        chosen = earlier[rng.random(pos) < EDGE_PROB][:MAX_PARENTS]
        for i in chosen:
            B[i, j] = rng.uniform(W_LOW, W_HIGH) * rng.choice([-1.0, 1.0])
    return B, order


def sample(rng, B, order, n):
    d = len(B)
    X = np.zeros((n, d))
    for j in order:
        X[:, j] = X @ B[:, j] + rng.normal(size=n)
    return X


def simulate(rng, d, n):
    B, order = random_dag(rng, d)
    return B, sample(rng, B, order, n)
