"""A two-layer perceptron: 2 inputs -> tanh hidden layer -> softmax over 2 classes."""

import numpy as np


def init(hidden, seed):
    rng = np.random.default_rng(seed)
    return {
        "W1": rng.normal(0.0, 1.0, size=(2, hidden)),
        "b1": np.zeros(hidden),
        "W2": rng.normal(0.0, 1.0 / np.sqrt(hidden), size=(hidden, 2)),
        "b2": np.zeros(2),
    }


def forward(params, X):
    H = np.tanh(X @ params["W1"] + params["b1"])
    logits = H @ params["W2"] + params["b2"]
    return H, logits


def softmax(logits):
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def gradients(params, X, y):
    """Gradient of the mean cross-entropy with respect to every parameter."""
    H, logits = forward(params, X)
    G = softmax(logits)
    G[np.arange(len(y)), y] -= 1.0
    G /= len(y)
    dH = (G @ params["W2"].T) * (1.0 - H**2)
    return {"W1": X.T @ dH, "b1": dH.sum(0), "W2": H.T @ G, "b2": G.sum(0)}


def load_csv(path):
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    return table[:, :2], table[:, 2].astype(int)
