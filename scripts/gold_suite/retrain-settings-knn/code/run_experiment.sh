#!/bin/bash
# Runs the experiment of Table 1. Settings of your machine (paths, threads, the output folder)
# go in local_settings.sh in the folder you run this from; none are needed.
set -e
[ -f local_settings.sh ] && source local_settings.sh
DATA_DIR=${DATA_DIR:-data}
OUT_DIR=${OUT_DIR:-results}
K=${K:-15}
mkdir -p "$OUT_DIR"
python3 code/knn.py --train "$DATA_DIR/train.csv" --test "$DATA_DIR/test.csv" --k "$K" --out "$OUT_DIR/metrics.json"
echo "metrics in $OUT_DIR/metrics.json"
