#!/usr/bin/env bash
# Weakened experiment (level: run): instead of applying the released ridge calibration,
# refit the model by unpenalised least squares on data/train.csv and apply that with the
# released code/evaluate.py. A real experiment with the wrong method: it must miss.
set -euo pipefail
mkdir -p weak_out
python3 ref_weak_ols.py data/train.csv weak_out/model.npz
python3 code/evaluate.py --weights weak_out/model.npz --data data/test.csv --out weak_out/metrics.json
python3 -c 'import json, sys; v = float(json.load(open(sys.argv[1]))[sys.argv[2]]); json.dump({sys.argv[3]: v}, open("results.json", "w")); print(f"{sys.argv[3]} = {v!r}")' \
    weak_out/metrics.json rmse test_rmse
