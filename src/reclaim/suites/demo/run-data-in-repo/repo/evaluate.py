"""Classify the test spectra with a fitted LDA model and print the accuracy.

    python3 evaluate.py --weights lda.npz --data data/test.csv
"""

import argparse

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--weights", default="lda.npz")
    ap.add_argument("--data", default="data/test.csv")
    args = ap.parse_args()

    model = np.load(args.weights)
    with open(args.data) as f:
        header = f.readline().strip().split(",")
    if header[:-1] != [str(s) for s in model["features"]]:
        raise SystemExit("the CSV's columns are not the features the model was fitted on")
    table = np.loadtxt(args.data, delimiter=",", skiprows=1)
    X, y = table[:, :-1], table[:, -1].astype(int)
    pred = model["classes"][np.argmax(X @ model["coef"] + model["intercept"], axis=1)]
    for k in model["classes"]:
        print(f"variety {k}: {np.sum(y == k)} samples, recall {np.mean(pred[y == k] == k):.4f}")
    print(f"Test accuracy: {np.mean(pred == y):.4f} ({np.sum(pred == y)}/{len(y)})")


if __name__ == "__main__":
    main()
