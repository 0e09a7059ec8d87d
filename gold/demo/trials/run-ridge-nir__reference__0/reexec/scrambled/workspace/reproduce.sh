#!/usr/bin/env bash
# Reference solution (level: run): apply the released calibration to the released
# test spectra with the released code, then record the RMSE in results.json.
set -euo pipefail
mkdir -p ref_out
python3 code/evaluate.py --weights weights/model.npz --data data/test.csv --out ref_out/metrics.json
python3 ref_collect.py ref_out/metrics.json rmse test_rmse
