#!/usr/bin/env bash
# Weakened experiment (level: run): instead of the released shrinkage model, refit LDA with
# the repository's train.py WITHOUT shrinkage (--shrinkage 0) on the 45 training spectra and
# evaluate that. A real run with the wrong setting: 30 features from 45 samples make the
# covariance estimate poor, and it must miss.
set -euo pipefail
mkdir -p weak_out
python3 code/train.py --data data/train.csv --shrinkage 0 --out weak_out/lda.npz
python3 code/evaluate.py --weights weak_out/lda.npz --data data/test.csv | tee weak_out/eval.log
python3 code/collect_results.py weak_out/eval.log --out results.json
