#!/bin/bash
# A genuinely weaker experiment: 20 Monte Carlo trials instead of the paper's 5000.
set -euo pipefail
N_TRIALS=20 python3 run_table1.py
