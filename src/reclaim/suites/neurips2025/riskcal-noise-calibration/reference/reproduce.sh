#!/bin/bash
# The authors' command: run research/unifying_risk/simulation_code.py (jupytext notebook), with the
# riskcal library at the version its uv.lock pins (riskcal 1.0.0, installed by the environment).
set -euo pipefail
python3 run_simulation.py
