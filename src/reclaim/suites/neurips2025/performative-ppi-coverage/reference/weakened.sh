#!/bin/bash
# Weakened: the same experiment with the confidence region that ignores performativity
# (Sigma_t = V_t: the deployed distribution treated as fixed, no J Sigma_{t-1} J^T term). It undercovers.
set -euo pipefail
SEED="${SEED:-0}" ALPHA="${ALPHA:-0.1}" METHOD=naive python3 performative_ppi.py
