"""Train the spiral classifier with full-batch Adam.

    python3 code/train.py --data data/train.csv --out weights/model.npz
"""

import argparse

import numpy as np
from mlp import gradients, init, load_csv


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="data/train.csv")
    ap.add_argument("--out", default="weights/model.npz")
    ap.add_argument("--hidden", type=int, default=48)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    X, y = load_csv(args.data)
    params = init(args.hidden, args.seed)
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v = {k: np.zeros_like(p) for k, p in params.items()}
    b1, b2, eps = 0.9, 0.999, 1e-8
    for t in range(1, args.steps + 1):
        grads = gradients(params, X, y)
        for k in params:
            m[k] = b1 * m[k] + (1 - b1) * grads[k]
            v[k] = b2 * v[k] + (1 - b2) * grads[k] ** 2
            params[k] -= args.lr * (m[k] / (1 - b1**t)) / (np.sqrt(v[k] / (1 - b2**t)) + eps)
    np.savez(args.out, **params)
    print(f"trained {args.steps} Adam steps on {len(y)} points; saved {args.out}")


if __name__ == "__main__":
    main()
