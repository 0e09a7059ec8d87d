#!/bin/bash
# The authors' command (README, Validation) on the released v1.0 YOLOv12-N weights: COCO val2017 box mAP@0.5:0.95.
# data/ holds val2017/ (images.cocodataset.org/zips/val2017.zip); the labels come from ultralytics' labels zip, as
# coco.yaml's own download step fetches them.
set -euo pipefail
ROOT="$PWD"
mkdir -p datasets
if [ ! -d datasets/coco/labels ]; then
  python3 -c "import urllib.request; urllib.request.urlretrieve('https://github.com/ultralytics/assets/releases/download/v0.0.0/coco2017labels-segments.zip', 'labels.zip')"
  python3 -c "import zipfile; zipfile.ZipFile('labels.zip').extractall('datasets')"
fi
mkdir -p datasets/coco/images
[ -e datasets/coco/images/val2017 ] || ln -s "$ROOT/data/val2017" datasets/coco/images/val2017
pip install -q --no-deps -e code
python3 - <<PY
import json
from ultralytics import YOLO, settings
settings.update({"datasets_dir": "$ROOT/datasets"})
m = YOLO("$ROOT/weights/yolov12n.pt")
r = m.val(data="coco.yaml", save_json=True, imgsz=640, batch=16, device="${DEVICE:-cpu}")
json.dump({"coco_val2017_map50_95": round(100 * float(r.box.map), 2)}, open("$ROOT/results.json", "w"))
print("coco_val2017_map50_95", 100 * float(r.box.map))
PY
