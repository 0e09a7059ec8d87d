#!/usr/bin/env bash
# Reference solution (level: reimplement): Huber regression by IRLS, own implementation.
set -euo pipefail
python3 ref_huber.py
