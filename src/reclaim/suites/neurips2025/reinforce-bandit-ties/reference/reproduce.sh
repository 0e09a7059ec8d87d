#!/bin/bash
# Own reimplementation (the authors released no code): the stochastic gradient bandit algorithm
# (Algorithm 1) in the paper's Section 3.2 / Fig. 2a setting, eta in {1, 10}, 1e5 iterations, theta_0 = 0.
# SEED picks the random stream (the harness perturbs it); writes results.json.
set -euo pipefail
ITERS="${ITERS:-100000}" SEED="${SEED:-0}" SEEDS="${SEEDS:-30}" python3 "$(dirname "$0")/gradient_bandit.py"
