set -euo pipefail
mkdir -p out
python3 code/run.py --data data --out out/metrics.json
python3 -c 'import json; json.dump({"test_rmse": float(json.load(open("out/metrics.json"))["rmse"])}, open("results.json", "w")); print(open("results.json").read())'
