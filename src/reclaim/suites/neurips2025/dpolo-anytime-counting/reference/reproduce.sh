#!/bin/bash
# The authors' Figure 2 experiment at their horizon 2**24, its variance ratios written instead of plotted.
set -euo pipefail
python3 variance_ratio.py
