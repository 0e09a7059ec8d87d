#!/bin/bash
# The authors' (DeiT-style) evaluation of the released PPMA-Tiny checkpoint on ImageNet-1k val: classification/main.py
# --eval. data/ holds the Hub's ILSVRC/imagenet-1k data/val_images.tar.gz (files ILSVRC2012_val_<n>_<synset>.JPEG),
# regrouped into the ImageFolder layout main.py reads (<root>/val/<synset>/).
set -euo pipefail
ROOT="$PWD"
IMNET="$ROOT/imagenet_folder"
if [ ! -d "$IMNET/val" ]; then
  mkdir -p "$IMNET/val_raw"
  tar -xzf "$(find "$ROOT/data" -name 'val_images.tar.gz' | head -1)" -C "$IMNET/val_raw"
  python3 - "$IMNET" <<'PY'
import pathlib, sys
root = pathlib.Path(sys.argv[1])
for p in (root / "val_raw").rglob("*.JPEG"):
    d = root / "val" / p.stem.rsplit("_", 1)[-1]; d.mkdir(parents=True, exist_ok=True); p.rename(d / p.name)
PY
  mkdir -p "$IMNET/train" && ln -sfn "$IMNET/val"/* "$IMNET/train/" 2>/dev/null || true   # main.py builds a train set too
fi
CKPT="$(find "$ROOT/weights" -name 'best.pth' | head -1)"
cd code/classification
python3 main.py --eval --model PPMAViT_T --resume "$CKPT" --data_path "$IMNET" --batch_size 128 --num_workers 8 \
  --output_dir "$ROOT/eval_out" 2>&1 | tee "$ROOT/eval.log"
python3 - "$ROOT" <<'PY'
import json, re, sys
log = open(sys.argv[1] + "/eval.log").read()
acc = [float(x) for x in re.findall(r"Accuracy of the network(?:_ema)? on the \d+ test images: ([0-9.]+)%", log)]
json.dump({"imagenet_val_top1": max(acc)}, open(sys.argv[1] + "/results.json", "w"))
print("imagenet_val_top1", max(acc))
PY
