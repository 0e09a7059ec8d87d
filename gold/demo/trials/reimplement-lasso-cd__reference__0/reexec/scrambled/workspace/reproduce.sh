#!/usr/bin/env bash
# Reference solution (level: reimplement): Lasso by cyclic coordinate descent, own implementation.
set -euo pipefail
python3 ref_lasso.py
