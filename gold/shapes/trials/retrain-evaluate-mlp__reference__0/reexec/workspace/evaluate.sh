#!/usr/bin/env bash
# Evaluation only (budget.reexec.mode evaluate re-runs just this): the trained model.npz on the test set.
set -euo pipefail
mkdir -p ref_out
python3 code/evaluate.py --model model.npz --data data/test.csv --out ref_out/metrics.json
python3 -c 'import json, sys; v = float(json.load(open(sys.argv[1]))[sys.argv[2]]); json.dump({sys.argv[3]: v}, open("results.json", "w")); print(f"{sys.argv[3]} = {v!r}")' \
    ref_out/metrics.json accuracy test_accuracy
