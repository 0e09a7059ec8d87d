#!/usr/bin/env bash
# Weakened experiment: the full 4000 epochs at a step size 250 times too small (0.002), under-trained. It must miss.
set -euo pipefail
python3 code/train.py --data data/train.csv --epochs 4000 --lr 0.002 --out model.npz
bash evaluate.sh
