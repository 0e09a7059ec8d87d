"""Train a multinomial naive Bayes topic classifier with Laplace smoothing.

    python3 code/train.py --data data/train.tsv --out model.npz [--alpha 1.0]

Each line of the data file is `label<TAB>text`; the text is split on
whitespace. The vocabulary is every token that occurs in the training texts.
log P(word | class) = log((count(word, class) + alpha) / (tokens(class) + alpha * |V|))
log P(class)        = log(documents(class) / documents)
"""

import argparse

import numpy as np
from corpus import count_matrix, read_tsv


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="data/train.tsv")
    ap.add_argument("--out", default="model.npz")
    ap.add_argument("--alpha", type=float, default=1.0)
    args = ap.parse_args()

    labels, docs = read_tsv(args.data)
    classes = sorted(set(labels))
    vocab = sorted({tok for doc in docs for tok in doc})
    X = count_matrix(docs, {w: i for i, w in enumerate(vocab)})
    y = np.array([classes.index(c) for c in labels])

    counts = np.stack([X[y == k].sum(axis=0) for k in range(len(classes))]) + args.alpha
    log_lik = np.log(counts / counts.sum(axis=1, keepdims=True))
    log_prior = np.log(np.bincount(y, minlength=len(classes)) / len(y))
    np.savez(args.out, log_prior=log_prior, log_lik=log_lik,
             classes=np.array(classes), vocab=np.array(vocab))
    print(f"{len(docs)} documents, {len(classes)} classes, vocabulary of {len(vocab)}; saved {args.out}")


if __name__ == "__main__":
    main()
