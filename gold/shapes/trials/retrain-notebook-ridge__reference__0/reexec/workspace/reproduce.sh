#!/usr/bin/env bash
# Reference (level retrain): execute the authors' notebook, then take R^2 from the executed
# notebook's namespace (not from its printed, rounded output).
set -euo pipefail
python3 ref_notebook.py code/analysis.ipynb 3.0 test_r2
