#!/bin/bash
# Reference (own reimplementation; the authors released no code): MLE convergence rates in the
# distinguishable softmax-contaminated MoE (Section 4): d = 8, 20 sample sizes from 1e3 to 1e5,
# 40 experiments each; SEED from the environment (verify.inputs).
set -euo pipefail
SEED="${SEED:-0}" python3 moe_rates.py
