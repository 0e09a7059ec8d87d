#!/bin/bash
# The authors' AIME 2024 evaluation (README 'Evaluation on AIME 2024') of the released DAPO-Qwen-32B: serve the
# weights with the repository's Ray Serve + vLLM app (eval/llm.py), then run eval/eval_aime24.py against it
# (temperature 1.0, top-p 0.7, 20,480 new tokens) and keep its 'acc/mean@32' in percent.
# eval/llm.py asks for num_replicas=8 deployments of tensor-parallel-size GPUs each (64 GPUs in the authors' setup);
# REPLICAS (default 1) and TP (default 8) size it to the machine at hand: the sampling settings are unchanged.
set -euo pipefail
ROOT="$PWD"
WEIGHTS="${WEIGHTS:-$ROOT/weights}"
REPLICAS="${REPLICAS:-1}"
TP="${TP:-8}"
cd code
sed -i "s/num_replicas=8,/num_replicas=${REPLICAS},/" eval/llm.py
serve run eval.llm:build_app model="$WEIGHTS" tensor-parallel-size="$TP" > "$ROOT/serve.log" 2>&1 &
SERVE_PID=$!
trap 'kill $SERVE_PID 2>/dev/null || true' EXIT
for _ in $(seq 1 360); do   # wait up to an hour for the model to load
  curl -s -o /dev/null -X POST http://127.0.0.1:8000/v1/chat/completions -H 'Content-Type: application/json' \
    -d "{\"model\": \"$(basename "$WEIGHTS")\", \"messages\": [{\"role\": \"user\", \"content\": \"1+1=\"}], \"max_tokens\": 1}" \
    && break
  sleep 10
done
# eval/llm.py names a local model by its directory's basename
python eval/eval_aime24.py --temperature 1.0 --top_p 0.7 --max_tokens "${MAX_TOKENS:-20480}" --model "$(basename "$WEIGHTS")" \
  --test_file eval/aime-2024.parquet 2>&1 | tee "$ROOT/eval.log"
python3 - "$ROOT" <<'PY'
import json, re, sys
log = open(sys.argv[1] + "/eval.log").read()
acc = float(re.findall(r"acc/mean@32: ([0-9.]+)", log)[-1])
json.dump({"aime24_mean_at_32": round(100 * acc, 2)}, open(sys.argv[1] + "/results.json", "w"))
print("aime24_mean_at_32", 100 * acc)
PY
