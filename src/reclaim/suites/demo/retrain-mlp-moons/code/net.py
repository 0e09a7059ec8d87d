"""Forward pass and data loading shared by train.py and evaluate.py."""

import numpy as np


def forward(P, X, keep=False):
    """Logit of class 1 for each row of X (already standardised)."""
    a1 = X @ P["W1"] + P["b1"]
    h1 = np.maximum(a1, 0.0)
    a2 = h1 @ P["W2"] + P["b2"]
    h2 = np.maximum(a2, 0.0)
    out = (h2 @ P["W3"] + P["b3"])[:, 0]
    return (a1, h1, a2, h2, out) if keep else out


def load_csv(path):
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    return table[:, :2], table[:, 2].astype(int)
