"""Evaluate a trained naive Bayes topic classifier: accuracy and macro-averaged F1.

    python3 code/evaluate.py --model model.npz --data data/test.tsv [--out metrics.json]
"""

import argparse
import json

import numpy as np
from corpus import count_matrix, read_tsv


def macro_f1(y, pred, n_classes):
    scores = []
    for k in range(n_classes):
        tp = np.sum((pred == k) & (y == k))
        fp = np.sum((pred == k) & (y != k))
        fn = np.sum((pred != k) & (y == k))
        scores.append(2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0)
    return float(np.mean(scores)), [float(s) for s in scores]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="model.npz")
    ap.add_argument("--data", default="data/test.tsv")
    ap.add_argument("--out", default=None, help="also write the metrics to this JSON file")
    args = ap.parse_args()

    m = np.load(args.model)
    classes = [str(c) for c in m["classes"]]
    labels, docs = read_tsv(args.data)
    X = count_matrix(docs, {str(w): i for i, w in enumerate(m["vocab"])})
    pred = np.argmax(X @ m["log_lik"].T + m["log_prior"], axis=1)
    y = np.array([classes.index(c) for c in labels])
    f1, per_class = macro_f1(y, pred, len(classes))
    metrics = {"accuracy": float(np.mean(pred == y)), "macro_f1": f1,
               "f1_per_class": dict(zip(classes, per_class)), "n_test": int(len(y))}
    print(f"test macro-F1: {f1:.4f}  accuracy: {metrics['accuracy']:.4f}  ({len(y)} documents)")
    for c, s in zip(classes, per_class):
        print(f"  F1[{c}] = {s:.4f}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(metrics, f, indent=2)


if __name__ == "__main__":
    main()
