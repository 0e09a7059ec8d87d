set -e
mkdir -p out
PYTHONPATH=.deps python3 code/fit.py --data data --out out/metrics.json
python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); json.dump({sys.argv[3]: float(m[sys.argv[2]])}, open("results.json", "w")); print(open("results.json").read())' out/metrics.json r2 test_r2
