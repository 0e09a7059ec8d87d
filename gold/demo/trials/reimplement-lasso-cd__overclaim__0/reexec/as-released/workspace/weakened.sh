#!/usr/bin/env bash
# Weakened experiment (level: reimplement): the Lasso by cyclic coordinate descent, own
# implementation, but stopped after 3 sweeps instead of running to convergence. It must miss.
set -euo pipefail
python3 ref_weak_lasso.py
