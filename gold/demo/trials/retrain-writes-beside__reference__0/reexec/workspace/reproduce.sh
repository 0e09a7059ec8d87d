#!/usr/bin/env bash
# Reference solution (level: retrain): run the released pipeline as released, at its defaults
# (400 random Fourier features, gamma 0.1, ridge penalty 0.03). code/run.py writes its feature
# matrices to code/cache/features.npz, beside itself, and reads them back: the released folder
# must be writable. Record the test RMSE in results.json.
set -euo pipefail
mkdir -p ref_out
python3 code/run.py --data data --out ref_out/metrics.json
python3 ref_collect.py ref_out/metrics.json rmse test_rmse
