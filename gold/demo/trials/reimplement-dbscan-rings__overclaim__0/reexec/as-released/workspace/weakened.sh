#!/usr/bin/env bash
# Weakened experiment (level: reimplement): the same DBSCAN implementation with half the
# paper's neighbourhood radius (eps = 0.5), so the sparse outer ring falls apart into arcs.
# It must miss the paper's exact recovery.
set -euo pipefail
python3 ref_dbscan.py 0.5
