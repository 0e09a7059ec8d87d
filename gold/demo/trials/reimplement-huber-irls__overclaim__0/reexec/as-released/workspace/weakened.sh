#!/usr/bin/env bash
# Weakened experiment (level: reimplement): Huber regression by IRLS, own implementation,
# but stopped after 2 iterations instead of running to convergence. It must miss.
set -euo pipefail
python3 ref_weak_huber.py
