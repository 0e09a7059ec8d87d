#!/bin/bash
# A genuinely weaker experiment: 2,000 training steps per width instead of 40,000 (the wide models are far
# from trained, so the loss falls less steeply with m).
set -euo pipefail
N_STEPS=2000 python3 run_exp17.py
