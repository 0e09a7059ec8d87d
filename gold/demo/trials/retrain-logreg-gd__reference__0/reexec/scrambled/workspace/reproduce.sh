#!/usr/bin/env bash
# Reference solution (level: retrain): train from scratch with the released
# gradient-descent code and its default settings, evaluate on the test set.
set -euo pipefail
mkdir -p ref_out
python3 code/train.py --data data/train.csv --out ref_out/model.npz --iters 400 --lr 0.5
python3 code/evaluate.py --model ref_out/model.npz --data data/test.csv --out ref_out/metrics.json
python3 ref_collect.py ref_out/metrics.json accuracy test_accuracy
