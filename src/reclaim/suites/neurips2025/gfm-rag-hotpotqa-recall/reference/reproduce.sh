#!/bin/bash
# The authors' retrieval-only evaluation (docs/experiment/gfm_rag.md) of the released GFM-RAG-8M on the three test
# sets, asking the trainer for recall@2 and recall@5 on documents, then keeping them in percent.
# data/ holds the authors' OneDrive download (hotpotqa_test/, musique_test/, 2wikimultihopqa_test/ with processed/stage1/).
set -euo pipefail
ROOT="$PWD"
WEIGHTS="${WEIGHTS:-$ROOT/weights}"
DATA_ROOT="$(dirname "$(find "$ROOT/data" -type d -name hotpotqa_test | head -1)")"
cd code
HYDRA_FULL_ERROR=1 torchrun --nproc_per_node="${N_GPU:-1}" -m gfmrag.workflow.sft_training \
  load_model_from_pretrained="$WEIGHTS" datasets.cfgs.root="$DATA_ROOT" 'datasets.train_names=[]' \
  '+trainer.args.eval_batch_size=1' trainer.args.do_train=false trainer.args.do_eval=true trainer.args.do_predict=true \
  'trainer.metrics=[mrr,recall@2,recall@5]' 2>&1 | tee "$ROOT/eval.log"
python3 - "$ROOT" <<'PY'
import json, re, sys
log = open(sys.argv[1] + "/eval.log").read()
names = {"hotpotqa_test": "hotpotqa", "musique_test": "musique", "2wikimultihopqa_test": "wiki2"}
out = {}
# the trainer logs each metric as '<data_name>/document_recall@k: 0.xxxx' (base_trainer._log_metrics, 4 decimals)
for data, short in names.items():
    for k in (2, 5):
        vals = re.findall(rf"{re.escape(data)}/document_recall@{k}: ([0-9.]+)", log)
        if vals:
            out[f"{short}_recall_at_{k}"] = round(100 * float(vals[-1]), 2)
json.dump(out, open(sys.argv[1] + "/results.json", "w"), indent=1)
print(out)
PY
