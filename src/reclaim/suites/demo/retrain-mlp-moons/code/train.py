"""Train the 2-32-32-1 ReLU network on the two-moons data with mini-batch SGD.

    python3 code/train.py --data data/train.csv --out model.npz [--epochs 150] [--seed 0]

Inputs are standardised with the training mean and standard deviation.
Weights use He initialisation (normal, std sqrt(2 / fan_in); the output layer
std sqrt(1 / fan_in)), biases start at zero. Each epoch visits the training set
in a fresh random order in mini-batches of 32 and takes plain SGD steps
(lr 0.05, no momentum, no weight decay) on the mean binary cross-entropy.
All randomness comes from numpy.random.default_rng(seed).
"""

import argparse

import numpy as np
from net import forward, load_csv


def init(rng, hidden):
    return {
        "W1": rng.normal(0.0, np.sqrt(2.0 / 2), size=(2, hidden)), "b1": np.zeros(hidden),
        "W2": rng.normal(0.0, np.sqrt(2.0 / hidden), size=(hidden, hidden)), "b2": np.zeros(hidden),
        "W3": rng.normal(0.0, np.sqrt(1.0 / hidden), size=(hidden, 1)), "b3": np.zeros(1),
    }


def sgd_step(P, xb, yb, lr):
    a1, h1, a2, h2, out = forward(P, xb, keep=True)
    g = (1.0 / (1.0 + np.exp(-out)) - yb)[:, None] / len(yb)
    d2 = (g @ P["W3"].T) * (a2 > 0)
    d1 = (d2 @ P["W2"].T) * (a1 > 0)
    grads = {"W3": h2.T @ g, "b3": g.sum(0), "W2": h1.T @ d2, "b2": d2.sum(0),
             "W1": xb.T @ d1, "b1": d1.sum(0)}
    for k, G in grads.items():
        P[k] -= lr * G


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="data/train.csv")
    ap.add_argument("--out", default="model.npz")
    ap.add_argument("--epochs", type=int, default=150)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    X, y = load_csv(args.data)
    mean, scale = X.mean(axis=0), X.std(axis=0)
    Z = (X - mean) / scale
    rng = np.random.default_rng(args.seed)
    P = init(rng, args.hidden)
    for epoch in range(1, args.epochs + 1):
        order = rng.permutation(len(Z))
        for i in range(0, len(Z), args.batch):
            idx = order[i:i + args.batch]
            sgd_step(P, Z[idx], y[idx].astype(float), args.lr)
        if epoch % 25 == 0:
            acc = np.mean((forward(P, Z) > 0) == (y == 1))
            print(f"epoch {epoch:4d}  train accuracy {acc:.4f}")
    np.savez(args.out, mean=mean, scale=scale, **P)
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
