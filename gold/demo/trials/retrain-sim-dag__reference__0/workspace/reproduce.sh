#!/usr/bin/env bash
# Reference solution (level: retrain): run the released simulation and search at the paper's
# settings (30 variables, 3,000 samples, at most 3 parents). code/main.py reads its seed from
# $SEED (the paper's run: 1, the default); the harness sets it. Record SHD, TPR and FDR.
set -euo pipefail
mkdir -p ref_out
python3 code/main.py --out ref_out/metrics.json
python3 ref_collect.py ref_out/metrics.json shd tpr fdr
