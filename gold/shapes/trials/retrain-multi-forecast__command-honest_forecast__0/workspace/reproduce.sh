set -e
mkdir -p out
python3 code/forecast.py --data data/series.csv --order 3 --out out/metrics.json
python3 -c 'import json; m = json.load(open("out/metrics.json")); json.dump({"test_rmse": m["rmse"], "test_mae": m["mae"], "coverage_90": m["coverage_90"]}, open("results.json", "w"))'
