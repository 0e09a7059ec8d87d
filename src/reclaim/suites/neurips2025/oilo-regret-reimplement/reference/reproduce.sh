#!/bin/bash
# The reference of the reimplement task: our own implementation (oilo_reimpl.py) of the paper's
# synthetic experiment (n = 2, T = 10,000 rounds, 10 trials; OGD, ONS and the cutting-plane heuristic),
# written from the paper's description. SEED (the paper's run: 27) seeds the trials' random streams.
set -euo pipefail
python3 oilo_reimpl.py
