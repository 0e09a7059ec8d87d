#!/usr/bin/env bash
# Reference solution (level: run): apply the released model (weights/lda.npz) to the released
# test spectra with the repository's evaluate.py, then collect the printed accuracy with the
# repository's own collect_results.py (whose docstring quotes the paper's number as an example
# of the line it reads: a mention, not the program writing it).
set -euo pipefail
mkdir -p ref_out
python3 code/evaluate.py --weights weights/lda.npz --data data/test.csv | tee ref_out/eval.log
python3 code/collect_results.py ref_out/eval.log --out results.json
