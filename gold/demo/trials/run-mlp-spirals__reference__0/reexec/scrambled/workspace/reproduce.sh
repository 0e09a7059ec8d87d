#!/usr/bin/env bash
# Reference solution (level: run): evaluate the released network on the released
# test set with the released code, then record the accuracy in results.json.
set -euo pipefail
mkdir -p ref_out
python3 code/evaluate.py --weights weights/model.npz --data data/test.csv --out ref_out/metrics.json
python3 ref_collect.py ref_out/metrics.json accuracy test_accuracy
