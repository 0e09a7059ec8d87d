#!/usr/bin/env bash
# Reference solution (level: retrain): train the network from scratch with the
# released SGD code (seed 0, 150 epochs), evaluate on the test set.
set -euo pipefail
mkdir -p ref_out
python3 code/train.py --data data/train.csv --out ref_out/model.npz --epochs 150 --seed 0
python3 code/evaluate.py --model ref_out/model.npz --data data/test.csv --out ref_out/metrics.json
python3 ref_collect.py ref_out/metrics.json accuracy test_accuracy
