#!/usr/bin/env bash
# Weakened experiment (level: retrain): fit naive Bayes with the released code (alpha = 1)
# on only the first half of the training notes (150 of 300), then evaluate macro-F1 on
# the full test set. Too little data: it must miss the paper's score.
set -euo pipefail
mkdir -p weak_out
head -n 150 data/train.tsv > weak_out/train_half.tsv
python3 code/train.py --data weak_out/train_half.tsv --out weak_out/model.npz --alpha 1.0
python3 code/evaluate.py --model weak_out/model.npz --data data/test.tsv --out weak_out/metrics.json
python3 -c 'import json, sys; v = float(json.load(open(sys.argv[1]))[sys.argv[2]]); json.dump({sys.argv[3]: v}, open("results.json", "w")); print(f"{sys.argv[3]} = {v!r}")' \
    weak_out/metrics.json macro_f1 test_macro_f1
