#!/bin/bash
# The authors' command: run oilo_experiment.ipynb (README). Its one code cell is run as a script.
set -euo pipefail
python3 run_notebook.py
