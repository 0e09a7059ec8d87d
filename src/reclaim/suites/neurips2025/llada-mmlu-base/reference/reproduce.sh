#!/bin/bash
# The authors' command (eval_llada_lm_eval.sh, MMLU line) on the released LLaDA-8B-Base weights; keeps lm-eval's
# 5-shot MMLU accuracy (the 'mmlu' group) in percent.
set -euo pipefail
export HF_ALLOW_CODE_EVAL=1 HF_DATASETS_TRUST_REMOTE_CODE=true
WEIGHTS="${WEIGHTS:-$PWD/weights}"
OUT="$PWD/lm_eval_out"
( cd code && accelerate launch eval_llada.py --tasks mmlu --num_fewshot 5 --model llada_dist --batch_size 1 \
    --model_args model_path="$WEIGHTS",cfg=0.0,is_check_greedy=False,mc_num=1 --output_path "$OUT" )
python3 - "$OUT" <<'PY'
import glob, json, os, sys
files = sorted(glob.glob(os.path.join(sys.argv[1], "**", "results_*.json"), recursive=True), key=os.path.getmtime)
res = json.load(open(files[-1]))["results"]["mmlu"]
acc = res.get("acc,none", res.get("acc"))
json.dump({"mmlu_5shot_acc": round(100 * acc, 2)}, open("results.json", "w"))
print("mmlu_5shot_acc", 100 * acc)
PY
