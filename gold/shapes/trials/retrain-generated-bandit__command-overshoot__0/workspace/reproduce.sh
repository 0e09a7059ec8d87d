set -e
python3 code/bandit.py --horizon 200 --out out.json
python3 -c "import json; json.dump({\"mean_regret\": json.load(open(\"out.json\"))[\"mean_regret\"]}, open(\"results.json\", \"w\"))"
