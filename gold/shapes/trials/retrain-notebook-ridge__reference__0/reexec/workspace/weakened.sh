#!/usr/bin/env bash
# Weakened experiment: the same notebook with LAMBDA = 0.0, least squares. It must miss.
set -euo pipefail
python3 ref_notebook.py code/analysis.ipynb 0.0 test_r2
