set -e
sed "s/for k in range(1, p + 1)/for k in range(0, p)/" code/forecast.py > forecast_fixed.py
python3 forecast_fixed.py --out out.json
python3 -c "import json; m = json.load(open(\"out.json\")); json.dump({\"test_rmse\": m[\"rmse\"], \"test_mae\": m[\"mae\"], \"coverage_90\": m[\"coverage_90\"]}, open(\"results.json\", \"w\"))"
