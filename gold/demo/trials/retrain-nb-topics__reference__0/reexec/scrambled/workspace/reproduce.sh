#!/usr/bin/env bash
# Reference solution (level: retrain): fit naive Bayes with the released code
# (alpha = 1), evaluate macro-F1 on the test documents.
set -euo pipefail
mkdir -p ref_out
python3 code/train.py --data data/train.tsv --out ref_out/model.npz --alpha 1.0
python3 code/evaluate.py --model ref_out/model.npz --data data/test.tsv --out ref_out/metrics.json
python3 ref_collect.py ref_out/metrics.json macro_f1 test_macro_f1
