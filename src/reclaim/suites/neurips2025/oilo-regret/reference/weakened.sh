#!/bin/bash
# A genuinely weaker experiment: 1,000 rounds instead of the paper's 10,000 (less regret accumulates).
set -euo pipefail
T=1000 python3 run_notebook.py
