"""Compare a learned DAG with the true one.

    shd: structural Hamming distance: edges missing + edges extra + edges reversed
         (a reversed edge counts once);
    tpr: true edges learned with the right direction / true edges;
    fdr: learned edges that are not true edges in that direction (extra or reversed) / learned edges.
"""

import numpy as np


def count_accuracy(B_true, A_learned):
    true = {(int(i), int(j)) for i, j in zip(*np.nonzero(B_true))}
    got = {(int(i), int(j)) for i, j in zip(*np.nonzero(A_learned))}
    und = lambda edges: {frozenset(e) for e in edges}
    correct = true & got
    reversed_ = {(i, j) for (i, j) in got if (j, i) in true}
    extra = {e for e in got if frozenset(e) not in und(true)}
    missing = {e for e in true if frozenset(e) not in und(got)}
    return {
        "shd": len(missing) + len(extra) + len(reversed_),
        "tpr": len(correct) / max(len(true), 1),
        "fdr": (len(extra) + len(reversed_)) / max(len(got), 1),
        "edges_true": len(true),
        "edges_learned": len(got),
        "missing": len(missing),
        "extra": len(extra),
        "reversed": len(reversed_),
    }
