#!/bin/bash
# The authors' experiment: run 'Breast Cancer Wisconsin/binary-classification.ipynb' (cells 1, 3, 4:
# XGBoost, then backward conformal prediction with C = 1 over 200 splits), as a script, with the
# seed of the test-point draws from $SEED and the dataset from the data material (no network).
set -euo pipefail
python3 run_notebook.py
