#!/bin/bash
# The authors' evaluation (imagenet/test.sh) of the released Max-Former-10-768 T=4 checkpoint on ImageNet-1k val,
# on one GPU. data/ holds the Hub's ILSVRC/imagenet-1k data/val_images.tar.gz (files ILSVRC2012_val_<n>_<synset>.JPEG),
# regrouped here into the ImageFolder layout test.py reads (<root>/val/<synset>/*.JPEG).
set -euo pipefail
ROOT="$PWD"
IMNET="$ROOT/imagenet_folder"
if [ ! -d "$IMNET/val" ]; then
  mkdir -p "$IMNET/val_raw"
  tar -xzf "$(find "$ROOT/data" -name 'val_images.tar.gz' | head -1)" -C "$IMNET/val_raw"
  python3 - "$IMNET" <<'PY'
import os, sys, pathlib
root = pathlib.Path(sys.argv[1]); raw = root / "val_raw"
for p in raw.rglob("*.JPEG"):
    syn = p.stem.rsplit("_", 1)[-1]
    d = root / "val" / syn; d.mkdir(parents=True, exist_ok=True)
    p.rename(d / p.name)
PY
fi
CKPT="$(find "$ROOT/weights" -name '10-768-T4.pth.tar' | head -1)"
export WANDB_MODE=disabled
cd code/imagenet
torchrun --nnodes=1 --nproc_per_node=1 --rdzv_endpoint=127.0.0.1:2963 test.py --eval --pin_mem \
  -c ./conf/10_768_t4.yml --exp eval_10_768_t4 --log_dir "$ROOT/log" --output_dir "$ROOT/output" \
  --resume "$CKPT" --data_path "$IMNET" 2>&1 | tee "$ROOT/test.log"
python3 - "$ROOT" <<'PY'
import json, re, sys
log = open(sys.argv[1] + "/test.log").read()
acc = float(re.findall(r"Accuracy of the network on the \d+ test images: ([0-9.]+)%", log)[-1])
json.dump({"imagenet_val_top1": acc}, open(sys.argv[1] + "/results.json", "w"))
PY
