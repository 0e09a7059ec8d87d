#!/usr/bin/env bash
# Reference solution (level: reimplement): DBSCAN and the adjusted Rand index, own implementation.
set -euo pipefail
python3 ref_dbscan.py "${EPS:-1.0}"
