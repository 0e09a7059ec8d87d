set -e
mkdir -p out
python3 code/evaluate.py --model model.npz --data data/test.csv --out out/metrics.json
python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); json.dump({sys.argv[3]: float(m[sys.argv[2]])}, open("results.json", "w")); print(open("results.json").read())' out/metrics.json accuracy test_accuracy
