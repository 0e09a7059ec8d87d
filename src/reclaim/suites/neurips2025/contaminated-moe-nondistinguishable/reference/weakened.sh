#!/bin/bash
# Weakened: likelihood maximisation stopped after 3 L-BFGS iterations (the estimate stays near its start).
set -euo pipefail
SEED="${SEED:-0}" CASE="${CASE:-i}" MAXITER=3 python3 moe_nd_rates.py
