#!/usr/bin/env bash
# Weakened experiment (level: retrain): the released pipeline with 50 random features instead
# of 400, too few to approximate the kernel. A real run with a weaker setting: it must miss.
set -euo pipefail
mkdir -p weak_out
python3 code/run.py --data data --features 50 --out weak_out/metrics.json
python3 -c 'import json, sys; v = float(json.load(open(sys.argv[1]))[sys.argv[2]]); json.dump({sys.argv[3]: v}, open("results.json", "w")); print(f"{sys.argv[3]} = {v!r}")' \
    weak_out/metrics.json rmse test_rmse
