#!/bin/bash
# The authors' command for Fig. 1 (cd exp && python exp-17.py, its defaults), seeded from SEED, then the
# least-squares slope of log(final loss) against log(m).
set -euo pipefail
python3 run_exp17.py
