#!/bin/bash
# A genuinely weaker experiment: 20 iterations instead of 1e5 (the optimal arms have not yet taken
# all the probability mass).
set -euo pipefail
ITERS=20 SEED="${SEED:-0}" SEEDS="${SEEDS:-30}" python3 "$(dirname "$0")/gradient_bandit.py"
