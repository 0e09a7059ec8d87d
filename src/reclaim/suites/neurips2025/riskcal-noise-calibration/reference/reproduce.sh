#!/bin/bash
# The authors' command: run research/unifying_risk/simulation_code.py (jupytext notebook), with the
# riskcal library at the commit its uv.lock pins (71a60ba, installed by the environment: the PyPI
# release also numbered 1.0.0 has another API).
set -euo pipefail
python3 run_simulation.py
