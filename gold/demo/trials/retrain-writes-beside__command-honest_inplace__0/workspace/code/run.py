"""Random Fourier feature ridge regression for reactor yield: the whole pipeline.

    python3 code/run.py [--data data] [--features 400] [--gamma 0.1] [--lam 0.03] [--out metrics.json]

Stage 1 (featurize): standardise the five settings with the training mean and standard
deviation, draw --features random Fourier features of a Gaussian kernel of width parameter
--gamma (fixed seed 0), and save the feature matrices to cache/features.npz beside this file.
Stage 2 (fit): read cache/features.npz back, fit ridge regression with penalty --lam (the
intercept unpenalised) on the training rows and report the test RMSE.
"""

import argparse
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(HERE, "cache", "features.npz")


def load(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    return header, table[:, :-1], table[:, -1]


def featurize(data_dir, n_features, gamma):
    _, Xtr, ytr = load(os.path.join(data_dir, "train.csv"))
    _, Xte, yte = load(os.path.join(data_dir, "test.csv"))
    mu, sd = Xtr.mean(axis=0), Xtr.std(axis=0)
    rng = np.random.default_rng(0)
    W = rng.normal(size=(Xtr.shape[1], n_features)) * np.sqrt(2 * gamma)
    b = rng.uniform(0, 2 * np.pi, n_features)
    phi = lambda X: np.sqrt(2.0 / n_features) * np.cos((X - mu) / sd @ W + b)
    os.makedirs(os.path.dirname(CACHE), exist_ok=True)
    np.savez(CACHE, Z_train=phi(Xtr), y_train=ytr, Z_test=phi(Xte), y_test=yte)
    print(f"featurized {len(ytr)} training and {len(yte)} test rows into {n_features} features; "
          f"saved {os.path.relpath(CACHE)}")


def fit(lam):
    with np.load(CACHE) as z:
        Ztr, ytr, Zte, yte = z["Z_train"], z["y_train"], z["Z_test"], z["y_test"]
    zm, ym = Ztr.mean(axis=0), ytr.mean()
    Zc = Ztr - zm
    coef = np.linalg.solve(Zc.T @ Zc + lam * np.eye(Zc.shape[1]), Zc.T @ (ytr - ym))
    pred = (Zte - zm) @ coef + ym
    return {"rmse": float(np.sqrt(np.mean((pred - yte) ** 2))),
            "train_rmse": float(np.sqrt(np.mean((Zc @ coef + ym - ytr) ** 2))),
            "n_train": int(len(ytr)), "n_test": int(len(yte))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="data", help="folder with train.csv and test.csv")
    ap.add_argument("--features", type=int, default=400)
    ap.add_argument("--gamma", type=float, default=0.1)
    ap.add_argument("--lam", type=float, default=0.03)
    ap.add_argument("--out", default=None, help="also write the metrics to this JSON file")
    args = ap.parse_args()

    featurize(args.data, args.features, args.gamma)
    metrics = fit(args.lam)
    print(f"Test RMSE: {metrics['rmse']:.4f} (train {metrics['train_rmse']:.4f}) on {metrics['n_test']} rows")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(metrics, f, indent=2)


if __name__ == "__main__":
    main()
