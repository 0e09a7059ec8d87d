#!/usr/bin/env bash
# Weakened experiment (level: run): evaluate the released code on a NOISY copy of the
# released network (every parameter perturbed by Gaussian noise of 10% of its standard
# deviation, seed 0) instead of the network itself. It must miss the paper's accuracy.
set -euo pipefail
mkdir -p weak_out
python3 ref_weak_noise.py weights/model.npz weak_out/model.npz
python3 code/evaluate.py --weights weak_out/model.npz --data data/test.csv --out weak_out/metrics.json
python3 -c 'import json, sys; v = float(json.load(open(sys.argv[1]))[sys.argv[2]]); json.dump({sys.argv[3]: v}, open("results.json", "w")); print(f"{sys.argv[3]} = {v!r}")' \
    weak_out/metrics.json accuracy test_accuracy
