#!/usr/bin/env bash
# Reference (level retrain): train with the released code at its defaults, then evaluate.
set -euo pipefail
python3 code/train.py --data data/train.csv --epochs 4000 --out model.npz
bash evaluate.sh
