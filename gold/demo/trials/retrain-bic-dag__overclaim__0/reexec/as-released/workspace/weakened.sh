#!/usr/bin/env bash
# Weakened experiment (level: retrain): the released search restricted to at most ONE
# parent per variable (the paper allows three), so every variable with several causes
# loses some. It must miss the paper's exact recovery.
set -euo pipefail
mkdir -p weak_out
python3 code/learn.py --data data/samples.csv --out weak_out/graph.csv --max-parents 1
python3 code/evaluate.py --graph weak_out/graph.csv --truth data/true_edges.csv --out weak_out/metrics.json
python3 -c 'import json, sys; v = float(json.load(open(sys.argv[1]))[sys.argv[2]]); json.dump({sys.argv[3]: v}, open("results.json", "w")); print(f"{sys.argv[3]} = {v!r}")' \
    weak_out/metrics.json shd shd
