#!/bin/bash
# The authors' math evaluation (evaluation/math_eval/run.sh, azr_coder_7b_seed2) of the released AZR Coder-7B:
# greedy decoding on six benchmarks; Math Avg = mean of the six accuracies.
set -euo pipefail
ROOT="$PWD"
WEIGHTS="$(cd "${WEIGHTS:-$ROOT/weights}" && pwd)"
cd code/evaluation/math_eval
if ! python3 -c "import latex2sympy2" 2>/dev/null; then
  tar -xzf latex2sympy.tar.gz && ( cd eval/latex2sympy && pip install -e . ) && pip install -r requirements.txt
fi
sed -i 's/^export WANDB_API_KEY=.*/export WANDB_MODE=offline/' eval_math_nodes.sh
bash eval_math_nodes.sh --run_name azr_coder_7b_seed2 --init_model "$WEIGHTS" --template azr_boxed --tp_size 1 \
  --add_step_0 true --temperature 0 --top_p 0.95 --max_tokens "${MAX_TOKENS:-16000}" \
  --benchmarks aime24,aime25,amc23,math500,olympiadbench,minerva_math --n_sampling 1 --just_wandb false --seed 2 \
  2>&1 | tee "$ROOT/eval.log" || echo "eval_math_nodes.sh exited non-zero (its wandb/collect steps); reading the metrics files"
# eval_math_nodes.sh cd's into eval/ and writes ../EVAL/checkpoints/<run_name>/eval_results/global_step_0/<benchmark>/*_metrics.json
# (math_eval.py: out_file.replace('.jsonl', '_metrics.json'); 'acc' is already in percent, evaluate.py)
python3 - "$ROOT" "$PWD/EVAL/checkpoints/azr_coder_7b_seed2" <<'PY'
import glob, json, os, sys
root, base = sys.argv[1], sys.argv[2]
benches = ["aime24", "aime25", "amc23", "math500", "olympiadbench", "minerva_math"]
acc = {}
for f in glob.glob(os.path.join(base, "**", "*metrics.json"), recursive=True):
    parts = f.split(os.sep)
    for b in benches:
        if b in parts:
            acc[b] = float(json.load(open(f))["acc"])
missing = [b for b in benches if b not in acc]
if missing:
    sys.exit(f"no metrics for {missing} under {base}")
res = {f"{b}_acc": acc[b] for b in benches}
res["math_avg"] = round(sum(acc.values()) / len(benches), 2)
json.dump(res, open(os.path.join(root, "results.json"), "w"), indent=1)
print(res)
PY
