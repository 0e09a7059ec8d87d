#!/usr/bin/env bash
# Reference solution (level: reimplement): k-means++ seeding + Lloyd, best of 10, own implementation.
set -euo pipefail
python3 ref_kmeans.py
