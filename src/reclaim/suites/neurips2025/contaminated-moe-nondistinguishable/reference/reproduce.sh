#!/bin/bash
# Reference draft (own reimplementation; the authors released no code): MLE convergence rates in the
# non-distinguishable softmax-contaminated MoE (Section 4, case i by default; CASE=ii for case ii).
# Does NOT reproduce the printed slopes (see task.yaml review notes); not referenced by task.yaml.
set -euo pipefail
SEED="${SEED:-0}" CASE="${CASE:-i}" python3 moe_nd_rates.py
