set -euo pipefail
mkdir -p out
SEED="${SEED:-1}" python3 code/main.py --out out/metrics.json
python3 -c 'import json; m = json.load(open("out/metrics.json")); json.dump({k: float(m[k]) for k in ("shd", "tpr", "fdr")}, open("results.json", "w")); print(open("results.json").read())'
