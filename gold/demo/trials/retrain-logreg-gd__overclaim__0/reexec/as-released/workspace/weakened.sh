#!/usr/bin/env bash
# Weakened experiment (level: retrain): train with the released gradient-descent code
# for only a quarter of the iteration budget (100 instead of 400, same step size),
# then evaluate on the test set. Under-trained: it must miss the paper's accuracy.
set -euo pipefail
mkdir -p weak_out
python3 code/train.py --data data/train.csv --out weak_out/model.npz --iters 100 --lr 0.5
python3 code/evaluate.py --model weak_out/model.npz --data data/test.csv --out weak_out/metrics.json
python3 -c 'import json, sys; v = float(json.load(open(sys.argv[1]))[sys.argv[2]]); json.dump({sys.argv[3]: v}, open("results.json", "w")); print(f"{sys.argv[3]} = {v!r}")' \
    weak_out/metrics.json accuracy test_accuracy
