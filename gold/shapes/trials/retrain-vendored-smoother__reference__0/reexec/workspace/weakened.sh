#!/usr/bin/env bash
# Weakened experiment: four times the bandwidth, oversmoothing. It must miss.
set -euo pipefail
[ -d .deps/tinysmooth ] || pip install --no-index --no-deps --target .deps code/vendor/tinysmooth-0.2.0-py3-none-any.whl
mkdir -p ref_out
PYTHONPATH=.deps python3 code/fit.py --data data --factor 4.0 --out ref_out/metrics.json
python3 -c 'import json, sys; v = float(json.load(open(sys.argv[1]))[sys.argv[2]]); json.dump({sys.argv[3]: v}, open("results.json", "w")); print(f"{sys.argv[3]} = {v!r}")' \
    ref_out/metrics.json r2 test_r2
