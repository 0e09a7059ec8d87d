#!/bin/bash
# The authors' command: execute notebooks/Gaussian_d64.ipynb (README), its code cells run as a script with
# the paths of the separate code/ and data/ materials; seed from SEED (0), 10,000 training steps per IMF step.
set -euo pipefail
python3 run_notebook.py
