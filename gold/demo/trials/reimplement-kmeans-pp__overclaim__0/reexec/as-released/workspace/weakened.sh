#!/usr/bin/env bash
# Weakened experiment (level: reimplement): k-means (Lloyd), own implementation, but a
# single run from uniformly sampled initial centres instead of k-means++ seeding with
# the best of 10 restarts. It gets stuck in a poor local minimum and must miss.
set -euo pipefail
python3 ref_weak_kmeans.py
