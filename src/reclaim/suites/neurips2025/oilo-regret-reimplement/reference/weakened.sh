#!/bin/bash
# A genuinely weaker experiment: 50 rounds instead of the paper's 10,000 (the learners stop long
# before the paper's horizon: ONS and the cutting plane accumulate far less regret than at T = 10,000).
set -euo pipefail
T=50 python3 oilo_reimpl.py
