#!/bin/bash
# A genuinely weaker run: 2 LSVI iterations instead of 25 (the fixed-point iteration has not converged from p=0.5).
set -euo pipefail
export SEED="${SEED:-0}"
(cd code/LSVI/experiments/bayesianSelectionVariable/concrete && python3 generate_concrete_from_particles.py > /dev/null)
NITER=2 python3 run_lsvi.py
