#!/usr/bin/env bash
# Weakened experiment: uniform play instead of UCB1. It must miss.
set -euo pipefail
mkdir -p ref_out
python3 code/bandit.py --policy uniform --out ref_out/metrics.json
python3 -c 'import json, sys; v = float(json.load(open(sys.argv[1]))[sys.argv[2]]); json.dump({sys.argv[3]: v}, open("results.json", "w")); print(f"{sys.argv[3]} = {v!r}")' \
    ref_out/metrics.json mean_regret mean_regret
