#!/bin/bash
# A genuinely weaker experiment: an XGBoost classifier with 3 trees instead of the notebook's 100.
set -euo pipefail
N_ESTIMATORS=3 python3 run_notebook.py
