#!/bin/bash
# A genuinely weaker experiment: 300 training steps per IMF step instead of 10,000 (the drifts are far from
# trained; the barycentre errors must miss).
set -euo pipefail
STEPS=300 python3 run_notebook.py
