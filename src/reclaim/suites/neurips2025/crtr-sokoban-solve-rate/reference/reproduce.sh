#!/bin/bash
# The authors' Sokoban evaluation (README 'Evaluation'): best-first search guided by the released CRTR representations
# (example_checkpoints/sokoban/crtr.pt) on the 1,000 evaluation boards; keeps solved_rate_1000_nodes.
# N_JOBS (default 1000, the authors') and SEED (default 0) can be changed for a perturbation.
set -euo pipefail
ROOT="$PWD"
cd code
mkdir -p example_checkpoints training_datasets
[ -e example_checkpoints/sokoban ] || ln -s "$ROOT/weights/sokoban" example_checkpoints/sokoban
[ -e training_datasets/sokoban_eval_boards ] || ln -s "$ROOT/data" training_datasets/sokoban_eval_boards
python runner.py --config_file configs/solve/search/contrastive/sokoban.gin \
  --gin_bindings "SolveJob.n_jobs = ${N_JOBS:-1000}" "run.seed = ${SEED:-0}" 2>&1 | tee "$ROOT/solve.log"
python3 - "$ROOT" <<'PY'
import json, re, sys
log = open(sys.argv[1] + "/solve.log").read()
vals = re.findall(r"solved_rate_1000_nodes\D+([0-9.]+)", log)
json.dump({"sokoban_solved_rate_1000_nodes": float(vals[-1])}, open(sys.argv[1] + "/results.json", "w"))
print("sokoban_solved_rate_1000_nodes", vals[-1])
PY
