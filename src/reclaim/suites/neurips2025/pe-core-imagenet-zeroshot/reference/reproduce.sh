#!/bin/bash
# The authors' zero-shot evaluation (apps/pe/docs/evaluation.md: python -m clip_benchmark.cli eval ...) of the released
# PE-Core-B16-224 on ImageNet-1k (the CLIP-benchmark webdataset). The only change: the checkpoint is read from
# weights/ (the pinned material) instead of fetch_pe_checkpoint's Hub download.
set -euo pipefail
ROOT="$PWD"
CKPT="$(find "$ROOT/weights" -name 'PE-Core-B16-224.pt' | head -1)"
DATA="$ROOT/data"
cd code/apps/pe
PYTHONPATH="$ROOT/code:$PWD" python3 - "$CKPT" "$DATA" "$ROOT" <<'PY'
import json, glob, os, sys
ckpt, data, root = sys.argv[1:4]
import core.vision_encoder.pe as pe
pe.fetch_pe_checkpoint = lambda name, path=None: ckpt
from clip_benchmark import cli
sys.argv = ["clip_benchmark", "eval", "--model", "PE-Core-B16-224", "--dataset", "wds/wds_imagenet1k",
            "--dataset_root", data, "--output", os.path.join(root, "bench_{dataset}.json"),
            "--force-preprocess-cfg", "resize_mode=squash"]
cli.main()
out = json.load(open(sorted(glob.glob(os.path.join(root, "bench_*.json")))[-1]))
acc = out["metrics"]["acc1"]
json.dump({"imagenet1k_zeroshot_top1": round(100 * acc, 2)}, open(os.path.join(root, "results.json"), "w"))
print("imagenet1k_zeroshot_top1", 100 * acc)
PY
