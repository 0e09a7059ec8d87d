#!/usr/bin/env bash
# Weakened experiment (level: retrain): the released search restricted to at most ONE parent
# per variable (the paper allows three), so every variable with several causes loses some of
# them. It must miss the paper's exact recovery.
set -euo pipefail
mkdir -p weak_out
python3 code/main.py --max-parents 1 --out weak_out/metrics.json
python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); out = {k: float(m[k]) for k in ("shd", "tpr", "fdr")}; json.dump(out, open("results.json", "w")); print(out)' \
    weak_out/metrics.json
