"""Weakened experiment: refit the calibration by ordinary least squares instead of ridge.

    python3 ref_weak_ols.py TRAIN_CSV OUT_NPZ

Same preprocessing as the released code/train.py (bands standardised with the
training mean and population standard deviation, intercept = training mean of the
response) but no penalty at all. Writes a model file in the released format, so
code/evaluate.py can apply it.
"""

import sys

import numpy as np


def main():
    src, dst = sys.argv[1:3]
    with open(src) as f:
        names = f.readline().strip().split(",")[:-1]
    table = np.loadtxt(src, delimiter=",", skiprows=1)
    X, y = table[:, :-1], table[:, -1]
    mean, scale = X.mean(axis=0), X.std(axis=0)
    intercept = y.mean()
    coef = np.linalg.lstsq((X - mean) / scale, y - intercept, rcond=None)[0]
    np.savez(dst, coef=coef, intercept=np.array(intercept), mean=mean, scale=scale,
             lam=np.array(0.0), bands=np.array(names))
    print(f"least squares on {len(y)} samples, {len(names)} bands; saved {dst}")


if __name__ == "__main__":
    main()
