"""Fit shrinkage linear discriminant analysis (LDA) on the training spectra.

    python3 train.py --data data/train.csv --out lda.npz [--shrinkage 0.6]

The pooled within-class covariance S is shrunk towards a multiple of the identity,
    S_a = (1 - a) S + a (trace(S) / p) I,
and each class k gets a linear discriminant
    delta_k(x) = x' S_a^-1 mu_k - mu_k' S_a^-1 mu_k / 2 + log pi_k.
Saves coef (p x K), intercept (K), classes and the feature names.
"""

import argparse

import numpy as np


def load(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    return header[:-1], table[:, :-1], table[:, -1].astype(int)


def fit_lda(X, y, shrinkage):
    classes = np.unique(y)
    means = np.array([X[y == k].mean(axis=0) for k in classes])
    R = X - means[np.searchsorted(classes, y)]
    S = R.T @ R / (len(X) - len(classes))
    p = X.shape[1]
    Sa = (1 - shrinkage) * S + shrinkage * np.trace(S) / p * np.eye(p)
    coef = np.linalg.solve(Sa, means.T)
    prior = np.array([np.mean(y == k) for k in classes])
    intercept = -0.5 * np.sum(means.T * coef, axis=0) + np.log(prior)
    return classes, coef, intercept


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="data/train.csv")
    ap.add_argument("--out", default="lda.npz")
    ap.add_argument("--shrinkage", type=float, default=0.6)
    args = ap.parse_args()

    names, X, y = load(args.data)
    classes, coef, intercept = fit_lda(X, y, args.shrinkage)
    np.savez(args.out, coef=coef, intercept=intercept, classes=classes, features=np.array(names),
             shrinkage=np.array(args.shrinkage))
    print(f"fitted LDA (shrinkage {args.shrinkage:g}) on {len(y)} samples, {X.shape[1]} features, "
          f"{len(classes)} classes; saved {args.out}")


if __name__ == "__main__":
    main()
