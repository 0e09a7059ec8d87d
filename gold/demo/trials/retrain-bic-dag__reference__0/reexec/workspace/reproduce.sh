#!/usr/bin/env bash
# Reference solution (level: retrain): learn the graph from the released samples with the
# released code at its defaults (BIC, at most 3 parents), compare it with the released
# true graph, and record the structural Hamming distance in results.json.
set -euo pipefail
mkdir -p ref_out
python3 code/learn.py --data data/samples.csv --out ref_out/graph.csv --max-parents "${MAX_PARENTS:-3}"
python3 code/evaluate.py --graph ref_out/graph.csv --truth data/true_edges.csv --out ref_out/metrics.json
python3 ref_collect.py ref_out/metrics.json shd shd
