"""Reading the tab-separated corpus and turning documents into count vectors."""

import numpy as np


def read_tsv(path):
    labels, docs = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            label, text = line.split("\t", 1)
            labels.append(label)
            docs.append(text.split())
    return labels, docs


def count_matrix(docs, index):
    """Documents x vocabulary counts; tokens missing from the index are dropped."""
    X = np.zeros((len(docs), len(index)))
    for row, doc in enumerate(docs):
        for tok in doc:
            col = index.get(tok)
            if col is not None:
                X[row, col] += 1
    return X
