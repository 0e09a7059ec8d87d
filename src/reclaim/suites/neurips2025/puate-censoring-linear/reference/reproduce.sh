#!/bin/bash
# The authors' command: run notebooks/Table 1.ipynb (README "Notebook interface"; it calls
# run_table_1_experiment with N_TRIALS = 5000, BASE_SEED = 0). Run here as a script with the
# trial count from $N_TRIALS and the base seed from $SEED.
set -euo pipefail
python3 run_table1.py
