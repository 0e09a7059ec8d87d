#!/bin/bash
# Reference (own reimplementation; the authors released no code): the NW interpolator's clean test error
# against beta on the paper's 1-D construction (Eq. (4)) and on data uniform on the sphere S^2 in R^3
# (Eq. (5)); m = 2000 training points, label noise P, 50 repetitions, beta grid 0.25..6 (step 0.25).
# SEED, P and DIM (the sphere's intrinsic dimension) come from the environment (verify.inputs).
set -euo pipefail
SEED="${SEED:-0}" P="${P:-0.1}" DIM="${DIM:-2}" python3 nw_overfit.py
