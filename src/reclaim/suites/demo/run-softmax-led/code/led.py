"""A linear softmax classifier for LED-display digits: 24 binary inputs -> 10 classes."""

import numpy as np


def load_csv(path):
    """Columns seg_a..seg_g, extra_01..extra_17 (0 or 1) and digit (0-9)."""
    table = np.loadtxt(path, delimiter=",", skiprows=1, dtype=int)
    return table[:, :-1].astype(float), table[:, -1]


def softmax(logits):
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def predict(params, X):
    return (X @ params["W"] + params["b"]).argmax(axis=1)
