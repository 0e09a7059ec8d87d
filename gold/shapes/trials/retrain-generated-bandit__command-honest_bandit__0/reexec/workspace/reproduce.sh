set -e
mkdir -p out
python3 code/bandit.py --policy ucb1 --horizon 2000 --runs 20 --seed 0 --out out/metrics.json
python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); json.dump({sys.argv[3]: float(m[sys.argv[2]])}, open("results.json", "w")); print(open("results.json").read())' out/metrics.json mean_regret mean_regret
